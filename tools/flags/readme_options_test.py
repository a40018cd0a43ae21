#!/usr/bin/env python3
"""The documented option lists stay true (Note [Flags], tools/flags/flags.h): for each program, the
flags its `--helpfull` lists for its own source file, with their defaults, are exactly the rows of the
table between `<!-- options: NAME -->` and `<!-- /options -->` in the docs given (docs/reference.md).
Each table must be in exactly one of them.

    readme_options_test.py DOC.md... NAME=BINARY=SOURCE ...
"""

import re
import subprocess
import sys
import unittest

DOCS = {}  # path -> text
PROGRAMS = []  # (name, binary, source)


def normalize(default):
    default = default.strip()
    return "" if default in ('""', "") else default


def helpfull_flags(binary, source):
    out = subprocess.run([binary, "--helpfull"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, check=False).stdout
    m = re.search(r"Flags from %s:\n(.*?)(?:\n\n|\Z)" % re.escape(source), out, re.S)
    if not m:
        raise AssertionError("%s --helpfull has no section for %s:\n%s" % (binary, source, out))
    text = " ".join(line.strip() for line in m.group(1).splitlines())
    # "--name (help); default: value;" -- help may hold parentheses and semicolons: anchor on
    # "); default: " and the next " --" or the end.
    flags = {}
    for entry in re.split(r"(?:^| )(?=--\w+ \()", text):
        entry = entry.strip()
        if not entry:
            continue
        fm = re.match(r"--(\w+) \(.*\); default: (.*);$", entry)
        if not fm:
            raise AssertionError("cannot read --helpfull entry: %r" % entry)
        flags[fm.group(1)] = normalize(fm.group(2))
    return flags


def readme_flags(name):
    pattern = r"<!-- options: %s -->\n(.*?)<!-- /options -->" % re.escape(name)
    found = [(path, m) for path, text in DOCS.items() for m in re.finditer(pattern, text, re.S)]
    if not found:
        raise AssertionError("no options table for %s in %s" % (name, ", ".join(DOCS)))
    if len(found) > 1:
        raise AssertionError("%d options tables for %s (in %s): keep one" %
                             (len(found), name, ", ".join(path for path, _ in found)))
    m = found[0][1]
    flags = {}
    for row in m.group(1).splitlines():
        rm = re.match(r"\| `--(\w+)` \| `(.*?)` \|", row)
        if rm:
            flags[rm.group(1)] = normalize(rm.group(2))
    return flags


class ReadmeOptionsTest(unittest.TestCase):
    def test_every_program(self):
        self.assertTrue(PROGRAMS)
        for name, binary, source in PROGRAMS:
            with self.subTest(program=name):
                self.assertEqual(readme_flags(name), helpfull_flags(binary, source),
                                 "the documented table for %s vs its --helpfull" % name)


if __name__ == "__main__":
    while len(sys.argv) > 1 and "=" not in sys.argv[1] and not sys.argv[1].startswith("-"):
        path = sys.argv.pop(1)
        with open(path, encoding="utf-8") as f:
            DOCS[path] = f.read()
    while len(sys.argv) > 1 and "=" in sys.argv[1]:
        PROGRAMS.append(tuple(sys.argv.pop(1).split("=", 2)))
    unittest.main()
