#!/usr/bin/env python3
"""Smoke test of tools/compare: runs `compare --quick --all_backends` and checks
the JSON's shape and the values a reader relies on (never timing ratios):

  * every workload on every host backend, each with every policy that does not
    collect (in the list's order), the three runs of each policy that does
    ("<policy>:<mode>", PolicyIdiom::kCollects: the tool's --list_contenders
    says which) and the libtorch peer, in that order;
  * step times present and positive, one per step, summarized by their own min and median;
  * memory (exact byte counts, deterministic): the live set each workload must
    hold at its fullest moment, computed here from the sizes it reports
    ("shapes") and what its step keeps alive (expected_live_set), is exactly
    the lower bound the tool derives from its history under every deterministic
    policy, and their peaks stay within 1.10x of it (llama: within one logits
    vector) — so an extra allocation, used or not, shows; the bound is never
    above the peak; a collecting policy with neither trigger nor collection grows far past them on
    the workloads whose temporaries the user code leaves to the collector
    (mlp, ops); nothing leaks under the deterministic policies and the counts
    of live tensors agree between them;
  * the same result under every policy (mlp's loss, llama's last token, ops'
    checksum, serve's answers) on a backend, and llama's token also across
    backends and libtorch;
  * serve (2 workers in a quick run): a server's figures for every contender,
    and exactly two frees on another thread per request under the
    deterministic policies (the input on its worker, the output on the
    responder); its live set between the parameters and what a correct server
    can hold at once (every request of a wave queued);
  * collector counters: a collection per step when collecting every step, none of
    ours without trigger or collection;
  * lines of code counted for every policy; a PNG per workload and backend;
  * categories: what is alive at the peak adds up to the peak by category,
    and mlp's parameters there are exactly its shapes' bytes;
  * under a collecting policy, the memory held dead splits into garbage awaiting
    a collection (at most) and what the program held; no other policy awaits a
    collection;
  * report.html, self-contained, opened in headless Chromium: no errors,
    every chart drawn, the peaks' hover data there, verdicts that name the
    contenders the numbers say.

    compare_test.py --policies=P1,P2,... --backends=B1,B2,... path/to/compare
"""

import glob
import html
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

from custody.report import headless

# Set from the command line (tools/compare/BUILD passes ALL_POLICIES and ALL_HOST_BACKENDS of
# tools/build_defs/flags.bzl) and the tool's --list_contenders: the policies that do not collect,
# then the runs of those that do ("<policy>:<mode>").
POLICIES = []
COLLECTING = []
COLLECTING_RUNS = []
HYBRID = ["hybrid:gc_params+scope"]  # llama only: gc parameters, scoped activations
CONTENDERS = []
# The dead aliases a collector's conservative stack scan may keep past a collection (Note [Garbage
# the scan keeps], tests/fuzz/lifetime_gc_fuzz_test.cc: at most 3 in one collection).
KEPT_BY_THE_SCAN = 3
WORKLOADS = ["mlp", "llama", "ops", "serve"]
BACKENDS = []
QUICK_STEPS = {"mlp": 20, "llama": 8, "ops": 10, "serve": 20}


F32 = 4  # bytes per float


def serve_ceiling(s):
    """... and at most every input and output of a wave queued, and each worker's
    hidden activation (twice: before and after the ReLU) and logits at once."""
    b, f, h, k, r, w = s["batch"], s["features"], s["hidden"], s["classes"], s["requests_per_step"], s["workers"]
    params = h * f + h + k * h + k
    return F32 * (params + r * (b * f + b * k) + w * (2 * b * h + 2 * b * k))


def title(r):
    """The table's and the report's name of a result: "serve (2 workers)"."""
    return "%s (%s)" % (r["workload"], r["variant"]) if r["variant"] else r["workload"]


def expected_live_set(workload, s):
    """Bytes a workload must hold at its fullest moment, from its shapes alone
    (the step code of workloads/<name>/ and the models they use). The history's
    live-set lower bound must equal it under every policy that frees
    deterministically; a change of a workload's step changes it here too."""
    if workload == "mlp":
        # Parameters: fc1 [hidden, features] + [hidden], fc2 [classes, hidden] + [classes].
        params = s["hidden"] * s["features"] + s["hidden"] + s["classes"] * s["hidden"] + s["classes"]
        # Fullest when the ReLU mask is made: the input batch [batch, features], the
        # pre-activation h and the activation a [batch, hidden], the bool mask
        # [batch, hidden] (1 byte each), and the previous step's loss (one float).
        return (F32 * (params + s["batch"] * s["features"] + 2 * s["batch"] * s["hidden"] + 1)
                + s["batch"] * s["hidden"])
    if workload == "llama":
        d, hd, layers, v = s["dim"], s["hidden_dim"], s["n_layers"], s["vocab_size"]
        kv = d // s["n_heads"] * s["n_kv_heads"]
        half = d // s["n_heads"] // 2
        per_layer = 2 * d + 2 * d * d + 2 * d * kv + 3 * d * hd  # 2 norms, wq wo, wk wv, w1 w2 w3
        weights = v * d + layers * per_layer + d + (0 if s["shared_classifier"] else v * d)
        kv_cache = 2 * layers * s["seq_len"] * kv
        rope = 2 * s["seq_len"] * half  # cos and sin tables
        # Fullest when the logits [vocab] are made from the final activation [dim].
        return F32 * (weights + kv_cache + rope + v + d)
    if workload == "ops":
        r, c = s["rows"], s["cols"]
        # The state [rows, cols] and w [cols, cols]; fullest at z = e / e.mean(1): e and z
        # [rows/2, cols], the mean [rows/2]; and the one-element accumulator.
        return F32 * (r * c + c * c + 2 * (r // 2) * c + r // 2 + 1)
    if workload == "serve":
        # Threads make it depend on the schedule: at least the parameters and one request
        # (its input, hidden activation and output) ...
        b, f, h, k = s["batch"], s["features"], s["hidden"], s["classes"]
        params = h * f + h + k * h + k
        return F32 * (params + b * f + b * h + b * k)
    raise AssertionError("no expected live set for workload " + workload)


class CompareQuickTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        proc = subprocess.run([COMPARE, "--quick", "--all_backends", "--snapshots", "--out=" + cls.out],
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
            expected = CONTENDERS[:-1] + (HYBRID if r["workload"] == "llama" else []) + CONTENDERS[-1:]
            self.assertEqual([c["name"] for c in r["contenders"]], expected, r["workload"])
            self.assertEqual(r["steps"], QUICK_STEPS[r["workload"]])
            self.assertIn("== %s on %s" % (title(r), r["backend"]), self.stdout)
            self.assertEqual(r["variant"], "2 workers" if r["workload"] == "serve" else "")

    def test_step_times(self):
        for r in self.json["results"]:
            for c in r["contenders"]:
                self.assertEqual(len(c["step_ms"]), r["steps"], c["name"])
                self.assertGreater(c["min_ms"], 0)
                # The summary is the steps' own min and median (the table and ratios use them).
                self.assertAlmostEqual(c["min_ms"], min(c["step_ms"]), delta=1e-4 * c["min_ms"])  # JSON keeps ~6 digits
                self.assertAlmostEqual(c["median_ms"], statistics.median(c["step_ms"]),
                                       delta=1e-4 * c["median_ms"])
                self.assertIsNotNone(c["ratio_to_libtorch"])
            self.assertEqual(r["contenders"][-1]["ratio_to_libtorch"], 1)
            self.assertIsNone(r["contenders"][-1]["policy"])
            self.assertNotIn("peak_bytes", r["contenders"][-1], "no memory figures for libtorch")

    def test_memory_against_the_live_set_lower_bound(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            for name in POLICIES + COLLECTING_RUNS:
                c = runs[name]
                where = "%s/%s/%s" % (workload, backend, name)
                self.assertGreater(c["lower_bound_bytes"], 0, where)
                self.assertLessEqual(c["lower_bound_bytes"], c["peak_bytes"], where)
                self.assertEqual(len(c["step_peak_bytes"]), r["steps"], where)
            expected = expected_live_set(workload, r["shapes"])
            # The hybrid shares one set of parameters and cache between its two regimes: the same live set.
            for name in POLICIES + (HYBRID if workload == "llama" else []):
                c = runs[name]
                where = "%s/%s/%s" % (workload, backend, name)
                if workload == "serve":
                    self.assertGreaterEqual(c["lower_bound_bytes"], expected, where)
                    self.assertLessEqual(c["peak_bytes"], serve_ceiling(r["shapes"]), where)
                else:
                    self.assertEqual(c["lower_bound_bytes"], expected,
                                     where + ": the history's live set differs from the shapes' (%+d bytes)" %
                                     (c["lower_bound_bytes"] - expected))
                if workload == "serve":
                    pass
                elif workload == "llama":  # ~100 MB of weights: 10 % would hide a leak of MBs
                    self.assertLessEqual(c["peak_bytes"], expected + F32 * r["shapes"]["vocab_size"], where)
                else:
                    self.assertLessEqual(c["peak_bytes"], 1.10 * expected, where)
                self.assertEqual(c["leaked_bytes"], 0, where)
                self.assertEqual(c["leaked_tensors"], 0, where)
                self.assertEqual(c["live_tensors"], runs[POLICIES[0]]["live_tensors"], where)
            if workload in ("mlp", "ops"):
                worst = max(runs[p]["peak_bytes"] for p in POLICIES)
                for p in COLLECTING:
                    where = "%s/%s" % (workload, p)
                    self.assertGreater(runs[p + ":no_collection"]["peak_bytes"], 4 * worst, where)
                    # A collector may start a collection of its own (libgc: its heap grew) in the last
                    # step: then the garbage is gone by the count, so only "not fewer".
                    self.assertGreaterEqual(runs[p + ":no_collection"]["live_tensors"],
                                            runs[p + ":collect_every_step"]["live_tensors"], where)

    def test_held_dead_by_site(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            for name in POLICIES + COLLECTING_RUNS:
                h = runs[name]["held_dead"]
                where = "%s/%s/%s" % (workload, backend, name)
                # The totals reconcile: byte-time held minus the bound's schedule is the time held dead.
                self.assertAlmostEqual(h["byte_steps"] - h["bound_byte_steps"], h["held_dead_byte_steps"],
                                       delta=1e-4 * h["byte_steps"], msg=where)
                self.assertAlmostEqual(h["share"], h["held_dead_byte_steps"] / h["byte_steps"], delta=1e-4,
                                       msg=where)
                self.assertTrue(h["sites"], where)
                held = [s["held_dead_byte_steps"] for s in h["sites"]]
                self.assertEqual(held, sorted(held, reverse=True), where + ": sites most held dead first")
                self.assertLessEqual(sum(held), h["held_dead_byte_steps"] * (1 + 1e-4), where)
                for s in h["sites"]:
                    # Folded to the workload's own code (Note [Folding sites]), at its file:line, with
                    # its stack and the ops that allocated there. serve serves mlp's model.
                    self.assertRegex(s["frame"], r"^workloads/(%s)/[\w/]+\.(?:h|cc):\d+ custody::workloads::(%s)::" % (
                        ("serve|mlp",) * 2 if workload == "serve" else (workload,) * 2), where)
                    self.assertIn(s["frame"].split(" ")[0], s["stack"], where)
                    self.assertTrue(s["ops"], where + ": " + s["frame"])
                    if s["held_dead_byte_steps"] > 0:
                        self.assertTrue(s["held_by"], where + ": " + s["frame"])
                # What held it: the holders share out the dead byte-time (Note [Held by]).
                shares = [b["held_dead_byte_steps"] for b in h["held_by"]]
                self.assertEqual(shares, sorted(shares, reverse=True), where)
                self.assertAlmostEqual(sum(shares), h["held_dead_byte_steps"],
                                       delta=1e-4 * max(1, h["held_dead_byte_steps"]), msg=where)
                if name == "scope" and workload == "mlp":
                    # The step's dispose scope, named by the line that opened it.
                    self.assertTrue(any(re.match(r"the dispose scope (it was moved into )?opened at "
                                                 r"workloads/mlp/scope\.h:\d+$", b["holder"])
                                        for b in h["held_by"]), where)
                if name in COLLECTING_RUNS and h["awaiting_collection_byte_steps"] > 0:
                    self.assertIn("garbage awaiting a collection", [b["holder"] for b in h["held_by"]], where)
            if workload in ("mlp", "ops"):
                careful = max(runs[p]["held_dead"]["share"] for p in POLICIES)
                # scope keeps temporaries to the end of their scope: 9 % on mlp, the others under 4 %.
                self.assertLess(careful, 0.12, workload + ": the careful idioms hold little dead")
                for p in COLLECTING:
                    self.assertGreater(runs[p + ":no_collection"]["held_dead"]["share"], 0.5, workload + "/" + p)

    def test_categories(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            for name in POLICIES + COLLECTING_RUNS:
                h = runs[name]["held_dead"]
                where = "%s/%s/%s" % (workload, backend, name)
                self.assertEqual(sum(h["peak_by_category"].values()), h["peak_bytes"], where)
                self.assertLessEqual(sum(h["dead_at_peak_by_category"].values()), h["dead_at_peak_bytes"], where)
                self.assertAlmostEqual(sum(h["held_dead_by_category"].values()), h["held_dead_byte_steps"],
                                       delta=1e-4 * max(1, h["held_dead_byte_steps"]), msg=where)
                self.assertGreater(h["peak_by_category"]["parameter"], 0, where)
                if workload == "mlp":
                    s = r["shapes"]
                    params = s["hidden"] * s["features"] + s["hidden"] + s["classes"] * s["hidden"] + s["classes"]
                    self.assertEqual(h["peak_by_category"]["parameter"], F32 * params, where)
                    self.assertGreater(h["peak_by_category"]["input"], 0, where)
                    self.assertEqual(h["peak_by_category"]["unknown"], 0, where)
                    cats = {site["category"] for site in h["sites"]}
                    self.assertTrue({"activation", "parameter"} <= cats, "%s: %s" % (where, cats))

    def test_garbage_awaiting_collection(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            for name in POLICIES + COLLECTING_RUNS:
                h = runs[name]["held_dead"]
                where = "%s/%s/%s" % (workload, backend, name)
                self.assertLessEqual(h["awaiting_collection_byte_steps"], h["held_dead_byte_steps"] * (1 + 1e-4),
                                     where)
                # The history also sees the collections of finish(), after the counters were read.
                self.assertGreaterEqual(h["collections"], runs[name]["collections"], where)
                if name in POLICIES:
                    self.assertEqual(h["collections"], 0, where)
                if name in POLICIES:  # nothing is the collector's
                    self.assertEqual(h["awaiting_collection_byte_steps"], 0, where)
            if workload in ("mlp", "ops"):
                # The steps' temporaries are left to the collector: found at the step's end, or by
                # finish()'s collection under no_collection: mostly garbage awaiting it.
                for name in COLLECTING_RUNS:
                    h = runs[name]["held_dead"]
                    self.assertGreater(h["awaiting_collection_byte_steps"], 0.5 * h["held_dead_byte_steps"],
                                       "%s/%s" % (workload, name))

    def test_report_html(self):
        path = os.path.join(self.out, "report.html")
        with open(path, encoding="utf-8") as f:
            page = f.read()
        # One self-contained file: nothing to fetch.
        self.assertNotRegex(page, r"""(src|href)\s*=\s*["']?(https?:)?//""")
        self.assertNotIn("<link", page)
        r = headless.open_report(path)
        self.assertTrue(r["rendered"], r["dom"][-2000:])
        self.assertEqual(r["errors"], 0, re.findall(r'<pre id="errors">(.*?)</pre>', r["dom"], re.S))
        self.assertEqual([l for l in r["console"] if "rror" in l or "Uncaught" in l], [])
        charts = len(self.results) * (len(POLICIES) + len(COLLECTING_RUNS)) + sum(
            1 for (w, _) in self.results if w == "llama")  # the hybrid
        self.assertEqual(r["charts"], charts)
        self.assertEqual(len(r["selftest"]), charts)
        for c in r["selftest"]:
            self.assertGreaterEqual(c["areas"], 3, c)   # parameters, inputs, activations at least
            self.assertEqual(c["bound"], 1, c)          # the live-set bound's schedule
            self.assertTrue(c["peak_shown"], c)         # hovering the peak shows what was alive
            self.assertGreaterEqual(c["peak_rows"], 6, c)
            self.assertIn("in use", c["tip"], c)        # hovering the chart shows the bytes by category
            # What held the dead byte-time (Note [Held by]): a sentence and a table, shown.
            self.assertRegex(c["held_by"] or "", r"^\d+ % of the dead byte-time was held by ", c)
            self.assertGreaterEqual(c["held_by_rows"], 1, c)
        # The verdicts name what the numbers say.
        sections = re.findall(r'<section class="workload"><h2>(\w+)(?: \([\w ]+\))? on (\w+)</h2>.*?'
                              r'<ul class="verdict">(.*?)</ul>', page, re.S)
        self.assertEqual(len(sections), len(self.results))
        for workload, backend, verdict in sections:
            runs = self.results[(workload, backend)]["contenders"]
            fastest = min(runs, key=lambda c: c["median_ms"])["name"]
            nearest = min((c for c in runs if c["policy"]), key=lambda c: c["peak_to_lower_bound"])["name"]
            verdict = html.unescape(verdict)
            self.assertIn("Fastest: %s," % fastest, verdict)
            self.assertIn("Nearest the live-set bound (", verdict)
            self.assertIn("): %s, peak" % nearest, verdict)

    def test_snapshots_read_by_pytorchs_memory_viz(self):
        # Every custody contender's memory pass as PyTorch's memory snapshot, read by PyTorch 1.13's
        # own torch/cuda/_memory_viz.py (custody/report/memory_viz_check.py, on Debian's interpreter).
        expected = {}
        for (workload, backend), r in self.results.items():
            variant = r.get("variant", "").replace(" ", "")
            for c in r["contenders"]:
                if c["policy"]:
                    name = "%s%s_%s_%s.pickle" % (workload, "_" + variant if variant else "", backend,
                                                 c["name"].replace(":", "_"))
                    expected[os.path.join(self.out, name)] = c
        self.assertEqual(sorted(expected), sorted(glob.glob(os.path.join(self.out, "*.pickle"))))
        proc = subprocess.run(["/usr/bin/python3", MEMORY_VIZ_CHECK] + sorted(expected), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        for got in json.loads(proc.stdout):
            c = expected[got["path"]]
            h = c["held_dead"]
            where = got["path"]
            # The blocks alive at the peak, as compare.json counts the peak.
            self.assertEqual(got["total_size"], h["peak_bytes"], where)
            self.assertEqual(got["states"], {"active_allocated": h["peak_bytes"]}, where)
            self.assertGreater(got["segment_lines"], 0, where)
            self.assertGreater(got["compare_lines"], 0, where)
            self.assertGreater(got["allocs"], 0, where)
            # Its lines carry custody's sites as _memory_viz writes a frame: file:line:function.
            memory = "\n".join(got["memory"])
            for s in h["sites"]:
                if s["alive_at_peak_bytes"] > 0:
                    path_line = s["frame"].split(" ")[0]
                    self.assertIn(path_line.split("/")[-1] + ":", memory, where)

    def test_collector_counters(self):
        for (workload, backend), r in self.results.items():
            runs = self.runs(workload, backend)
            for p in COLLECTING:
                self.assertEqual(runs[p + ":collect_every_step"]["collections"], r["steps"], p)
                self.assertEqual(runs[p + ":no_collection"]["collections"], 0, p)
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
            serve = self.runs("serve", b)
            self.assertAlmostEqual(serve["manual"]["metric"], serve["libtorch"]["metric"],
                                   delta=1e-5 * abs(serve["libtorch"]["metric"]))

    def test_histories_in_order(self):
        # Every free recorded before its address could be given out again (the
        # serve workload frees on other threads): otherwise frees pair with the
        # wrong blocks and the memory figures are wrong.
        for (workload, backend), r in self.results.items():
            for c in r["contenders"]:
                if c["policy"]:
                    self.assertEqual(c["held_dead"]["out_of_order_allocs"], 0,
                                     "%s/%s/%s" % (workload, backend, c["name"]))

    def test_serve(self):
        for b in BACKENDS:
            r = self.results[("serve", b)]
            s = r["shapes"]
            self.assertEqual(s["workers"], 2)
            self.assertEqual(s["intra_op_threads"], 1)
            for c in r["contenders"]:
                where = "serve/%s/%s" % (b, c["name"])
                f = c["figures"]
                self.assertEqual(list(f), ["workers", "requests_per_s", "p50_ms", "p99_ms"], where)
                self.assertEqual(f["workers"], 2, where)
                self.assertGreater(f["requests_per_s"], 0, where)
                self.assertLessEqual(f["p50_ms"], f["p99_ms"], where)
                if c["name"] in POLICIES:
                    # The input freed on its worker, the output on the responder: two per request.
                    self.assertEqual(c["held_dead"]["cross_thread_frees"], 2 * s["requests_per_step"] * r["steps"],
                                     where)
                elif c["policy"]:  # a collector gives back on whichever thread collects
                    self.assertGreater(c["held_dead"]["cross_thread_frees"], 0, where)
            self.assertRegex(self.stdout, r"contender\s+workers\s+requests_per_s\s+p50_ms\s+p99_ms")

    def test_lines_of_code_and_plots(self):
        for r in self.json["results"]:
            for c in r["contenders"][:-1]:
                self.assertGreater(c["lines_of_code"], 5, c["name"])
            variant = "_" + r["variant"].replace(" ", "") if r["variant"] else ""
            self.assertTrue(r["plot"].endswith("%s%s_%s_memory.png" % (r["workload"], variant, r["backend"])))
            with open(r["plot"], "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


class CompareOpsSizeTest(unittest.TestCase):
    """--ops_size and --ops_tiny_ops: the ops workload made of handle and ownership costs."""

    def test_small_ops_rounds(self):
        out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        proc = subprocess.run([COMPARE, "--workloads=ops", "--ops_size=8", "--ops_tiny_ops=512", "--steps=4",
                               "--contenders=tensor_ptr,gc:trigger_8MiB,libtorch", "--out=" + out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("512 one-element ops, then views, exp/mean/div, matmul 4x8x8, tanh, in-place copy_ and "
                      "mul_ on a 8x8 state", proc.stdout)
        with open(os.path.join(out, "compare.json"), encoding="utf-8") as f:
            results = json.load(f)["results"]
        self.assertEqual(len(results), 1)
        r = results[0]
        self.assertEqual(r["shapes"], {"rows": 8, "cols": 8, "tiny_ops": 512})
        runs = {c["name"]: c for c in r["contenders"]}
        self.assertEqual(sorted(runs), ["gc:trigger_8MiB", "libtorch", "tensor_ptr"])
        self.assertEqual(runs["tensor_ptr"]["lower_bound_bytes"], expected_live_set("ops", r["shapes"]))
        self.assertEqual(runs["tensor_ptr"]["leaked_bytes"], 0)
        # A collector's conservative stack scan may keep a dead alias or two past the runner's
        # last collection (Note [Garbage the scan keeps], tests/fuzz/lifetime_gc_fuzz_test.cc:
        # at most 3 in one collection): counted as leaked by the tool, never more than that here.
        self.assertLessEqual(runs["gc:trigger_8MiB"]["leaked_tensors"], KEPT_BY_THE_SCAN)
        for name in ("tensor_ptr", "gc:trigger_8MiB"):
            self.assertEqual(len(runs[name]["step_ms"]), 4, name)


class CompareSmallModelTest(unittest.TestCase):
    """--workloads=small_model: a new user's small model (workloads/small_model) under every policy."""

    def test_every_policy_reaches_libtorchs_loss(self):
        out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        proc = subprocess.run([COMPARE, "--workloads=small_model", "--quick", "--all_backends", "--out=" + out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(os.path.join(out, "compare.json"), encoding="utf-8") as f:
            results = json.load(f)["results"]
        self.assertEqual(sorted(r["backend"] for r in results), sorted(BACKENDS))
        for r in results:
            self.assertEqual(r["workload"], "small_model")
            self.assertEqual(r["steps"], 40)
            runs = {c["name"]: c for c in r["contenders"]}
            self.assertEqual(sorted(runs), sorted(CONTENDERS))
            torch_loss = runs["libtorch"]["metric"]
            self.assertGreater(torch_loss, 0)
            for name in POLICIES + COLLECTING_RUNS:
                where = "%s/%s" % (r["backend"], name)
                self.assertAlmostEqual(runs[name]["metric"], torch_loss, delta=1e-4 * torch_loss, msg=where)
                if name in POLICIES:
                    self.assertEqual(runs[name]["leaked_bytes"], 0, where)
                else:
                    self.assertLessEqual(runs[name]["leaked_tensors"], KEPT_BY_THE_SCAN, where)
                self.assertEqual(len(runs[name]["step_ms"]), 40, where)


if __name__ == "__main__":
    policies = sys.argv.pop(1).split("=", 1)[1].split(",")
    BACKENDS[:] = sys.argv.pop(1).split("=", 1)[1].split(",")
    COMPARE = sys.argv.pop(1)
    MEMORY_VIZ_CHECK = os.path.abspath(sys.argv.pop(1))
    # "onednn/mlp: tensor_ptr ... gc:collect_every_step ... libtorch": a policy listed with modes collects.
    listing = subprocess.run([COMPARE, "--list_contenders"], check=True, capture_output=True, text=True)
    listed = listing.stdout.splitlines()[0].split(": ", 1)[1].split()
    COLLECTING_RUNS[:] = [c for c in listed if c.split(":")[0] in policies and ":" in c]
    COLLECTING[:] = [p for p in policies if any(c.startswith(p + ":") for c in COLLECTING_RUNS)]
    POLICIES[:] = [p for p in policies if p not in COLLECTING]
    if not COLLECTING:
        sys.exit("compare_test: no policy of %s collects; the collector checks need one" % policies)
    CONTENDERS[:] = POLICIES + COLLECTING_RUNS + ["libtorch"]
    unittest.main()
