#!/usr/bin/env python3
"""examples/report under CUSTODY_REPORT: the program writes report.html at exit
with no report call of its own; opened in headless Chromium it renders without
errors, and it names make_features() as the site holding most memory past its
last use and make_cache() as the leak.

    report_example_test.py path/to/report_example
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

from custody.report import headless

PROGRAM = None


class ReportExampleTest(unittest.TestCase):
    def test_report_written_at_exit_names_the_sites(self):
        out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        path = os.path.join(out, "report.html")
        proc = subprocess.run([PROGRAM], env=dict(os.environ, CUSTODY_REPORT=path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=300, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("custody::report: wrote " + path, proc.stderr)
        with open(path, encoding="utf-8") as f:
            page = f.read()
        held = re.search(r'<table class="sites">.*?<code>(.*?)</code>', page, re.S)
        self.assertIsNotNone(held, "no held-dead table")
        self.assertIn("make_features", held.group(1))
        leaks = re.search(r'<table class="leaks">(.*?)</table>', page, re.S)
        self.assertIsNotNone(leaks, "no leak table")
        self.assertIn("make_cache", leaks.group(1))
        self.assertIn("Leaked: 4000 bytes", page)
        r = headless.open_report(path)
        self.assertTrue(r["rendered"])
        self.assertEqual(r["errors"], 0)
        self.assertEqual(r["charts"], 1)
        self.assertTrue(r["selftest"][0]["peak_shown"], r["selftest"])
        self.assertIn("in use", r["selftest"][0]["tip"])

    def test_without_the_variable_nothing_is_recorded(self):
        out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        env = {k: v for k, v in os.environ.items() if k != "CUSTODY_REPORT"}
        proc = subprocess.run([PROGRAM], env=env, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=300, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("custody::report", proc.stderr)
        self.assertEqual(os.listdir(out), [])


if __name__ == "__main__":
    PROGRAM = os.path.abspath(sys.argv.pop(1))
    unittest.main()
