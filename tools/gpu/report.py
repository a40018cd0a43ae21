#!/usr/bin/env python3
"""report: the CUDA backend's benchmark against PyTorch, and the issue's three GPU targets.

    python3 tools/gpu/report.py --custody cuda_benchmark.json [--torch torch_peer.json]
                                [--json report.json] [--check]
    python3 tools/gpu/report.py --custody cuda_benchmark.json --failed

--custody: Google Benchmark JSON of //backends/cuda:cuda_benchmark (--benchmark_out_format=json, or
--benchmark_format=json on stdout), with or without repetitions. --torch: what tools/gpu/torch_peer.py
wrote. Both name benchmarks `<case>/<contender>` (custody: `scope:cuda`, `cudaMemcpyAsync`,
`cublas_direct`; PyTorch: `torch`, `torch_clone`). Per benchmark, min and median over the repetitions
(Google Benchmark's own aggregate rows are ignored) of the time per op.

The targets (issue 11), judged on medians (min-based values are printed beside them):

  1. add bandwidth / D2D copy bandwidth >= 0.85, for 16M and 64M elements: add_<n>/scope:cuda against
     d2d_copy_<n>/cudaMemcpyAsync, both counting bytes read + written (`bytes` counter), i.e. the
     copy's time over the add's time (the benchmark sizes the copy to move the add's bytes);
  2. 1-element add latency <= 0.5x PyTorch eager: add_1/scope:cuda time over add_1/torch time;
  3. matmul 4096^3 float32 >= 0.9x torch.matmul: matmul/n=4096/torch time over matmul/n=4096/scope:cuda
     time (throughput ratio).

Then every other case with a PyTorch peer as `x_torch` = custody time / torch time (< 1: custody is
faster; as tools/compare's x_torch) and bandwidths or FLOP/s where the benchmark gives bytes or flop.

A custody benchmark case that reported an error (Google Benchmark's `error_occurred`: SkipWithError,
for no CUDA device, a kernel fault, an exception; the binary still exits 0) FAILED, even when other
repetitions of it ran: the report lists it first, `FAILED: <case>: <error_message>`, its row says so,
and a target that uses it is FAIL, never judged on the repetitions that did run. A target whose inputs
were not measured (no PyTorch peer, a case missing from the JSON) is "n/a", never a pass. --failed
prints only the FAILED lines (tools/gpu/device_check.sh judges its benchmark step by it).

Exit status: 0; 1 when a case FAILED, and with --check also when a target is not PASS; 2 on bad usage
or unreadable --custody input.
"""

import argparse
import json
import math
import re
import statistics
import sys

CUSTODY = "scope:cuda"
TORCH = "torch"

# Google Benchmark suffixes (as tools/bench/report.py strips them).
_SUFFIX = re.compile(
    r"/(real_time|manual_time|process_time|min_time:[^/]*|min_warmup_time:[^/]*|iterations:\d+|"
    r"repeats:\d+|threads:\d+)$")
_TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

ADD_BW_TARGET = 0.85
LATENCY_TARGET = 0.5
MATMUL_TARGET = 0.9
SIZES = ("16M", "64M")


def base_name(name):
    while True:
        stripped = _SUFFIX.sub("", name)
        if stripped == name:
            return name
        name = stripped


def split_name(name):
    if "/" not in name:
        return name, ""
    return tuple(name.rsplit("/", 1))


def _entry(name):
    case, contender = split_name(name)
    return {"name": name, "case": case, "contender": contender, "times_ns": [], "error": None,
            "errors": 0, "bytes": None, "flop": None}


def _finish(entry):
    t = entry["times_ns"]
    entry["repetitions"] = len(t)
    entry["min_ns"] = min(t) if t else None
    entry["median_ns"] = statistics.median(t) if t else None
    return entry


def load_gbench(doc):
    """{base name: entry} of a Google Benchmark JSON document (iteration rows only)."""
    out = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = base_name(b.get("run_name", b.get("name", "")))
        e = out.setdefault(name, _entry(name))
        if b.get("error_occurred"):
            e["error"] = e["error"] or b.get("error_message") or "error (no error_message)"
            e["errors"] += 1
            continue
        e["times_ns"].append(float(b["real_time"]) * _TIME_UNIT_NS[b.get("time_unit", "ns")])
        for key in ("bytes", "flop"):
            if isinstance(b.get(key), (int, float)):
                e[key] = float(b[key])
    return {k: _finish(v) for k, v in out.items()}


def load_torch(doc):
    """{name: entry} of torch_peer.py's JSON."""
    out = {}
    for b in doc.get("benchmarks", []):
        e = _entry(b["name"])
        e["times_ns"] = [float(t) for t in b.get("times_ns", [])]
        if not e["times_ns"] and b.get("min_ns") is not None:
            e["times_ns"] = [float(b["min_ns"])]
        e["bytes"] = b.get("bytes")
        e["flop"] = b.get("flop")
        e["error"] = b.get("error")
        out[e["name"]] = _finish(e)
    return out


def _ratio(num, den):
    if num is None or den is None or den == 0:
        return None
    return num / den


def _pair(a, b, fn):
    """fn over (a, b) for min and median; None where an input is missing."""
    if a is None or b is None:
        return {"min": None, "median": None}
    return {"min": fn(a["min_ns"], b["min_ns"]), "median": fn(a["median_ns"], b["median_ns"])}


def failed_cases(custody):
    """[(name, error message, errored rows, rows that ran)] of the custody benchmarks that reported an
    error, in name order."""
    return [(name, e["error"], e["errors"], e["repetitions"])
            for name, e in sorted(custody.items(), key=lambda kv: _natural_key(kv[0])) if e["error"]]


def _why_failed(*entries_and_names):
    """The custody cases among the inputs that reported an error: a target using one is FAIL."""
    return "; ".join(f"{name}: {e['error']}" for name, e in entries_and_names
                     if e is not None and e["error"])


def _why_missing(*entries_and_names):
    """What stops a comparison: an input not measured, or a PyTorch case that reported an error."""
    reasons = []
    for name, e in entries_and_names:
        if e is None:
            reasons.append(f"{name}: not measured")
        elif e["error"] and not e["repetitions"]:
            reasons.append(f"{name}: {e['error']}")
    return "; ".join(reasons)


def targets(custody, torch):
    """The three issue targets: a list of dicts (name, value min/median, goal, verdict, why)."""
    out = []
    for size in SIZES:
        add, copy = f"add_{size}/{CUSTODY}", f"d2d_copy_{size}/cudaMemcpyAsync"
        a, c = custody.get(add), custody.get(copy)
        failed = _why_failed((add, a), (copy, c))
        why = failed or _why_missing((add, a), (copy, c))
        value = {"min": None, "median": None}
        if not why:
            # bandwidth ratio = (bytes_add / t_add) / (bytes_copy / t_copy)
            ba, bc = a["bytes"], c["bytes"]
            if ba is None or bc is None:
                why = "no `bytes` counter in the benchmark JSON"
            else:
                value = _pair(a, c, lambda ta, tc: _ratio(ba / ta, bc / tc))
        out.append({"target": f"add bandwidth / D2D copy bandwidth, {size} float32",
                    "value": value, "goal": f">= {ADD_BW_TARGET}", "ok": lambda v: v >= ADD_BW_TARGET,
                    "why": why, "failed": bool(failed), "unit": "x"})
    lat_c, lat_t = custody.get(f"add_1/{CUSTODY}"), torch.get(f"add_1/{TORCH}")
    failed = _why_failed((f"add_1/{CUSTODY}", lat_c))
    why = failed or _why_missing((f"add_1/{CUSTODY}", lat_c), (f"add_1/{TORCH}", lat_t))
    out.append({"target": "1-element add latency vs PyTorch eager (custody time / torch time)",
                "value": _pair(lat_c, lat_t, _ratio) if not why else {"min": None, "median": None},
                "goal": f"<= {LATENCY_TARGET}", "ok": lambda v: v <= LATENCY_TARGET, "why": why,
                "failed": bool(failed), "unit": "x"})
    mm = "matmul/n=4096"
    mm_c, mm_t = custody.get(f"{mm}/{CUSTODY}"), torch.get(f"{mm}/{TORCH}")
    failed = _why_failed((f"{mm}/{CUSTODY}", mm_c))
    why = failed or _why_missing((f"{mm}/{CUSTODY}", mm_c), (f"{mm}/{TORCH}", mm_t))
    out.append({"target": "matmul 4096^3 float32 vs torch.matmul (throughput: torch time / custody time)",
                "value": _pair(mm_t, mm_c, _ratio) if not why else {"min": None, "median": None},
                "goal": f">= {MATMUL_TARGET}", "ok": lambda v: v >= MATMUL_TARGET, "why": why,
                "failed": bool(failed), "unit": "x"})
    for t in out:
        v = t["value"]["median"]
        if t.pop("failed"):
            t["verdict"] = "FAIL"
        else:
            t["verdict"] = "n/a" if v is None else ("PASS" if t["ok"](v) else "MISS")
        del t["ok"]
    return out


def rest(custody, torch):
    """Every custody benchmark with its PyTorch peer of the same case (when there is one)."""
    rows = []
    torch_by_case = {}
    for e in torch.values():
        if e["contender"] == TORCH:
            torch_by_case[e["case"]] = e
    for name in sorted(custody, key=_natural_key):
        c = custody[name]
        t = torch_by_case.get(c["case"])
        rows.append({"name": name, "custody": c, "torch": t,
                     "x_torch": _pair(c, t, _ratio)
                     if t and not c["error"] and c["repetitions"] and t["repetitions"]
                     else {"min": None, "median": None}})
    for name in sorted(torch, key=_natural_key):  # PyTorch's extra contenders (torch_clone)
        e = torch[name]
        if e["contender"] != TORCH:
            rows.append({"name": name, "custody": None, "torch": e,
                         "x_torch": {"min": None, "median": None}})
    return rows


def _natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def format_time(ns):
    if ns is None or (isinstance(ns, float) and math.isnan(ns)):
        return "—"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def format_ratio(r):
    return "—" if r is None else f"{r:.2f}"


def throughput(e):
    """'1.23 TB/s' or '45.6 TFLOP/s' at the median time, or ''."""
    if e is None or not e["median_ns"]:
        return ""
    if e.get("flop"):
        return f"{e['flop'] / e['median_ns'] / 1e3:.1f} TFLOP/s"
    if e.get("bytes"):
        return f"{e['bytes'] / e['median_ns']:.0f} GB/s"
    return ""


def failed_lines(custody):
    """`FAILED: <case>: <error_message>` for each custody case that reported an error."""
    out = []
    for name, error, errors, ran in failed_cases(custody):
        part = f" ({errors} of {errors + ran} repetitions)" if ran else ""
        out.append(f"FAILED: {name}: {error}{part}")
    return out


def render(custody, torch, torch_note=""):
    lines = []
    failed = failed_lines(custody)
    if failed:
        lines.append("== benchmark cases that reported an error (each FAILED) ==")
        lines.extend(failed)
        lines.append("")
    lines.append("== issue 11 GPU targets (judged on the median; min in brackets) ==")
    for t in targets(custody, torch):
        v = t["value"]
        if t["verdict"] in ("n/a", "FAIL"):
            lines.append(f"{t['target']}: {t['verdict']} (goal {t['goal']}) — {t['why']}")
        else:
            lines.append(f"{t['target']}: {v['median']:.2f}x [{format_ratio(v['min'])}x] "
                         f"(goal {t['goal']}) {t['verdict']}")
    if torch_note:
        lines.append(torch_note)
    lines.append("")
    lines.append("== every case: custody vs its PyTorch peer (x_torch = custody time / torch time) ==")
    header = (f"{'benchmark':44s} {'min':>10s} {'median':>10s} {'throughput':>14s} "
              f"{'torch median':>12s} {'torch tput':>14s} {'x_torch':>8s} {'x_torch_min':>11s}")
    lines.append(header)
    for r in rest(custody, torch):
        c, t = r["custody"], r["torch"]
        if c is not None and c["error"]:
            lines.append(f"{r['name']:44s} FAILED: {c['error']}")
            continue
        main = c if c is not None else t
        lines.append(
            f"{r['name']:44s} {format_time(main['min_ns']):>10s} {format_time(main['median_ns']):>10s} "
            f"{throughput(main):>14s} "
            f"{format_time(t['median_ns']) if (t and c is not None) else '':>12s} "
            f"{throughput(t) if (t and c is not None) else '':>14s} "
            f"{format_ratio(r['x_torch']['median']):>8s} {format_ratio(r['x_torch']['min']):>11s}")
    # PyTorch's own add / copy fraction, for reference.
    for size in SIZES:
        a, c = torch.get(f"add_{size}/{TORCH}"), torch.get(f"d2d_copy_{size}/{TORCH}")
        if a and c and a["median_ns"] and c["median_ns"] and a.get("bytes") and c.get("bytes"):
            frac = (a["bytes"] / a["median_ns"]) / (c["bytes"] / c["median_ns"])
            lines.append(f"(PyTorch's own add / copy_ bandwidth, {size}: {frac:.2f}x)")
    return "\n".join(lines) + "\n"


def _read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--custody", required=True, help="cuda_benchmark's Google Benchmark JSON")
    parser.add_argument("--torch", help="torch_peer.py's JSON (targets 2 and 3 need it)")
    parser.add_argument("--json", help="also write targets and rows here")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every target passes")
    parser.add_argument("--failed", action="store_true",
                        help="print only the cases that reported an error; exit 1 if there is one")
    args = parser.parse_args(argv)
    try:
        custody = load_gbench(_read_json(args.custody))
    except (OSError, ValueError, KeyError) as e:
        print(f"report: cannot read {args.custody}: {e}", file=sys.stderr)
        return 2
    if args.failed:
        for line in failed_lines(custody):
            print(line)
        return 1 if failed_cases(custody) else 0
    torch, note = {}, ""
    if args.torch:
        try:
            doc = _read_json(args.torch)
            torch = load_torch(doc)
            if doc.get("error"):
                note = f"(PyTorch side: {doc['error']})"
        except (OSError, ValueError, KeyError) as e:
            note = f"(PyTorch side unreadable: {args.torch}: {e})"
    else:
        note = "(no PyTorch results: --torch not given)"
    sys.stdout.write(render(custody, torch, note))
    result = targets(custody, torch)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"targets": result,
                       "failed": [{"name": n, "error": e, "errored_repetitions": k, "repetitions": r}
                                  for n, e, k, r in failed_cases(custody)],
                       "rows": [{"name": r["name"], "x_torch": r["x_torch"],
                                 "custody": r["custody"], "torch": r["torch"]}
                                for r in rest(custody, torch)]}, f, indent=1)
            f.write("\n")
    if failed_cases(custody):
        return 1
    if args.check and any(t["verdict"] != "PASS" for t in result):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
