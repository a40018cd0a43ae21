#!/usr/bin/env python3
"""Unit tests for report.py: names, min/median over repetitions, peer choice, ratios, table, JSON."""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def rows(name, times, unit="ns", counters=None, label=None):
    """Google Benchmark rows for one benchmark run with repetitions: iterations, then aggregates."""
    out = []
    for i, t in enumerate(times):
        row = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(times),
               "repetition_index": i, "threads": 1, "iterations": 1000, "real_time": t,
               "cpu_time": t * 2, "time_unit": unit}
        if label is not None:
            row["label"] = label
        row.update(counters or {})
        out.append(row)
    # Aggregates must be ignored (their real_time would spoil min and median if used).
    out.append({"name": name + "_mean", "run_name": name, "run_type": "aggregate",
                "aggregate_name": "mean", "real_time": 1e9, "cpu_time": 1e9, "time_unit": unit,
                "iterations": len(times)})
    return out


POLICY = {
    "context": {"executable": "policy_benchmark", "num_cpus": 2},
    "benchmarks": (
        rows("tiny_add/libtorch/real_time", [100, 90, 110, 95])
        + rows("tiny_add/tensor_ptr:onednn/real_time", [45, 50, 60, 55])
        + rows("tiny_add/gc:onednn:collect_every_1000/real_time", [200, 180, 190],
               counters={"collections": 0.001})
        + rows("scope_open_close/scope/real_time", [30, 20, 40])
        + [{"name": "tiny_add/manual:aten/real_time", "run_name": "tiny_add/manual:aten/real_time",
            "run_type": "iteration", "error_occurred": True, "error_message": "LifetimeError: boom",
            "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"}]
    ),
}

ONEDNN = {
    "context": {"executable": "onednn_benchmark"},
    "benchmarks": (
        # libtorch is slower than oneDNN direct here: the peer is onednn_direct.
        rows("matmul_2d/n=64/libtorch/real_time", [30, 20], unit="us")
        + rows("matmul_2d/n=64/onednn_direct/real_time", [10, 12], unit="us",
                 label="brg:avx512_core")
        + rows("matmul_2d/n=64/tensor_ptr:onednn/real_time", [40, 60], unit="us")
        # at n=256 libtorch wins.
        + rows("matmul_2d/n=256/libtorch/real_time", [1, 1], unit="ms")
        + rows("matmul_2d/n=256/onednn_direct/real_time", [2, 2], unit="ms")
        + rows("matmul_2d/n=256/tensor_ptr:onednn/real_time", [3, 5], unit="ms")
        + rows("add_16M/in_place/libtorch/real_time", [8, 8], unit="ms")
        + rows("add_16M/in_place/omp_loop/real_time", [4, 4], unit="ms")
        + rows("add_16M/in_place/tensor_ptr:onednn/real_time", [6, 10], unit="ms")
        + rows("add_16M/fresh/libtorch/real_time", [20, 22], unit="ms")
        + rows("add_16M/fresh/omp_loop/real_time", [4, 4], unit="ms")
        + rows("add_16M/fresh/dispose:onednn/real_time", [30, 44], unit="ms")
    ),
}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.paths = []
        for name, doc in (("policy_benchmark", POLICY), ("onednn_benchmark", ONEDNN)):
            path = os.path.join(self.dir.name, name + ".json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            self.paths.append(path)

    def by_name(self, result):
        return {b["name"]: b for b in result["benchmarks"]}

    def test_names(self):
        self.assertEqual(report.base_name("a/b:c/real_time"), "a/b:c")
        self.assertEqual(report.base_name("a/n=1/b/min_time:0.010/real_time"), "a/n=1/b")
        self.assertEqual(report.base_name("a/b/iterations:10/repeats:3/threads:2"), "a/b")
        self.assertEqual(report.split_name("matmul_2d/n=64/onednn_direct"),
                         ("matmul_2d/n=64", "onednn_direct"))
        self.assertEqual(report.split_name("lonely"), ("lonely", ""))

    def test_min_median_from_repetitions_only(self):
        b = self.by_name(report.merge(self.paths))
        t = b["tiny_add/tensor_ptr:onednn"]
        self.assertEqual(t["repetitions"], 4)
        self.assertEqual(t["min_ns"], 45)
        self.assertEqual(t["median_ns"], 52.5)
        self.assertEqual(t["binary"], "policy_benchmark")
        self.assertEqual(t["case"], "tiny_add")
        self.assertEqual(t["contender"], "tensor_ptr:onednn")
        # Units are converted to ns.
        self.assertEqual(b["matmul_2d/n=256/libtorch"]["min_ns"], 1e6)
        self.assertEqual(b["matmul_2d/n=64/onednn_direct"]["median_ns"], 11e3)
        self.assertEqual(b["matmul_2d/n=64/onednn_direct"]["label"], "brg:avx512_core")
        self.assertEqual(b["matmul_2d/n=64/libtorch"]["iterations"], [1000, 1000])

    def test_libtorch_is_the_default_peer(self):
        b = self.by_name(report.merge(self.paths))
        t = b["tiny_add/tensor_ptr:onednn"]
        self.assertEqual(t["peer"], "libtorch")
        self.assertAlmostEqual(t["ratio_min"], 45 / 90)
        self.assertAlmostEqual(t["ratio_median"], 52.5 / 97.5)
        self.assertEqual(b["tiny_add/libtorch"]["ratio_min"], 1.0)
        self.assertAlmostEqual(b["tiny_add/gc:onednn:collect_every_1000"]["ratio_min"], 2.0)
        self.assertEqual(b["tiny_add/gc:onednn:collect_every_1000"]["counters"],
                         {"collections": 0.001})
        # fresh 16M add: libtorch, although omp_loop is faster.
        self.assertEqual(b["add_16M/fresh/dispose:onednn"]["peer"], "libtorch")
        self.assertAlmostEqual(b["add_16M/fresh/dispose:onednn"]["ratio_median"], 37 / 21)

    def test_matmul_peer_is_the_faster_of_libtorch_and_onednn_direct(self):
        b = self.by_name(report.merge(self.paths))
        self.assertEqual(b["matmul_2d/n=64/tensor_ptr:onednn"]["peer"], "onednn_direct")
        self.assertAlmostEqual(b["matmul_2d/n=64/tensor_ptr:onednn"]["ratio_min"], 4.0)
        self.assertAlmostEqual(b["matmul_2d/n=64/libtorch"]["ratio_min"], 2.0)
        self.assertEqual(b["matmul_2d/n=256/tensor_ptr:onednn"]["peer"], "libtorch")
        self.assertAlmostEqual(b["matmul_2d/n=256/tensor_ptr:onednn"]["ratio_median"], 4.0)

    def test_in_place_add_peer_is_the_omp_loop(self):
        b = self.by_name(report.merge(self.paths))
        self.assertEqual(b["add_16M/in_place/tensor_ptr:onednn"]["peer"], "omp_loop")
        self.assertAlmostEqual(b["add_16M/in_place/tensor_ptr:onednn"]["ratio_min"], 1.5)
        self.assertAlmostEqual(b["add_16M/in_place/libtorch"]["ratio_median"], 2.0)

    def test_no_peer_and_errors(self):
        b = self.by_name(report.merge(self.paths))
        s = b["scope_open_close/scope"]
        self.assertIsNone(s["peer"])
        self.assertIsNone(s["ratio_min"])
        self.assertEqual(s["median_ns"], 30)
        e = b["tiny_add/manual:aten"]
        self.assertEqual(e["error"], "LifetimeError: boom")
        self.assertIsNone(e["min_ns"])
        self.assertIsNone(e["ratio_min"])

    def test_order_groups_by_binary_and_case_peer_first(self):
        names = [b["name"] for b in report.merge(self.paths)["benchmarks"]]
        self.assertLess(names.index("tiny_add/libtorch"), names.index("tiny_add/tensor_ptr:onednn"))
        self.assertLess(names.index("tiny_add/manual:aten"),
                        names.index("matmul_2d/n=64/libtorch"))  # policy_benchmark first
        self.assertLess(names.index("matmul_2d/n=64/tensor_ptr:onednn"),
                        names.index("matmul_2d/n=256/libtorch"))  # natural order: 64 < 256
        self.assertLess(names.index("matmul_2d/n=64/onednn_direct"),
                        names.index("matmul_2d/n=64/libtorch"))  # the peer leads its case

    def test_main_writes_json_and_prints_table(self):
        out = os.path.join(self.dir.name, "bench-results.json")
        md = os.path.join(self.dir.name, "table.md")
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(report.main(["--out", out, "--markdown", md] + self.paths), 0)
        table = buf.getvalue()
        self.assertTrue(table.startswith("| case | contender | min | median |"))
        self.assertIn("| tiny_add | libtorch (peer) | 90 ns | 97.5 ns | 1.00 | 1.00 |", table)
        self.assertIn("| tiny_add | tensor_ptr:onednn | 45 ns | 52.5 ns | 0.50 | 0.54 |", table)
        self.assertIn("| matmul_2d/n=64 | onednn_direct (peer) | 10 µs | 11 µs | 1.00 | 1.00 |", table)
        self.assertIn("| scope_open_close | scope | 20 ns | 30 ns | — | — |", table)
        self.assertIn("| tiny_add | manual:aten | error: LifetimeError: boom |", table)
        with open(md, encoding="utf-8") as f:
            self.assertEqual(f.read(), table)
        with open(out, encoding="utf-8") as f:
            merged = json.load(f)
        self.assertEqual(len(merged["benchmarks"]), 17)
        self.assertIn("policy_benchmark", merged["context"])
        first = merged["benchmarks"][0]
        for key in ("name", "case", "contender", "min_ns", "median_ns", "peer", "ratio_min",
                    "ratio_median", "repetitions"):
            self.assertIn(key, first)

    def test_bad_and_empty_input(self):
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("{not json")
        with redirect_stdout(io.StringIO()), _Quiet():
            self.assertEqual(report.main([bad]), 2)
        # A bad file next to good ones is skipped.
        with redirect_stdout(io.StringIO()), _Quiet():
            self.assertEqual(report.main([bad] + self.paths), 0)

    def test_time_format(self):
        self.assertEqual(report.format_time(12.345), "12.3 ns")
        self.assertEqual(report.format_time(1234.5), "1.23 µs")
        self.assertEqual(report.format_time(2.5e6), "2.5 ms")
        self.assertEqual(report.format_time(3.21e9), "3.21 s")
        self.assertEqual(report.format_time(None), "—")


class DocTest(unittest.TestCase):
    """--doc: the generated section of docs/benchmarks.md is replaced, the rest kept as it is."""

    def test_doc_section_replaced_and_dated(self):
        d = tempfile.mkdtemp()
        bench = os.path.join(d, "policy_benchmark.json")
        with open(bench, "w") as f:
            json.dump(dict(POLICY, context=dict(POLICY["context"], date="2026-12-02T01:02:03+00:00")), f)
        doc = os.path.join(d, "benchmarks.md")
        with open(doc, "w") as f:
            f.write("# Benchmarks\nprose\n" + report.DOC_BEGIN + "\nstale table\n" + report.DOC_END + "\nafter\n")
        with redirect_stdout(io.StringIO()):
            rc = report.main([bench, "--doc", doc, "--machine", "Test CPU", "--command", "REPS=4 run.sh"])
        self.assertEqual(rc, 0)
        with open(doc) as f:
            text = f.read()
        self.assertTrue(text.startswith("# Benchmarks\nprose\n" + report.DOC_BEGIN + "\n"), text)
        self.assertTrue(text.endswith(report.DOC_END + "\nafter\n"), text)
        self.assertNotIn("stale table", text)
        self.assertIn("## 2026-12-02: Test CPU, 2 CPUs", text)
        self.assertIn("`REPS=4 run.sh`; 3, 4 repetitions of each benchmark", text)
        self.assertIn("| tiny_add | tensor_ptr:onednn | 45 ns |", text)
        self.assertEqual(text.count(report.DOC_BEGIN), 1)

    def test_doc_without_markers_is_an_error(self):
        d = tempfile.mkdtemp()
        bench = os.path.join(d, "b.json")
        with open(bench, "w") as f:
            json.dump(POLICY, f)
        doc = os.path.join(d, "benchmarks.md")
        with open(doc, "w") as f:
            f.write("# no markers\n")
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            self.assertEqual(report.main([bench, "--doc", doc]), 2)
        with open(doc) as f:
            self.assertEqual(f.read(), "# no markers\n")


class _Quiet:
    """Silences stderr (report.py's 'skipping' notes) for a block."""

    def __enter__(self):
        self._old = sys.stderr
        sys.stderr = io.StringIO()

    def __exit__(self, *exc):
        sys.stderr = self._old
        return False


if __name__ == "__main__":
    unittest.main()
