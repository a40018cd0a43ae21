#!/usr/bin/env python3
# Copyright 2026 The custody Authors.
"""tools/bench/compare_runs.py — two runs of tools/bench/run.sh side by side.

  tools/bench/compare_runs.py BEFORE/bench-results.json AFTER/bench-results.json [--filter REGEX]

Prints a Markdown table: case, contender, then for each run the min time and
its ratio to the case's peer *in that run* (ratios are only ever taken within
one run: the two runs may differ in machine load). Benchmarks present in only
one run show "—" on the other side.

--interleaved (the two runs were made back to back, binary by binary: tools/bench/before_after.sh)
adds the direct ratios after ÷ before of the min and of the median times, which only such runs
share a machine state for.
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


def direct(b, a):
    """ after/before of the min and median times, as table cells ("—" where a side is missing)."""
    if not (a and b and b["min_ns"] and b["median_ns"]):
        return " — | — |"
    return f" {fmt_ratio(a['min_ns'] / b['min_ns'])} | {fmt_ratio(a['median_ns'] / b['median_ns'])} |"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--filter", default="", help="keep benchmark names matching this regex")
    p.add_argument("--interleaved", action="store_true",
                   help="add after/before of min and median (runs made back to back)")
    args = p.parse_args(argv)
    before, after = load(args.before), load(args.after)
    def order(n):
        b = after.get(n) or before[n]
        return (b["case"], b["contender"] != b.get("peer"), b["contender"])

    names = sorted(set(before) | set(after), key=order)
    keep = re.compile(args.filter)
    extra_head = " after/before: min | after/before: median |" if args.interleaved else ""
    print("| case | contender | before: min | before: ratio | after: min | after: ratio |" + extra_head)
    print("|---|---|---:|---:|---:|---:|" + ("---:|---:|" if args.interleaved else ""))
    for n in names:
        if not keep.search(n):
            continue
        b, a = before.get(n), after.get(n)
        ref = a or b
        print(f"| {ref['case']} | {ref['contender']} | {fmt_time(b and b['min_ns'])} | "
              f"{fmt_ratio(b and b.get('ratio_min'))} | {fmt_time(a and a['min_ns'])} | "
              f"{fmt_ratio(a and a.get('ratio_min'))} |" + (direct(b, a) if args.interleaved else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
