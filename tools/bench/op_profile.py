#!/usr/bin/env python3
# Copyright 2026 The custody Authors.
"""What one iteration of a benchmark case costs in instructions, locked
instructions and simulated cache misses, counted by valgrind (this project's
VMs have no hardware counters).

    tools/bench/op_profile.py BINARY CASE MARKER [CASE MARKER ...]

BINARY is a Google Benchmark binary (bazel-bin/policies/policy_benchmark),
CASE a regular expression for --benchmark_filter that selects one case, and
MARKER a regular expression naming a function the case calls exactly once per
iteration (`new_alias`), or `loop:` and one naming the function that holds
the benchmark's loop (a peer's, `loop:alias_copy_release`): then the
iterations are the most executions of one of its instructions.

Each case runs twice under callgrind, with one repetition and with more
(--benchmark_repetitions: a case may fix its own minimum time); the difference
between the two runs, divided by the difference in calls to MARKER, is one
iteration's cost: the process's start, libtorch's registration and the case's
set-up cancel out.

Locked instructions are the executions of instructions with a `lock` prefix,
and of `xchg` with a memory operand (locked without the prefix), found by
disassembling (objdump) every instruction whose count differs between the two
runs. Cache misses are callgrind's simulation (--cache-sim=yes: first-level
data reads and writes, last-level reads and writes), not this machine's.

Prints one Markdown table row per case:
| case | instructions | locked | D1 misses | LL misses | calls |
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")


class Profile:
    """One callgrind output: event totals, calls per callee name, and the
    executions of each instruction, by (object, address)."""

    def __init__(self, path):
        self.totals = {}
        self.calls = collections.Counter()
        self.instr = collections.Counter()
        self.fn_of = {}
        self._parse(path)

    def _parse(self, path):
        names = {"ob": {}, "fn": {}, "fl": {}}
        events = []
        ob = None
        fn = None
        cfn = None
        last_addr = 0
        skip_next_cost = False
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                head = line[0]
                if head.isdigit() or head in "+-*" or line.startswith("0x"):
                    addr_tok = line.split()[0]
                    if addr_tok.startswith("0x"):
                        addr = int(addr_tok, 16)
                    elif addr_tok[0] in "+-":
                        addr = last_addr + int(addr_tok)
                    elif addr_tok == "*":
                        addr = last_addr
                    else:
                        addr = int(addr_tok)
                    last_addr = addr
                    if skip_next_cost:
                        skip_next_cost = False
                        continue
                    fields = line.split()
                    # positions: instr line; then the events in order
                    costs = fields[2:]
                    if costs and events and events[0] == "Ir":
                        self.instr[(ob, addr)] += int(costs[0])
                        self.fn_of[(ob, addr)] = fn
                    continue
                key, _, value = line.partition("=")
                if line.startswith("events:"):
                    events = line.split()[1:]
                elif line.startswith("summary:") or line.startswith("totals:"):
                    vals = [int(v) for v in line.split()[1:]]
                    self.totals = dict(zip(events, vals))
                elif key in ("ob", "cob", "fn", "cfn", "fl", "fi", "fe", "cfi", "cfl"):
                    kind = {"cob": "ob", "cfn": "fn", "cfi": "fl", "cfl": "fl", "fi": "fl",
                            "fe": "fl"}.get(key, key)
                    m = re.match(r"\((\d+)\)(?: (.*))?$", value)
                    if m:
                        ident, name = m.group(1), m.group(2)
                        if name is not None:
                            names[kind][ident] = name
                        name = names[kind].get(ident, "")
                    else:
                        name = value
                    if key == "ob":
                        ob = name
                    elif key == "fn":
                        fn = name
                    elif key == "cfn":
                        cfn = name
                elif key == "calls":
                    self.calls[cfn] += int(value.split()[0])
                    skip_next_cost = True


def run_callgrind(binary, case, repetitions, out):
    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--cache-sim=yes",
           f"--callgrind-out-file={out}", binary, f"--benchmark_filter={case}",
           "--benchmark_min_time=0.02", f"--benchmark_repetitions={repetitions}"]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit(f"op_profile: {' '.join(cmd)} failed:\n{res.stderr[-2000:]}")
    if case.split("/")[0] not in res.stdout:
        sys.exit(f"op_profile: no case matched {case!r}:\n{res.stdout[-1000:]}")
    return Profile(out)


def locked_addresses(obj, addrs):
    """The addresses among `addrs` of `obj` holding a locked instruction."""
    if not obj or not os.path.exists(obj) or not addrs:
        return set()
    lo, hi = min(addrs), max(addrs) + 16
    res = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={lo:#x}",
                          f"--stop-address={hi:#x}", obj],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    locked = set()
    for line in res.stdout.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)$", line)
        if not m:
            continue
        addr, insn = int(m.group(1), 16), m.group(2)
        if addr not in addrs:
            continue
        if insn.startswith("lock ") or (insn.startswith("xchg") and "(" in insn):
            locked.add(addr)
    return locked


def profile(binary, case, marker, short, long):
    with tempfile.TemporaryDirectory() as tmp:
        a = run_callgrind(binary, case, short, os.path.join(tmp, "a.out"))
        b = run_callgrind(binary, case, long, os.path.join(tmp, "b.out"))
    if marker.startswith("loop:"):  # its loop's instructions run once an iteration
        pattern = re.compile(marker[len("loop:"):])
        calls = max((n - a.instr.get(key, 0) for key, n in b.instr.items()
                     if b.fn_of.get(key) and pattern.search(b.fn_of[key])), default=0)
    else:
        pattern = re.compile(marker)
        calls = sum(n for fn, n in b.calls.items() if fn and pattern.search(fn)) - \
            sum(n for fn, n in a.calls.items() if fn and pattern.search(fn))
    if calls <= 0:
        sys.exit(f"op_profile: no more calls to {marker!r} in the longer run of {case!r}")
    per = {e: (b.totals.get(e, 0) - a.totals.get(e, 0)) / calls for e in EVENTS}
    hot = collections.defaultdict(set)
    for key, n in b.instr.items():
        if n > a.instr.get(key, 0):
            hot[key[0]].add(key[1])
    locked = 0
    for obj, addrs in hot.items():
        for addr in locked_addresses(obj, addrs):
            locked += b.instr[(obj, addr)] - a.instr.get((obj, addr), 0)
    per["locked"] = locked / calls
    per["calls"] = calls
    return per


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("pairs", nargs="+", help="CASE MARKER pairs")
    parser.add_argument("--short", default="1", help="the short run's --benchmark_repetitions")
    parser.add_argument("--long", default="3", help="the longer run's --benchmark_repetitions")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        sys.exit("op_profile: give CASE MARKER pairs")
    print("| case | instructions | locked | D1 misses | LL misses | iterations counted |")
    print("|---|---:|---:|---:|---:|---:|")
    for case, marker in zip(args.pairs[::2], args.pairs[1::2]):
        p = profile(args.binary, case, marker, args.short, args.long)
        print(f"| {case.strip('^$/')} | {p['Ir']:.0f} | {p['locked']:.2f} | "
              f"{p['D1mr'] + p['D1mw']:.2f} | {p['DLmr'] + p['DLmw']:.2f} | {p['calls']} |",
              flush=True)


if __name__ == "__main__":
    main()
