#!/usr/bin/env python3
"""report: merges Google Benchmark JSON files into one result, with ratios against each case's peer.

    python3 tools/bench/report.py [--out bench-results.json] [--markdown table.md] FILE.json...

tools/bench/run.sh runs it over the JSON its benchmark binaries wrote
(`--benchmark_repetitions=N --benchmark_out_format=json`).

Benchmarks are named `<case>/<contender>` (testing/bench/bench_util.h): everything before the last `/` is
the case (with its parameters, e.g. `matmul_2d/n=1024`), the rest is who runs it (`tensor_ptr:onednn`,
`libtorch`, `onednn_direct`, `omp_loop`, ...). Suffixes Google Benchmark appends (`/real_time`,
`/min_time:0.5`, `/iterations:N`, `/repeats:N`, `/threads:N`, ...) are dropped first.

For every benchmark the repetitions (`run_type == "iteration"`; Google Benchmark's own aggregates are
ignored) give min, median, mean and standard deviation of the real time per iteration, in ns. Each
benchmark is compared with the peer of its case, measured in the same run (PEER_RULES below):

    ratio_min    = min(contender) / min(peer)          > 1: slower than the peer
    ratio_median = median(contender) / median(peer)

Writes one JSON object (--out) with every benchmark, its statistics, peer and ratios, and prints a
Markdown table: case, contender, min, median, ratio vs peer (min-based and median-based).

--doc FILE writes the table into FILE (docs/benchmarks.md) between the lines DOC_BEGIN and DOC_END,
under a heading with the run's date (Google Benchmark's context) and the machine (--machine, else
/proc/cpuinfo's model name and the CPU count), and a line saying how it was run (--command): what
is between those lines is report.py's alone, never edited by hand.
Exit status: 0, or 2 on bad usage / no benchmark found.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys

# Peer of a case: the first rule whose pattern matches the case name (re.search) decides. Its
# candidates are contender names; the peer is the candidate present in that case with the lowest
# min time (one candidate: that one). A case without any candidate has no ratios.
PEER_RULES = [
    # matmul: the faster of libtorch (its BLAS) and oneDNN called directly, whichever wins here.
    (r"^matmul", ("libtorch", "onednn_direct")),
    # 16M add in place: memory-bound; the OpenMP loop over the same buffers is the floor.
    (r"^add_16M/in_place", ("omp_loop",)),
    # everything else: plain libtorch.
    (r"", ("libtorch",)),
]

# Name suffixes Google Benchmark appends to a registered name.
_SUFFIX = re.compile(
    r"/(real_time|manual_time|process_time|min_time:[^/]*|min_warmup_time:[^/]*|iterations:\d+|"
    r"repeats:\d+|threads:\d+|threads:\d+_mean)$")

# Keys of a benchmark row that are not user counters.
_STANDARD_KEYS = {
    "name", "run_name", "run_type", "family_index", "per_family_instance_index", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "error_occurred", "error_message", "aggregate_name", "aggregate_unit", "label",
}

_TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def base_name(name):
    """The registered `<case>/<contender>` name, without Google Benchmark's suffixes."""
    while True:
        stripped = _SUFFIX.sub("", name)
        if stripped == name:
            return name
        name = stripped


def split_name(name):
    """(case, contender) of a base name; a name without '/' is a case with no contender."""
    if "/" not in name:
        return name, ""
    case, contender = name.rsplit("/", 1)
    return case, contender


def peer_candidates(case):
    for pattern, candidates in PEER_RULES:
        if re.search(pattern, case):
            return candidates
    return ()


def _natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def load(paths):
    """Benchmarks of every file, in file order: a list of dicts (see merge)."""
    runs = {}  # base name -> dict
    order = []
    contexts = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"report: skipping {path}: {e}", file=sys.stderr)
            continue
        binary = os.path.splitext(os.path.basename(path))[0]
        contexts[binary] = doc.get("context", {})
        for b in doc.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration":
                continue  # Google Benchmark's mean/median/stddev/cv rows
            name = base_name(b.get("run_name", b["name"]))
            r = runs.get(name)
            if r is None:
                case, contender = split_name(name)
                r = runs[name] = {
                    "name": name, "case": case, "contender": contender, "binary": binary,
                    "times_ns": [], "iterations": [], "counters": {}, "error": None,
                    "label": "",
                }
                order.append(name)
            if b.get("error_occurred"):
                r["error"] = b.get("error_message", "error")
                continue
            r["times_ns"].append(float(b["real_time"]) * _TIME_UNIT_NS[b.get("time_unit", "ns")])
            r["iterations"].append(int(b.get("iterations", 0)))
            r["label"] = b.get("label", r["label"])
            for key, value in b.items():
                if key in _STANDARD_KEYS or not isinstance(value, (int, float)):
                    continue
                r["counters"].setdefault(key, []).append(float(value))
    return [runs[n] for n in order], contexts


def summarize(runs):
    """Adds min/median/mean/stddev (ns) and the median of each counter to every run."""
    for r in runs:
        t = r["times_ns"]
        r["repetitions"] = len(t)
        r["min_ns"] = min(t) if t else None
        r["median_ns"] = statistics.median(t) if t else None
        r["mean_ns"] = statistics.fmean(t) if t else None
        r["stddev_ns"] = statistics.stdev(t) if len(t) > 1 else (0.0 if t else None)
        r["counters"] = {k: statistics.median(v) for k, v in r["counters"].items()}


def assign_peers(runs):
    """Sets peer, ratio_min and ratio_median of every run (None where there is no peer)."""
    by_case = {}
    for r in runs:
        by_case.setdefault(r["case"], {})[r["contender"]] = r
    for case, members in by_case.items():
        present = [members[c] for c in peer_candidates(case)
                   if c in members and members[c]["min_ns"]]
        peer = min(present, key=lambda r: r["min_ns"]) if present else None
        for r in members.values():
            r["peer"] = peer["contender"] if peer else None
            r["is_peer"] = r is peer
            ok = peer is not None and r["min_ns"] is not None
            r["ratio_min"] = r["min_ns"] / peer["min_ns"] if ok else None
            r["ratio_median"] = (r["median_ns"] / peer["median_ns"]
                                 if ok and peer["median_ns"] else None)


def ordered(runs, binaries):
    """Runs grouped by binary (file order), case (natural order), peer first, then contenders."""
    rank = {b: i for i, b in enumerate(binaries)}
    return sorted(runs, key=lambda r: (rank.get(r["binary"], len(rank)), _natural_key(r["case"]),
                                       not r.get("is_peer"), _natural_key(r["contender"])))


def merge(paths):
    runs, contexts = load(paths)
    summarize(runs)
    assign_peers(runs)
    runs = ordered(runs, list(contexts))
    out = []
    for r in runs:
        out.append({k: r[k] for k in (
            "name", "case", "contender", "binary", "repetitions", "min_ns", "median_ns", "mean_ns",
            "stddev_ns", "peer", "ratio_min", "ratio_median", "counters", "label", "error",
            "times_ns", "iterations")})
    return {"context": contexts, "peer_rules": [[p, list(c)] for p, c in PEER_RULES],
            "benchmarks": out}


def format_time(ns):
    if ns is None or math.isnan(ns):
        return "—"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def format_ratio(ratio):
    return "—" if ratio is None else f"{ratio:.2f}"


def markdown(result):
    lines = ["| case | contender | min | median | ratio vs peer (min) | ratio vs peer (median) |",
             "|---|---|---:|---:|---:|---:|"]
    for r in result["benchmarks"]:
        who = r["contender"] or "—"
        if r["peer"] is not None and r["contender"] == r["peer"]:
            who += " (peer)"
        if r["error"] and not r["repetitions"]:
            lines.append(f"| {r['case']} | {who} | error: {r['error']} | | | |")
            continue
        lines.append(f"| {r['case']} | {who} | {format_time(r['min_ns'])} | "
                     f"{format_time(r['median_ns'])} | {format_ratio(r['ratio_min'])} | "
                     f"{format_ratio(r['ratio_median'])} |")
    return "\n".join(lines) + "\n"


DOC_BEGIN = "<!-- tools/bench/report.py --doc: begin -->"
DOC_END = "<!-- tools/bench/report.py --doc: end -->"


def host_machine():
    """This machine in words: the CPU's model name (/proc/cpuinfo), or "unknown CPU"."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def doc_section(result, machine, command):
    """The generated section of docs/benchmarks.md: heading (date, machine), how it ran, the table."""
    contexts = list(result["context"].values())
    date = min((c.get("date", "") for c in contexts), default="")[:10] or "undated"
    cpus = max((c.get("num_cpus", 0) for c in contexts), default=0)
    builds = sorted({c.get("library_build_type", "") for c in contexts} - {""})
    reps = sorted({r["repetitions"] for r in result["benchmarks"] if r["repetitions"]})
    lines = [
        DOC_BEGIN,
        f"## {date}: {machine}, {cpus} CPUs",
        "",
        f"`{command}`; {', '.join(map(str, reps))} repetitions of each benchmark"
        + (f" (Google Benchmark library built as {', '.join(builds)})" if builds else "")
        + ". Min and median over the repetitions; ratios to the case's peer in the same run, "
        "\"(peer)\" marking it. Written by `tools/bench/report.py --doc` from the run's JSON.",
        "",
        markdown(result).rstrip("\n"),
        DOC_END,
    ]
    return "\n".join(lines) + "\n"


def write_doc(path, section):
    """Replaces the lines from DOC_BEGIN to DOC_END in `path` with `section`; False if they are not there."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin, end = text.find(DOC_BEGIN), text.find(DOC_END)
    if begin < 0 or end < begin:
        return False
    end += len(DOC_END)
    if text[end:end + 1] == "\n":
        end += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:begin] + section + text[end:])
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", help="Google Benchmark JSON files")
    parser.add_argument("--out", help="merged JSON to write (bench-results.json)")
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--doc", help="write the table into this file's generated section (docs/benchmarks.md)")
    parser.add_argument("--machine", help="--doc: the machine in words (default: /proc/cpuinfo's model name)")
    parser.add_argument("--command", default="tools/bench/run.sh", help="--doc: how the run was made")
    args = parser.parse_args(argv)
    result = merge(args.files)
    if not result["benchmarks"]:
        print("report: no benchmark results in " + " ".join(args.files), file=sys.stderr)
        return 2
    table = markdown(result)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    if args.doc and not write_doc(args.doc, doc_section(result, args.machine or host_machine(), args.command)):
        print(f"report: {args.doc} has no section between {DOC_BEGIN!r} and {DOC_END!r}", file=sys.stderr)
        return 2
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
