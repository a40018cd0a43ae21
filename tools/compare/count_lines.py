#!/usr/bin/env python3
"""Counts the lines of idiomatic code in each workload's per-policy header and bodies.

    count_lines.py OUT.inc workloads/mlp/scope.h ... handle=workloads/mlp/tensor_ptr.h ...

A line counts when it holds code: not blank, not a comment, not a preprocessor
line (include guards and includes are the same under every policy). Writes one
C++ initializer per file, `{"mlp", "scope", 23},`, for tools/compare's table: a
header under its name, a NAME=PATH argument (a body that policies without a
header of their own run) under NAME.
"""

import os
import sys


def code_lines(path):
    n = 0
    in_block = False
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if in_block:
                if "*/" in line:
                    in_block = False
                continue
            if not line or line.startswith("//") or line.startswith("#"):
                continue
            if line.startswith("/*"):
                in_block = "*/" not in line
                continue
            n += 1
    return n


def main(argv):
    out, args = argv[1], argv[2:]
    with open(out, "w", encoding="utf-8") as f:
        for arg in args:
            name, _, path = arg.rpartition("=")
            workload = os.path.basename(os.path.dirname(path))
            policy = name or os.path.splitext(os.path.basename(path))[0]
            f.write('{"%s", "%s", %d},\n' % (workload, policy, code_lines(path)))


if __name__ == "__main__":
    main(sys.argv)
