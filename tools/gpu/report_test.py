#!/usr/bin/env python3
"""Unit tests for tools/gpu/report.py on synthetic JSON: parsing, the three targets, skips, output."""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def gb_rows(name, times, unit="us", counters=None):
    """Google Benchmark rows of one benchmark with repetitions (and the aggregates it adds)."""
    full = name + "/real_time"
    out = []
    for i, t in enumerate(times):
        row = {"name": full, "run_name": full, "run_type": "iteration", "repetitions": len(times),
               "repetition_index": i, "threads": 1, "iterations": 100, "real_time": t,
               "cpu_time": t / 3, "time_unit": unit}
        row.update(counters or {})
        out.append(row)
    out.append({"name": full + "_median", "run_name": full, "run_type": "aggregate",
                "aggregate_name": "median", "real_time": 1e9, "cpu_time": 1e9, "time_unit": unit,
                "iterations": len(times)})
    return out


def gb_error(name, message):
    full = name + "/real_time"
    return [{"name": full, "run_name": full, "run_type": "iteration", "error_occurred": True,
             "error_message": message, "iterations": 0, "real_time": 0, "cpu_time": 0,
             "time_unit": "us"}]


N16, N64 = 16 << 20, 64 << 20

CUSTODY = {
    "context": {"executable": "cuda_benchmark"},
    "benchmarks": (
        # add 16M: 100 us; copy of the same bytes: 90 us -> bandwidth fraction 0.9 (median).
        gb_rows("add_16M/scope:cuda", [100, 100, 110], counters={"bytes": 12.0 * N16})
        + gb_rows("d2d_copy_16M/cudaMemcpyAsync", [85, 90, 95], counters={"bytes": 12.0 * N16})
        + gb_rows("strided_copy_16M/scope:cuda", [190, 200, 210], counters={"bytes": 12.0 * N16})
        # add 64M: 400 us vs copy 320 us -> 0.8: a miss.
        + gb_rows("add_64M/scope:cuda", [400, 400], unit="us", counters={"bytes": 12.0 * N64})
        + gb_rows("d2d_copy_64M/cudaMemcpyAsync", [0.32, 0.32], unit="ms",
                  counters={"bytes": 12.0 * N64})
        + gb_rows("add_1/scope:cuda", [4000, 5000, 6000], unit="ns")
        + gb_rows("matmul/n=4096/scope:cuda", [2.2, 2.4], unit="ms",
                  counters={"flop": 2.0 * 4096 ** 3})
        + gb_rows("matmul/n=4096/cublas_direct", [2.1, 2.3], unit="ms",
                  counters={"flop": 2.0 * 4096 ** 3})
        + gb_rows("sum/4096x4096/scope:cuda", [30, 32], counters={"bytes": 4.0 * 4096 * 4096})
        + gb_error("softmax/4096x4096,dim=1/scope:cuda", "exception: DeviceError: boom")
    ),
}


def torch_row(case, contender, times_ns, nbytes=None, flop=None):
    return {"name": f"{case}/{contender}", "case": case, "contender": contender, "op": "x",
            "repetitions": len(times_ns), "times_ns": times_ns, "min_ns": min(times_ns),
            "median_ns": sorted(times_ns)[len(times_ns) // 2], "bytes": nbytes, "flop": flop,
            "batch": 16}


TORCH = {
    "context": {"torch": "2.5.0", "device": "NVIDIA H100"},
    "benchmarks": [
        torch_row("add_16M", "torch", [105e3, 110e3, 120e3], 12 * N16),
        torch_row("d2d_copy_16M", "torch", [90e3, 91e3, 92e3], 12 * N16),
        torch_row("d2d_copy_16M", "torch_clone", [95e3, 96e3, 97e3], 12 * N16),
        torch_row("strided_copy_16M", "torch", [150e3, 160e3, 170e3], 12 * N16),
        torch_row("add_1", "torch", [9e3, 10e3, 12e3]),
        torch_row("matmul/n=4096", "torch", [2.0e6, 2.1e6, 2.2e6], flop=2.0 * 4096 ** 3),
        torch_row("sum/4096x4096", "torch", [25e3, 31e3, 40e3], 4 * 4096 * 4096),
        torch_row("softmax/4096x4096,dim=1", "torch", [50e3, 55e3, 60e3], 8 * 4096 * 4096),
    ],
}

NO_DEVICE = {
    "context": {"executable": "cuda_benchmark"},
    "benchmarks": [row for name in ("add_16M/scope:cuda", "d2d_copy_16M/cudaMemcpyAsync",
                                    "add_1/scope:cuda", "matmul/n=4096/scope:cuda")
                   for row in gb_error(name, "no CUDA device found: no CUDA-capable device is detected")],
}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, doc):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path

    def test_gbench_parsing(self):
        c = report.load_gbench(CUSTODY)
        add = c["add_16M/scope:cuda"]
        self.assertEqual(add["case"], "add_16M")
        self.assertEqual(add["contender"], "scope:cuda")
        self.assertEqual(add["repetitions"], 3)  # the aggregate row is ignored
        self.assertEqual(add["min_ns"], 100e3)
        self.assertEqual(add["median_ns"], 100e3)
        self.assertEqual(add["bytes"], 12.0 * N16)
        self.assertEqual(c["d2d_copy_64M/cudaMemcpyAsync"]["median_ns"], 320e3)  # ms -> ns
        self.assertEqual(c["add_1/scope:cuda"]["median_ns"], 5000)
        s = c["softmax/4096x4096,dim=1/scope:cuda"]
        self.assertEqual(s["error"], "exception: DeviceError: boom")
        self.assertEqual(s["errors"], 1)
        self.assertEqual(s["repetitions"], 0)
        self.assertIsNone(s["median_ns"])

    def test_targets(self):
        results = report.targets(report.load_gbench(CUSTODY), report.load_torch(TORCH))
        self.assertEqual(len(results), 4)
        add16, add64, latency, matmul = results
        self.assertIn("16M", add16["target"])
        self.assertAlmostEqual(add16["value"]["median"], 0.9)
        self.assertAlmostEqual(add16["value"]["min"], 0.85)
        self.assertEqual(add16["verdict"], "PASS")
        self.assertAlmostEqual(add64["value"]["median"], 0.8)
        self.assertEqual(add64["verdict"], "MISS")
        self.assertAlmostEqual(latency["value"]["median"], 0.5)  # 5 us / 10 us
        self.assertAlmostEqual(latency["value"]["min"], 4 / 9)
        self.assertEqual(latency["verdict"], "PASS")  # <= 0.5 passes
        self.assertAlmostEqual(matmul["value"]["median"], 2.1 / 2.3)
        self.assertEqual(matmul["verdict"], "PASS")

    def test_bandwidth_uses_the_bytes_counters(self):
        # A copy that moves half the add's bytes in the same time has half its bandwidth.
        doc = {"benchmarks": gb_rows("add_16M/scope:cuda", [100], counters={"bytes": 12.0})
               + gb_rows("d2d_copy_16M/cudaMemcpyAsync", [100], counters={"bytes": 6.0})}
        add16 = report.targets(report.load_gbench(doc), {})[0]
        self.assertAlmostEqual(add16["value"]["median"], 2.0)

    def test_no_device_fails_never_passes(self):
        results = report.targets(report.load_gbench(NO_DEVICE), report.load_torch(TORCH))
        # add_64M was not measured at all (n/a); the others' custody cases reported an error (FAIL).
        self.assertEqual([r["verdict"] for r in results], ["FAIL", "n/a", "FAIL", "FAIL"])
        self.assertIn("add_16M/scope:cuda: no CUDA device found", results[0]["why"])
        self.assertIn("d2d_copy_64M/cudaMemcpyAsync: not measured", results[1]["why"])

    def test_a_case_with_an_errored_repetition_fails_whatever_the_others_measured(self):
        # Two good repetitions would make the 16M target PASS (0.9); the third reported an error.
        rows = (gb_rows("add_16M/scope:cuda", [100, 100], counters={"bytes": 12.0 * N16})
                + gb_error("add_16M/scope:cuda", "synchronize: DeviceError: illegal address")
                + gb_rows("d2d_copy_16M/cudaMemcpyAsync", [90, 90], counters={"bytes": 12.0 * N16}))
        custody = report.load_gbench({"benchmarks": rows})
        self.assertEqual(report.failed_cases(custody),
                         [("add_16M/scope:cuda", "synchronize: DeviceError: illegal address", 1, 2)])
        add16 = report.targets(custody, {})[0]
        self.assertEqual(add16["verdict"], "FAIL")
        self.assertIn("add_16M/scope:cuda: synchronize: DeviceError: illegal address", add16["why"])
        text = report.render(custody, {})
        self.assertIn("FAILED: add_16M/scope:cuda: synchronize: DeviceError: illegal address "
                      "(1 of 3 repetitions)", text)
        self.assertIn("add bandwidth / D2D copy bandwidth, 16M float32: FAIL (goal >= 0.85) — "
                      "add_16M/scope:cuda: synchronize: DeviceError: illegal address", text)
        self.assertNotIn("PASS", text)
        path = self.write("errored.json", {"benchmarks": rows})
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(report.main(["--custody", path]), 1)
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(report.main(["--custody", path, "--failed"]), 1)
        self.assertEqual(buf.getvalue(), "FAILED: add_16M/scope:cuda: synchronize: DeviceError: "
                                         "illegal address (1 of 3 repetitions)\n")

    def test_failed_is_quiet_and_zero_when_no_case_errored(self):
        path = self.write("clean.json", {"benchmarks": gb_rows("add_1/scope:cuda", [5, 6])})
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(report.main(["--custody", path, "--failed"]), 0)
        self.assertEqual(buf.getvalue(), "")
        with redirect_stdout(io.StringIO()):
            self.assertEqual(report.main(["--custody", path]), 0)

    def test_without_torch_targets_2_and_3_are_na(self):
        results = report.targets(report.load_gbench(CUSTODY), {})
        self.assertEqual([r["verdict"] for r in results], ["PASS", "MISS", "n/a", "n/a"])
        self.assertIn("add_1/torch: not measured", results[2]["why"])

    def test_rest_pairs_cases_with_torch(self):
        rows = {r["name"]: r for r in report.rest(report.load_gbench(CUSTODY),
                                                  report.load_torch(TORCH))}
        self.assertAlmostEqual(rows["sum/4096x4096/scope:cuda"]["x_torch"]["median"], 31 / 31)
        self.assertAlmostEqual(rows["sum/4096x4096/scope:cuda"]["x_torch"]["min"], 30 / 25)
        self.assertAlmostEqual(rows["add_16M/scope:cuda"]["x_torch"]["median"], 100 / 110)
        # cudaMemcpyAsync is compared with torch's copy_ of the same case.
        self.assertAlmostEqual(rows["d2d_copy_16M/cudaMemcpyAsync"]["x_torch"]["median"], 90 / 91)
        # custody's strided copy kernel with torch's copy_ of the same transpose.
        self.assertAlmostEqual(rows["strided_copy_16M/scope:cuda"]["x_torch"]["median"], 200 / 160)
        self.assertIsNone(rows["softmax/4096x4096,dim=1/scope:cuda"]["x_torch"]["median"])
        self.assertIn("d2d_copy_16M/torch_clone", rows)

    def test_main_prints_targets_and_table(self):
        custody = self.write("cuda_benchmark.json", CUSTODY)
        torch = self.write("torch_peer.json", TORCH)
        out_json = os.path.join(self.dir.name, "report.json")
        buf = io.StringIO()
        with redirect_stdout(buf):
            # 1: the softmax case reported an error.
            self.assertEqual(report.main(["--custody", custody, "--torch", torch,
                                          "--json", out_json]), 1)
        text = buf.getvalue()
        self.assertTrue(text.startswith("== benchmark cases that reported an error (each FAILED) ==\n"
                                        "FAILED: softmax/4096x4096,dim=1/scope:cuda: exception: "
                                        "DeviceError: boom\n"), text)
        self.assertIn("add bandwidth / D2D copy bandwidth, 16M float32: 0.90x [0.85x] (goal >= 0.85) "
                      "PASS", text)
        self.assertIn("add bandwidth / D2D copy bandwidth, 64M float32: 0.80x [0.80x] (goal >= 0.85) "
                      "MISS", text)
        self.assertIn("1-element add latency vs PyTorch eager (custody time / torch time): 0.50x "
                      "[0.44x] (goal <= 0.5) PASS", text)
        self.assertIn("softmax/4096x4096,dim=1/scope:cuda", text)
        self.assertIn("FAILED: exception: DeviceError: boom", text)
        self.assertIn("TFLOP/s", text)
        self.assertIn("(PyTorch's own add / copy_ bandwidth, 16M: 0.83x)", text)
        with open(out_json, encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual([t["verdict"] for t in doc["targets"]], ["PASS", "MISS", "PASS", "PASS"])
        self.assertEqual(doc["failed"], [{"name": "softmax/4096x4096,dim=1/scope:cuda",
                                          "error": "exception: DeviceError: boom",
                                          "errored_repetitions": 1, "repetitions": 0}])
        with redirect_stdout(io.StringIO()):
            self.assertEqual(report.main(["--custody", custody, "--torch", torch, "--check"]), 1)

    def test_no_device_run_and_bad_input(self):
        custody = self.write("cuda_benchmark.json", NO_DEVICE)
        torch = self.write("torch_peer.json", {"context": {}, "benchmarks": [],
                                               "error": "no CUDA device found: torch says so"})
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(report.main(["--custody", custody, "--torch", torch]), 1)
        text = buf.getvalue()
        self.assertIn("FAILED: add_16M/scope:cuda: no CUDA device found", text)
        self.assertIn("FAIL (goal >= 0.85) — add_16M/scope:cuda: no CUDA device found", text)
        self.assertIn("(PyTorch side: no CUDA device found: torch says so)", text)
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("{not json")
        old = sys.stderr
        sys.stderr = io.StringIO()
        try:
            with redirect_stdout(io.StringIO()):
                self.assertEqual(report.main(["--custody", bad]), 2)
                # An unreadable torch file is reported, not fatal.
                clean = self.write("clean.json", {"benchmarks": gb_rows("add_1/scope:cuda", [5])})
                self.assertEqual(report.main(["--custody", clean, "--torch", bad]), 0)
        finally:
            sys.stderr = old

    def test_names(self):
        self.assertEqual(report.base_name("add_1/scope:cuda/real_time"), "add_1/scope:cuda")
        self.assertEqual(report.base_name("matmul/n=4096/scope:cuda/min_time:0.500/real_time"),
                         "matmul/n=4096/scope:cuda")
        self.assertEqual(report.split_name("matmul/n=4096/scope:cuda"), ("matmul/n=4096", "scope:cuda"))


if __name__ == "__main__":
    unittest.main()
