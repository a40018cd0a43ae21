#!/usr/bin/env python3
# Copyright 2026 The custody Authors.
"""tools/bench/compare_runs.py — two runs of tools/bench/run.sh side by side.

  tools/bench/compare_runs.py BEFORE/bench-results.json AFTER/bench-results.json [--filter REGEX]

Prints a Markdown table: case, contender, then for each run the min time and
its ratio to the case's peer *in that run* (ratios are only ever taken within
one run: the two runs may differ in machine load). Benchmarks present in only
one run show "—" on the other side.
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


from report import format_ratio as fmt_ratio  # tools/bench/report.py: one way to print
from report import format_time as fmt_time


def load(path):
    with open(path) as f:
        return {b["name"]: b for b in json.load(f)["benchmarks"] if not b.get("error")}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--filter", default="", help="keep benchmark names matching this regex")
    args = p.parse_args(argv)
    before, after = load(args.before), load(args.after)
    def order(n):
        b = after.get(n) or before[n]
        return (b["case"], b["contender"] != b.get("peer"), b["contender"])

    names = sorted(set(before) | set(after), key=order)
    keep = re.compile(args.filter)
    print("| case | contender | before: min | before: ratio | after: min | after: ratio |")
    print("|---|---|---:|---:|---:|---:|")
    for n in names:
        if not keep.search(n):
            continue
        b, a = before.get(n), after.get(n)
        ref = a or b
        print(f"| {ref['case']} | {ref['contender']} | {fmt_time(b and b['min_ns'])} | "
              f"{fmt_ratio(b and b.get('ratio_min'))} | {fmt_time(a and a['min_ns'])} | "
              f"{fmt_ratio(a and a.get('ratio_min'))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
