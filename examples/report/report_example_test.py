#!/usr/bin/env python3
"""examples/report under CUSTODY_REPORT and CUSTODY_SNAPSHOT, under every policy: the program writes
report.html and a PyTorch memory snapshot at exit with no report call of its own.

  * The page, opened in headless Chromium, renders without errors; its held-dead table names the
    line marked `// site: features` in report_example.cc (read here: move the line and the
    expected one moves with it), with the op that allocated it (randn) and what held it — the
    reference made there, released at the line marked `// site: release` (its last handle under
    tensor_ptr) — and its leak table the line marked `// site: cache`.
  * The snapshot, read by PyTorch 1.13's torch/cuda/_memory_viz.py (on Debian's interpreter:
    custody/report/memory_viz_check.py), has the features' line in its frames.

    report_example_test.py report_example.cc memory_viz_check.py report_<policy> ...
"""

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from custody.report import headless

SOURCE = None
MEMORY_VIZ_CHECK = None
PROGRAMS = []
FILE = "examples/report/report_example.cc"


def marked_lines():
    """{"features": n, "cache": n, "release": n}: the lines marked `// site: <name>`."""
    lines = {}
    with open(SOURCE, encoding="utf-8") as f:
        for n, text in enumerate(f, start=1):
            m = re.search(r"// site: (\w+)", text)
            if m:
                lines[m.group(1)] = n
    return lines


def policy_of(program):
    return os.path.basename(program).split("report_", 1)[1]


class ReportExampleTest(unittest.TestCase):
    def run_program(self, program, env):
        proc = subprocess.run([program], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=300, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc

    def test_report_and_snapshot_name_the_lines_the_op_and_the_holder(self):
        at = marked_lines()
        self.assertEqual(sorted(at), ["cache", "features", "release"])
        for program in PROGRAMS:
            policy = policy_of(program)
            with self.subTest(policy=policy):
                out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
                path, snapshot = os.path.join(out, "report.html"), os.path.join(out, "snapshot.pickle")
                proc = self.run_program(program, dict(os.environ, CUSTODY_REPORT=path, CUSTODY_SNAPSHOT=snapshot))
                self.assertIn("custody::report: wrote " + path, proc.stderr)
                self.assertIn("custody::report: wrote " + snapshot, proc.stderr)
                self.assertIn(policy + " on ", proc.stdout)
                with open(path, encoding="utf-8") as f:
                    page = f.read()
                features = "%s:%d" % (FILE, at["features"])
                released = "%s:%d" % (FILE, at["release"])
                # The top held-dead row: the features' line, its op, and what held it.
                row = re.search(r'<table class="sites">.*?<tr><td>(.*?)</tr>', page, re.S)
                self.assertIsNotNone(row, "no held-dead table")
                row = html.unescape(row.group(1))
                self.assertIn("<code>" + features + " ", row)
                self.assertIn('<span class="op">randn</span>', row)
                holder = "its last handle" if policy == "tensor_ptr" else "the reference made at " + features
                self.assertIn('<td class="holder">%s, released at %s</td>' % (holder, released), row)
                # The held-by sentence: that holder kept most of the dead byte-time.
                sentence = re.search(r'<p class="held-by">(\d+) % of the dead byte-time was held by (.*?)\.</p>',
                                     page)
                self.assertIsNotNone(sentence)
                self.assertEqual(html.unescape(sentence.group(2)), "%s, released at %s" % (holder, released))
                self.assertGreater(int(sentence.group(1)), 50)
                leaks = re.search(r'<table class="leaks">(.*?)</table>', page, re.S)
                self.assertIsNotNone(leaks, "no leak table")
                self.assertIn("%s:%d " % (FILE, at["cache"]), leaks.group(1))
                self.assertIn("Leaked: 4000 bytes", page)
                r = headless.open_report(path)
                self.assertTrue(r["rendered"])
                self.assertEqual(r["errors"], 0)
                self.assertEqual(r["charts"], 1)
                self.assertTrue(r["selftest"][0]["peak_shown"], r["selftest"])
                self.assertIn("in use", r["selftest"][0]["tip"])
                self.assertEqual(r["selftest"][0]["held_by"], html.unescape(re.sub(r"<[^>]+>", "", sentence.group(0))))
                # The snapshot, read by PyTorch's own tools: the features are alive at the peak.
                viz = subprocess.run(["/usr/bin/python3", MEMORY_VIZ_CHECK, snapshot], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, check=False)
                self.assertEqual(viz.returncode, 0, viz.stderr[-3000:])
                got = json.loads(viz.stdout)[0]
                self.assertGreaterEqual(got["total_size"], 512 * 512 * 4)
                self.assertIn("report_example.cc:%d:" % at["features"], "\n".join(got["memory"]))

    def test_without_the_variables_nothing_is_recorded(self):
        for program in PROGRAMS:
            with self.subTest(policy=policy_of(program)):
                out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
                env = {k: v for k, v in os.environ.items() if k not in ("CUSTODY_REPORT", "CUSTODY_SNAPSHOT")}
                proc = subprocess.run([program], env=env, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, timeout=300, check=False)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertNotIn("custody::report", proc.stderr)
                self.assertEqual(os.listdir(out), [])


if __name__ == "__main__":
    SOURCE = os.path.abspath(sys.argv.pop(1))
    MEMORY_VIZ_CHECK = os.path.abspath(sys.argv.pop(1))
    while len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        PROGRAMS.append(os.path.abspath(sys.argv.pop(1)))
    unittest.main()
