#!/usr/bin/env python3
"""torch_peer: PyTorch's own CUDA ops on the cases of //backends/cuda:cuda_benchmark, as JSON.

    python3 tools/gpu/torch_peer.py --out torch_peer.json [--reps 10] [--filter REGEX] [--quick]

Run on the GPU machine by tools/gpu/run.sh (needs `torch` with CUDA); tools/gpu/report.py compares the
result with the benchmark's JSON. Each case is measured as cuda_benchmark.cc measures custody, so the
ratios compare like with like:

  * throughput cases (add, copy, matmul, sum, softmax): after a warm-up, one repetition times batches of
    BATCH ops queued back to back between two torch.cuda.synchronize() calls (wall clock), for at least
    --min-time seconds; the repetition's time per op is the total over the ops;
  * add_1 (latency): one repetition times `c = a + b; del c; torch.cuda.synchronize()` in a loop for at
    least --min-time seconds; time per op as above;
  * --reps repetitions (default 10), min and median over them (and every repetition's time).

Cases (names as in the benchmark; the contender is `torch` unless said):

  add_16M, add_64M               torch.add(a, b) into a fresh result over 16M / 64M float32;
                                 bytes = 12 per element
  d2d_copy_16M, d2d_copy_64M     dst.copy_(src) (`torch` ) and src.clone() (`torch_clone`) over
                                 1.5 x 16M / 64M float32: the same 12 bytes per add element moved
  strided_copy_16M, _64M         dst.copy_(src.t()), the same elements: a [4096, m / 4096] result from
                                 the transpose of a contiguous [m / 4096, 4096] float32 tensor
  add_1                          1-element add, synchronized every op
  matmul/n=4096                  torch.matmul, float32, torch.backends.cuda.matmul.allow_tf32 = False
  sum/4096x4096                  x.sum()
  softmax/4096x4096,dim=1        torch.softmax(x, 1)

Output JSON: {"context": {...torch, CUDA, device...}, "benchmarks": [{"name", "case", "contender",
"op", "repetitions", "times_ns", "min_ns", "median_ns", "bytes", "flop", "batch"}, ...]}.
Exit status: 0; 1 when torch has no CUDA device (the JSON then has "error" and no benchmarks); 2 on
bad usage or when torch is not installed.
"""

import argparse
import json
import platform
import re
import statistics
import sys
import time

M = 1 << 20
N16 = 16 * M
N64 = 64 * M
MATMUL_N = 4096
ROWS = COLS = 4096
STRIDED_ROWS = 4096     # as kStridedRows in cuda_benchmark.cc

BATCH_ELEMENTWISE = 16  # as kBatchElementwise in cuda_benchmark.cc
BATCH_MATMUL = 4        # as kBatchMatmul


def _copy_elements_for_add(n):
    """Elements of a copy that moves the same bytes as an add over n float32 elements (12n)."""
    return n * 3 // 2


def _time_batches(torch, op, batch, min_time_s):
    """Seconds per op: batches of `batch` ops between synchronizations, for at least min_time_s."""
    ops = 0
    elapsed = 0
    while elapsed < min_time_s * 1e9 or ops == 0:
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            op()
        torch.cuda.synchronize()
        elapsed += time.perf_counter_ns() - t0
        ops += batch
    return elapsed / ops


def _time_latency(torch, op, min_time_s):
    """Seconds per (op + synchronize), looped for at least min_time_s."""
    ops = 0
    t0 = time.perf_counter_ns()
    elapsed = 0
    while elapsed < min_time_s * 1e9 or ops == 0:
        for _ in range(100):
            op()
            torch.cuda.synchronize()
        ops += 100
        elapsed = time.perf_counter_ns() - t0
    return elapsed / ops


def cases(torch):
    """(case, contender, op label, setup() -> (op, keep-alive), batch or None for latency, bytes, flop)."""
    dev = torch.device("cuda")

    def randn(*shape, seed=1):
        g = torch.Generator(device=dev)
        g.manual_seed(seed)
        return torch.randn(*shape, device=dev, dtype=torch.float32, generator=g)

    def add(n):
        def setup():
            a, b = randn(n, seed=1), randn(n, seed=2)

            def op():
                c = torch.add(a, b)
                del c
            return op, (a, b)
        return setup

    def copy_(n):
        def setup():
            m = _copy_elements_for_add(n)
            src, dst = randn(m), torch.empty(m, device=dev, dtype=torch.float32)

            def op():
                dst.copy_(src)
            return op, (src, dst)
        return setup

    def strided_copy(n):
        def setup():
            m = _copy_elements_for_add(n)
            src = randn(m // STRIDED_ROWS, STRIDED_ROWS)
            dst = torch.empty(STRIDED_ROWS, m // STRIDED_ROWS, device=dev, dtype=torch.float32)
            view = src.t()

            def op():
                dst.copy_(view)
            return op, (src, dst, view)
        return setup

    def clone(n):
        def setup():
            src = randn(_copy_elements_for_add(n))

            def op():
                c = src.clone()
                del c
            return op, (src,)
        return setup

    def add_1():
        a, b = randn(1, seed=1), randn(1, seed=2)

        def op():
            c = a + b
            del c
        return op, (a, b)

    def matmul():
        a, b = randn(MATMUL_N, MATMUL_N, seed=1), randn(MATMUL_N, MATMUL_N, seed=2)

        def op():
            c = torch.matmul(a, b)
            del c
        return op, (a, b)

    def total():
        x = randn(ROWS, COLS)

        def op():
            y = x.sum()
            del y
        return op, (x,)

    def softmax():
        x = randn(ROWS, COLS)

        def op():
            y = torch.softmax(x, 1)
            del y
        return op, (x,)

    out = []
    for label, n in (("16M", N16), ("64M", N64)):
        out.append((f"add_{label}", "torch", "torch.add(a, b)", add(n), BATCH_ELEMENTWISE, 12 * n, None))
        out.append((f"d2d_copy_{label}", "torch", "dst.copy_(src)", copy_(n), BATCH_ELEMENTWISE,
                    8 * _copy_elements_for_add(n), None))
        out.append((f"d2d_copy_{label}", "torch_clone", "src.clone()", clone(n), BATCH_ELEMENTWISE,
                    8 * _copy_elements_for_add(n), None))
        out.append((f"strided_copy_{label}", "torch", "dst.copy_(src.t())", strided_copy(n),
                    BATCH_ELEMENTWISE, 8 * _copy_elements_for_add(n), None))
    out.append(("add_1", "torch", "a + b; torch.cuda.synchronize()", add_1, None, None, None))
    out.append((f"matmul/n={MATMUL_N}", "torch", "torch.matmul(a, b)", matmul, BATCH_MATMUL, None,
                2.0 * MATMUL_N ** 3))
    out.append((f"sum/{ROWS}x{COLS}", "torch", "x.sum()", total, BATCH_ELEMENTWISE, 4 * ROWS * COLS,
                None))
    out.append((f"softmax/{ROWS}x{COLS},dim=1", "torch", "torch.softmax(x, 1)", softmax,
                BATCH_ELEMENTWISE, 8 * ROWS * COLS, None))
    return out


def context(torch):
    props = torch.cuda.get_device_properties(0)
    return {
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "python": platform.python_version(),
        "host": platform.node(),
        "device": props.name,
        "capability": f"{props.major}.{props.minor}",
        "device_memory_bytes": props.total_memory,
        "allow_tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def run(torch, reps, min_time_s, name_filter, log):
    results = []
    for case, contender, op_label, setup, batch, nbytes, flop in cases(torch):
        name = f"{case}/{contender}"
        if name_filter and not re.search(name_filter, name):
            continue
        op, keep = setup()
        # Warm-up: kernels loaded, cuBLAS heuristics chosen, the caching allocator holds the blocks.
        for _ in range(3):
            op()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            if batch is None:
                per_op = _time_latency(torch, op, min_time_s)
            else:
                per_op = _time_batches(torch, op, batch, min_time_s)
            times.append(per_op)
        del keep, op
        torch.cuda.empty_cache()
        row = {"name": name, "case": case, "contender": contender, "op": op_label,
               "repetitions": len(times), "times_ns": times, "min_ns": min(times),
               "median_ns": statistics.median(times), "bytes": nbytes, "flop": flop,
               "batch": batch}
        results.append(row)
        log(f"{name:40s} min {row['min_ns'] / 1e3:10.2f} us   median {row['median_ns'] / 1e3:10.2f} us")
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--reps", type=int, default=10, help="repetitions per case (default 10)")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds per repetition, at least (default 0.5)")
    parser.add_argument("--filter", default="", help="only cases whose case/contender matches")
    parser.add_argument("--quick", action="store_true", help="3 repetitions of 0.05 s (a smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.reps, args.min_time = 3, 0.05
    if args.reps < 1:
        parser.error("--reps must be at least 1")

    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        print(f"torch_peer: PyTorch is not installed: {e}", file=sys.stderr)
        return 2

    def log(line):
        print(line, file=sys.stderr, flush=True)

    doc = {"context": {"torch": torch.__version__}, "benchmarks": []}
    status = 0
    if not torch.cuda.is_available():
        doc["error"] = "no CUDA device found: torch.cuda.is_available() is false"
        log("torch_peer: " + doc["error"])
        status = 1
    else:
        torch.backends.cuda.matmul.allow_tf32 = False  # float32 matmul in float32, as custody's
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        torch.cuda.set_device(0)
        doc["context"] = context(torch)
        doc["benchmarks"] = run(torch, args.reps, args.min_time, args.filter, log)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
