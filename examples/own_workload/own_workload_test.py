#!/usr/bin/env python3
"""examples/own_workload: `tiny_compare --quick --all_backends` runs the tiny
workload (tiny.h, one generic body) under every policy, gc three times, on
every host backend, and the same body as plain libtorch (the peer), and
every run trains the same model:

  * the contenders are every policy (gc's three modes), then libtorch;
  * the loss after the last step is the same under every policy on a backend
    (bit for bit: the same kernels in the same order), and across backends
    and in plain libtorch within float32 rounding; and it went down;
  * nothing leaks under the deterministic policies, and their live set is
    what the workload must hold (parameters, a batch, its activations);
  * the dispose override (dispose.h: each temporary disposed after its last
    use) holds less memory past its last use than the generic step-end
    idiom of manual.

    own_workload_test.py --policies=... --backends=... path/to/tiny_compare
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

POLICIES = []
BACKENDS = []
GC_RUNS = ["gc:collect_every_step", "gc:trigger_8MiB", "gc:no_collection"]
TINY = None


class OwnWorkloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        proc = subprocess.run([TINY, "--quick", "--all_backends", "--out=" + cls.out], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, check=False)
        if proc.returncode != 0:
            raise AssertionError("tiny_compare failed (%d):\n%s\n%s" % (proc.returncode, proc.stdout, proc.stderr))
        cls.stdout = proc.stdout
        with open(os.path.join(cls.out, "compare.json"), encoding="utf-8") as f:
            cls.results = {r["backend"]: r for r in json.load(f)["results"]}

    def test_every_policy_on_every_backend(self):
        self.assertEqual(sorted(self.results), sorted(BACKENDS))
        for backend, r in self.results.items():
            self.assertEqual(r["workload"], "tiny")
            self.assertEqual(r["steps"], 20)
            names = [c["name"] for c in r["contenders"]]
            self.assertEqual(names, [p for p in POLICIES if p != "gc"] + GC_RUNS + ["libtorch"], backend)
            self.assertEqual(r["contenders"][-1]["ratio_to_libtorch"], 1)

    def test_same_training_under_every_policy(self):
        losses = {}
        for backend, r in self.results.items():
            metrics = {c["name"]: c["metric"] for c in r["contenders"] if c["policy"]}
            self.assertEqual(len(set(metrics.values())), 1, "%s: %s" % (backend, metrics))
            losses[backend] = next(iter(metrics.values()))
            losses["libtorch (%s run)" % backend] = r["contenders"][-1]["metric"]
        values = list(losses.values())
        for v in values:
            self.assertAlmostEqual(v, values[0], delta=1e-4 * abs(values[0]) + 1e-6, msg=str(losses))
        # The first step's loss is mean(y²) ~ 16 * 256 / 256 ~ 1; after 20 steps it is far lower.
        self.assertLess(values[0], 0.5, losses)

    def test_nothing_leaks_and_the_live_set_is_the_workloads(self):
        f32 = 4
        params = 256 * 16 + 16
        # Fullest in the backward: x [64, 256], y, err, dpred [64, 16]... at least params and one batch.
        for backend, r in self.results.items():
            for c in r["contenders"][:-1]:
                where = "%s/%s" % (backend, c["name"])
                self.assertGreaterEqual(c["lower_bound_bytes"], f32 * (params + 64 * 256), where)
                self.assertLessEqual(c["lower_bound_bytes"], c["peak_bytes"], where)
                if c["policy"] != "gc":
                    self.assertEqual(c["leaked_bytes"], 0, where)
                    self.assertEqual(c["leaked_tensors"], 0, where)
                if c["policy"] not in ("gc", "dispose"):  # the generic body: the same allocations
                    self.assertEqual(c["lower_bound_bytes"], r["contenders"][0]["lower_bound_bytes"], where)

    def test_the_dispose_override_is_in_place(self):
        for backend, r in self.results.items():
            runs = {c["name"]: c for c in r["contenders"]}
            careful = runs["dispose"]["held_dead"]["share"]
            step_end = runs["manual"]["held_dead"]["share"]
            self.assertLess(careful, 0.5 * step_end, "%s: dispose %.3f, manual %.3f" % (backend, careful, step_end))
            self.assertLess(runs["dispose"]["peak_bytes"], runs["manual"]["peak_bytes"], backend)


if __name__ == "__main__":
    POLICIES[:] = sys.argv.pop(1).split("=", 1)[1].split(",")
    BACKENDS[:] = sys.argv.pop(1).split("=", 1)[1].split(",")
    TINY = sys.argv.pop(1)
    unittest.main()
