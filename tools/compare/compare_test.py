#!/usr/bin/env python3
"""Smoke test of tools/compare: runs `compare --quick --all_backends` and checks
the JSON's shape and the values a reader relies on (never timing ratios):

  * every workload on every host backend, each with every policy but gc (in
    POLICIES order), the three gc runs and the libtorch peer, in that order;
  * step times present and positive, min <= median, one per step;
  * memory (exact byte counts, deterministic): the live-set lower bound is > 0
    and never above the peak; scope, dispose, manual and tensor_ptr stay within
    1.10x of it; gc with neither trigger nor collection grows far past them on
    the workloads whose temporaries the user code leaves to the collector
    (mlp, ops); nothing leaks under the deterministic policies and the counts
    of live tensors agree between them;
  * the same result under every policy (mlp's loss, llama's last token, ops'
    checksum) on a backend, and llama's token also across backends and libtorch;
  * gc counters: a collection per step when collecting every step, none of
    ours without trigger or collection;
  * lines of code counted for every policy; a PNG per workload and backend.

    compare_test.py --policies=tensor_ptr,dispose,scope,gc,manual --backends=onednn,aten path/to/compare
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

# Set from the command line (tools/compare/BUILD passes POLICIES and HOST_BACKENDS of
# tools/build_defs/flags.bzl): the deterministic policies, then gc's three runs.
POLICIES = []
GC_RUNS = ["gc:collect_every_step", "gc:trigger_8MiB", "gc:no_collection"]
CONTENDERS = []
WORKLOADS = ["mlp", "llama", "ops"]
BACKENDS = []
QUICK_STEPS = {"mlp": 20, "llama": 8, "ops": 10}


class CompareQuickTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        proc = subprocess.run([COMPARE, "--quick", "--all_backends", "--out=" + cls.out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        cls.stdout, cls.stderr = proc.stdout, proc.stderr
        if proc.returncode != 0:
            raise AssertionError("compare failed (%d):\n%s\n%s" % (proc.returncode, proc.stdout, proc.stderr))
        with open(os.path.join(cls.out, "compare.json"), encoding="utf-8") as f:
            cls.json = json.load(f)
        cls.results = {(r["workload"], r["backend"]): r for r in cls.json["results"]}

    def runs(self, workload, backend):
        return {c["name"]: c for c in self.results[(workload, backend)]["contenders"]}

    def test_every_workload_backend_and_contender(self):
        self.assertTrue(self.json["quick"])
        self.assertEqual(sorted(self.results), sorted((w, b) for w in WORKLOADS for b in BACKENDS))
        for r in self.json["results"]:
            self.assertEqual([c["name"] for c in r["contenders"]], CONTENDERS, r["workload"])
            self.assertEqual(r["steps"], QUICK_STEPS[r["workload"]])
            self.assertIn("== %s on %s" % (r["workload"], r["backend"]), self.stdout)

    def test_step_times(self):
        for r in self.json["results"]:
            for c in r["contenders"]:
                self.assertEqual(len(c["step_ms"]), r["steps"], c["name"])
                self.assertGreater(c["min_ms"], 0)
                self.assertLessEqual(c["min_ms"], c["median_ms"])
                self.assertIsNotNone(c["ratio_to_libtorch"])
            self.assertEqual(r["contenders"][-1]["ratio_to_libtorch"], 1)
            self.assertIsNone(r["contenders"][-1]["policy"])
            self.assertNotIn("peak_bytes", r["contenders"][-1], "no memory figures for libtorch")

    def test_memory_against_the_live_set_lower_bound(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            for name in POLICIES + GC_RUNS:
                c = runs[name]
                where = "%s/%s/%s" % (workload, backend, name)
                self.assertGreater(c["lower_bound_bytes"], 0, where)
                self.assertLessEqual(c["lower_bound_bytes"], c["peak_bytes"], where)
                self.assertEqual(len(c["step_peak_bytes"]), r["steps"], where)
            for name in POLICIES:
                c = runs[name]
                where = "%s/%s/%s" % (workload, backend, name)
                self.assertLessEqual(c["peak_bytes"], 1.10 * c["lower_bound_bytes"], where)
                self.assertEqual(c["leaked_bytes"], 0, where)
                self.assertEqual(c["leaked_tensors"], 0, where)
                self.assertEqual(c["live_tensors"], runs["manual"]["live_tensors"], where)
            if workload in ("mlp", "ops"):
                worst = max(runs[p]["peak_bytes"] for p in POLICIES)
                self.assertGreater(runs["gc:no_collection"]["peak_bytes"], 4 * worst, workload)
                self.assertGreater(runs["gc:no_collection"]["live_tensors"],
                                   runs["gc:collect_every_step"]["live_tensors"], workload)

    def test_gc_counters(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            self.assertEqual(runs["gc:collect_every_step"]["collections"], r["steps"])
            self.assertEqual(runs["gc:no_collection"]["collections"], 0)
            for name in POLICIES:
                self.assertEqual(runs[name]["collections"], 0)

    def test_same_result_under_every_policy(self):
        for (workload, backend), r in self.results.items():
            metrics = {c["name"]: c["metric"] for c in r["contenders"] if c["policy"]}
            self.assertEqual(len(set(metrics.values())), 1, "%s/%s: %s" % (workload, backend, metrics))
        tokens = {c["metric"] for b in BACKENDS for c in self.results[("llama", b)]["contenders"]}
        self.assertEqual(len(tokens), 1, "llama's last token on every backend and in libtorch")
        for b in BACKENDS:
            mlp = self.runs("mlp", b)
            self.assertAlmostEqual(mlp["manual"]["metric"], mlp["libtorch"]["metric"], places=4)

    def test_lines_of_code_and_plots(self):
        for r in self.json["results"]:
            for c in r["contenders"][:-1]:
                self.assertGreater(c["lines_of_code"], 5, c["name"])
            self.assertTrue(r["plot"].endswith("%s_%s_memory.png" % (r["workload"], r["backend"])))
            with open(r["plot"], "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    POLICIES[:] = [p for p in sys.argv.pop(1).split("=", 1)[1].split(",") if p != "gc"]
    BACKENDS[:] = sys.argv.pop(1).split("=", 1)[1].split(",")
    CONTENDERS[:] = POLICIES + GC_RUNS + ["libtorch"]
    COMPARE = sys.argv.pop(1)
    unittest.main()
