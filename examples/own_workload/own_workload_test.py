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
    idiom of manual;
  * tiny_autograd (tiny_autograd.h: the same body with the gradient by
    loss.backward() and w.grad()) trains as tiny does, under every policy and
    on libtorch's autograd, and leaves nothing behind: no tensor, and so no
    graph, under the deterministic policies.

    own_workload_test.py --policies=... --backends=... path/to/tiny_compare path/to/tiny_autograd_compare
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
TINY_AUTOGRAD = None


_RUNS = {}


def run_compare(binary):
    """(stdout, {backend: result}) of `binary --quick --all_backends`, run once per binary."""
    if binary not in _RUNS:
        _RUNS[binary] = _run_compare(binary, tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))
    return _RUNS[binary]


def _run_compare(binary, out):
    proc = subprocess.run([binary, "--quick", "--all_backends", "--out=" + out], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (binary, proc.returncode, proc.stdout, proc.stderr))
    with open(os.path.join(out, "compare.json"), encoding="utf-8") as f:
        return proc.stdout, {r["backend"]: r for r in json.load(f)["results"]}


def final_losses(results):
    """{backend: the loss every policy reached}, {backend: libtorch's}; asserts the policies agree."""
    policies, peers = {}, {}
    for backend, r in results.items():
        metrics = {c["name"]: c["metric"] for c in r["contenders"] if c["policy"]}
        if len(set(metrics.values())) != 1:
            raise AssertionError("%s: the policies disagree: %s" % (backend, metrics))
        policies[backend] = next(iter(metrics.values()))
        peers[backend] = r["contenders"][-1]["metric"]
    return policies, peers


class OwnWorkloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stdout, cls.results = run_compare(TINY)

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


class AutogradWorkloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        _, cls.hand = run_compare(TINY)
        _, cls.results = run_compare(TINY_AUTOGRAD)

    def test_every_policy_and_libtorchs_autograd(self):
        self.assertEqual(sorted(self.results), sorted(BACKENDS))
        for backend, r in self.results.items():
            self.assertEqual(r["workload"], "tiny_autograd")
            names = [c["name"] for c in r["contenders"]]
            self.assertEqual(names, [p for p in POLICIES if p != "gc"] + GC_RUNS + ["libtorch"], backend)

    def test_trains_as_the_hand_written_gradient_does(self):
        by_tape, tape_peers = final_losses(self.results)
        by_hand, hand_peers = final_losses(self.hand)
        for backend in BACKENDS:
            for what, got, want in (("policies", by_tape[backend], by_hand[backend]),
                                    ("libtorch", tape_peers[backend], hand_peers[backend])):
                self.assertAlmostEqual(got, want, delta=1e-4 * abs(want) + 1e-6,
                                       msg="%s %s: autograd %r, by hand %r" % (backend, what, got, want))
        self.assertLess(by_tape[BACKENDS[0]], 0.5)

    def test_nothing_is_left(self):
        for backend, r in self.results.items():
            for c in r["contenders"][:-1]:
                where = "%s/%s" % (backend, c["name"])
                self.assertLessEqual(c["lower_bound_bytes"], c["peak_bytes"], where)
                if c["policy"] != "gc":
                    self.assertEqual(c["leaked_bytes"], 0, where)
                    self.assertEqual(c["leaked_tensors"], 0, where)


if __name__ == "__main__":
    POLICIES[:] = sys.argv.pop(1).split("=", 1)[1].split(",")
    BACKENDS[:] = sys.argv.pop(1).split("=", 1)[1].split(",")
    TINY = sys.argv.pop(1)
    TINY_AUTOGRAD = sys.argv.pop(1)
    unittest.main()
