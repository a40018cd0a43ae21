#!/usr/bin/env python3
# Copyright 2026 The custody Authors.
"""Checks that code outside the policies' own packages reads the lists instead of naming the policies.

    check_policy_names.py [--root DIR | --anchor FILE] [--self-test]

A code file (C++, CUDA, Starlark, BUILD, Python, shell) outside a policy's package that names four or
more of the selectable policies (POLICIES in tools/build_defs/flags.bzl) keeps a list of its own: a
sixth policy would need an edit there. Only the files in DELIBERATE_LISTS may, each for the reason
given; any other prints `file: names a, b, c, d` and the check exits 1.

A file names policy p where, outside comments, it writes `p::` (its namespace), `policies/p` (its
package or headers) or the string "p" (a flag value, a list entry). BUILD tags ("manual") are not
names. The policies' packages are policies/<p>/ and the packages of TEST_POLICIES.

--anchor names a file at the workspace's root as Bazel lays it out for a test (a runfile symlink to the
source tree); the tree checked is the one it links to.
"""

import argparse
import ast
import os
import re
import sys
import tempfile

# The files that name four or more policies on purpose, and why.
DELIBERATE_LISTS = {
    "tools/build_defs/flags.bzl": "the one list every other list is generated from",
    "examples/idioms/idioms_test.cc": "README's idioms side by side, one test per policy",
    "tests/cross_policy/cross_policy_fuzz_test.cc":
        "the model of what each pair of regimes does with a shared reference",
}

CODE_EXT = (".h", ".cc", ".cu", ".cuh", ".inc", ".bzl", ".py", ".sh")
MIN_NAMES = 4


def read_list(flags_text, name):
    """The value of a top-level `NAME = [...]` or `NAME = {...}` in flags.bzl (a literal)."""
    match = re.search(r"^%s\s*=\s*([\[{].*?[\]}])\s*$" % name, flags_text, re.M | re.S)
    if not match:
        raise SystemExit("check_policy_names: no %s in tools/build_defs/flags.bzl" % name)
    return ast.literal_eval(match.group(1))


def strip_comments(path, text):
    """`text` without comments: // and /* */ for C++ and CUDA, # for the rest."""
    if path.endswith((".h", ".cc", ".cu", ".cuh", ".inc")):
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        return "\n".join(re.sub(r"(^|[^:\"])//.*$", r"\1", line) for line in text.splitlines())
    return "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in text.splitlines())


def names_in(path, text, policies):
    """The policies that `text` (a file at `path`) names, in POLICIES order."""
    code = strip_comments(path, text)
    if os.path.basename(path) == "BUILD" or path.endswith(".bzl"):
        code = re.sub(r"tags\s*=\s*\[[^\]]*\]", "", code)
    found = []
    for p in policies:
        spelled = (r"(?<![\w:])%s::" % p, r"policies/%s\b" % p, r"[\"']%s[\"']" % p)
        if any(re.search(s, code) for s in spelled):
            found.append(p)
    return found


def check(root):
    with open(os.path.join(root, "tools/build_defs/flags.bzl"), encoding="utf-8") as f:
        flags = f.read()
    policies = read_list(flags, "POLICIES")
    own = ["policies/" + p for p in policies]
    own += [package[2:] for package in read_list(flags, "TEST_POLICIES").values()]
    violations = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(("bazel-", ".")) and d != "third_party")
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if any(rel_dir == o or rel_dir.startswith(o + "/") for o in own):
            continue
        for name in sorted(filenames):
            if name != "BUILD" and not name.endswith(CODE_EXT):
                continue
            path = name if rel_dir == "." else rel_dir + "/" + name
            if path in DELIBERATE_LISTS:
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                found = names_in(path, f.read(), policies)
            if len(found) >= MIN_NAMES:
                violations.append("%s: names %s (read custody/lists or PolicyIdiom instead, or add it to "
                                  "DELIBERATE_LISTS with its reason)" % (path, ", ".join(found)))
    return violations


def self_test():
    """A planted file of each kind is caught; comments, tags and the deliberate lists are not."""
    failures = 0
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        write("tools/build_defs/flags.bzl",
              'POLICIES = ["ann", "bea", "cy", "di", "ed"]\n'
              'TEST_POLICIES = {"fay": "//tests/extra_policy"}\n')
        write("policies/cy/cy_test.cc", "ann:: bea:: cy:: di::\n")
        write("tests/extra_policy/x.cc", "ann:: bea:: cy:: di::\n")
        write("examples/idioms/idioms_test.cc", "ann:: bea:: cy:: di::\n")
        write("tests/ok/comments.cc", "// ann:: bea:: cy:: di::\n/* ed:: */ ann::x; s = \"http://di::\";\n")
        write("tests/ok/BUILD", 'cc_test(\n    tags = ["ann", "bea"],\n    deps = ["//policies/cy", "//policies/di"],\n)\n')
        write("tests/ok/three.h", "ann::a; bea::b; cy::c; x::di::d;\n")
        write("tests/bad/namespaces.cc", "ann::a; bea::b; cy::c; di::d;\n")
        write("tests/bad/BUILD", 'x(\n    deps = ["//policies/ann", "//policies/bea", "//policies/cy",\n'
              '            "//policies/di"],\n)\n')
        write("tools/bad/plans.py", 'MODES = {"ann": 1, "bea": 2, "cy": 3, "ed": 4}  # di::\n')
        got = sorted(v.split(":")[0] for v in check(root))
        want = ["tests/bad/BUILD", "tests/bad/namespaces.cc", "tools/bad/plans.py"]
        if got != want:
            print("self-test: caught %s, want %s" % (got, want))
            failures += 1
    print("self-test: %s" % ("PASS" if not failures else "FAIL"))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".")
    parser.add_argument("--anchor", help="a runfile at the workspace root; check the tree it links to")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = os.path.dirname(os.path.realpath(args.anchor)) if args.anchor else args.root
    violations = check(root)
    for v in violations:
        print(v)
    print("%d code files outside the policies' packages name %d or more policies beyond the %d deliberate "
          "lists (%s)" % (len(violations), MIN_NAMES, len(DELIBERATE_LISTS), ", ".join(DELIBERATE_LISTS)))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
