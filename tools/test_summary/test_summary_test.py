#!/usr/bin/env python3
"""Unit tests for test_summary.py: GoogleTest and Bazel XML, shards, retries, BEP verdicts, --xml files."""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_summary  # noqa: E402

GTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" failures="1" disabled="1" errors="0" name="AllTests">
  <testsuite name="Mixed" tests="5" failures="1" disabled="1" skipped="1" errors="0">
    <testcase name="Pass1" status="run" result="completed" classname="Mixed" />
    <testcase name="Pass2" status="run" result="completed" classname="Mixed" />
    <testcase name="Fail" status="run" result="completed" classname="Mixed">
      <failure message="a.cc:4 Expected equality" type=""><![CDATA[a.cc:4]]></failure>
    </testcase>
    <testcase name="Skip" status="run" result="skipped" classname="Mixed">
      <skipped message="why"><![CDATA[why]]></skipped>
    </testcase>
    <testcase name="DISABLED_Off" status="notrun" result="suppressed" classname="Mixed" />
  </testsuite>
</testsuites>
"""

GTEST_PASS_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" name="AllTests"><testsuite name="S" tests="2">
  <testcase name="A" status="run" result="completed" classname="S" />
  <testcase name="B" status="run" result="completed" classname="S" />
</testsuite></testsuites>
"""

GTEST_EMPTY_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="0" failures="0" disabled="0" errors="0" name="AllTests">
</testsuites>
"""

# What Bazel's test-setup.sh writes when the test itself wrote no XML (crash, timeout, non-gtest test).
BAZEL_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="pkg/crash_test" tests="1" failures="0" errors="{errors}">
    <testcase name="pkg/crash_test" status="run" duration="0" time="0">{error}</testcase>
      <system-out>
Generated test.log (if the file is not UTF-8, then this may be unreadable):
<![CDATA[{log}]]>
      </system-out>
    </testsuite>
</testsuites>
"""


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.events = []

    def write(self, rel, text, binary=False):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if binary else "w") as f:
            f.write(text)
        return path

    def configured(self, label, test=True):
        payload = {"targetKind": "cc_test rule", "testSize": "SMALL"} if test else {"targetKind": "cc_library rule"}
        self.events.append({"id": {"targetConfigured": {"label": label}}, "configured": payload})

    def completed(self, label, success=True, skipped=False):
        event = {"id": {"targetCompleted": {"label": label, "configuration": {"id": "c1"}}}}
        if skipped:
            event["aborted"] = {"reason": "SKIPPED", "description": "skipped"}
        else:
            event["completed"] = {"success": success} if success else {"failureDetail": {"message": "gcc"}}
        self.events.append(event)

    def result(self, label, status, xml=None, shard=1, attempt=1, run=1):
        outputs = [{"name": "test.log", "uri": "file:///nonexistent/test.log"}]
        if xml:
            outputs.append({"name": "test.xml", "uri": "file://" + xml.replace(" ", "%20")})
        self.events.append({
            "id": {"testResult": {"label": label, "run": run, "shard": shard, "attempt": attempt,
                                  "configuration": {"id": "c1"}}},
            "testResult": {"testActionOutput": outputs, "status": status},
        })

    def summarize(self):
        bep = self.write("bep.json", "\n".join(json.dumps(e) for e in self.events) + "\n{truncated")
        out = io.StringIO()
        with redirect_stdout(out):
            code = test_summary.main(["--bep", bep])
        lines = out.getvalue().splitlines()
        return code, lines

    def test_two_invocations_add_up(self):
        # .ci/run: the test command, then the sanitizer subsets, each with its own BEP file.
        self.configured("//a:a_test")
        self.completed("//a:a_test")
        self.result("//a:a_test", "PASSED", self.write("a/a_test/test.xml", GTEST_PASS_XML))
        first = self.write("first.json", "\n".join(json.dumps(e) for e in self.events) + "\n")
        self.events = []
        self.configured("//b:b_test")
        self.completed("//b:b_test", success=False)
        second = self.write("second.json", "\n".join(json.dumps(e) for e in self.events) + "\n")
        out = io.StringIO()
        with redirect_stdout(out):
            code = test_summary.main(["--bep", first, "--bep", second])
        self.assertEqual(out.getvalue().splitlines()[-1], "2 passed, 1 failed, 0 skipped")
        self.assertEqual(code, 1)

    def test_gtest_xml_counts(self):
        counts = test_summary.parse_test_xml(self.write("a/test.xml", GTEST_XML))
        self.assertEqual((counts.passed, counts.failed, counts.skipped), (2, 1, 2))
        self.assertEqual(counts.failures, ["Mixed.Fail"])

    def test_all_pass(self):
        self.configured("//a:a_test")
        self.completed("//a:a_test")
        self.result("//a:a_test", "PASSED", self.write("a/a_test/test.xml", GTEST_PASS_XML))
        code, lines = self.summarize()
        self.assertEqual(lines, ["2 passed, 0 failed, 0 skipped"])
        self.assertEqual(code, 0)

    def test_shards_are_summed(self):
        self.configured("//a:m_test")
        self.completed("//a:m_test")
        self.result("//a:m_test", "FAILED", self.write("a/m_test/shard_1_of_2/test.xml", GTEST_XML), shard=1)
        self.result("//a:m_test", "PASSED", self.write("a/m_test/shard_2_of_2/test.xml", GTEST_PASS_XML),
                    shard=2)
        code, lines = self.summarize()
        self.assertEqual(lines[-1], "4 passed, 1 failed, 2 skipped")
        self.assertIn("FAILED: //a:m_test Mixed.Fail", lines)
        self.assertEqual(code, 1)

    def test_crash_bazel_xml_counts_one_failure(self):
        self.configured("//pkg:crash_test")
        self.completed("//pkg:crash_test")
        xml = self.write("pkg/crash_test/test.xml", BAZEL_XML.format(
            errors=1, error='<error message="exited with error code 134"></error>', log="boom"))
        self.result("//pkg:crash_test", "FAILED", xml)
        self.assertEqual(self.summarize()[1][-1], "0 passed, 1 failed, 0 skipped")

    def test_timeout_counts_one_failure(self):
        self.configured("//pkg:slow_test")
        self.completed("//pkg:slow_test")
        xml = self.write("pkg/slow_test/test.xml", BAZEL_XML.format(
            errors=1, error='<error message="Timed out"></error>', log="..."))
        self.result("//pkg:slow_test", "TIMEOUT", xml)
        self.assertEqual(self.summarize()[1][-1], "0 passed, 1 failed, 0 skipped")

    def test_failure_after_passing_xml(self):
        # LeakSanitizer reports at exit, after GoogleTest wrote an all-passed XML.
        self.configured("//a:leak_test")
        self.completed("//a:leak_test")
        self.result("//a:leak_test", "FAILED", self.write("a/leak_test/test.xml", GTEST_PASS_XML))
        code, lines = self.summarize()
        self.assertEqual(lines[-1], "2 passed, 1 failed, 0 skipped")
        self.assertEqual(code, 1)

    def test_non_gtest_pass_counts_one(self):
        self.configured("//a:sh_test")
        self.completed("//a:sh_test")
        xml = self.write("a/sh_test/test.xml", BAZEL_XML.format(errors=0, error="", log="ok"))
        self.result("//a:sh_test", "PASSED", xml)
        self.assertEqual(self.summarize()[1][-1], "1 passed, 0 failed, 0 skipped")

    def test_non_utf8_log_in_bazel_xml(self):
        self.configured("//a:bin_test")
        self.completed("//a:bin_test")
        text = BAZEL_XML.format(errors=0, error="", log="ok").encode().replace(b"ok", b"\xff\xfe ok")
        self.result("//a:bin_test", "PASSED", self.write("a/bin_test/test.xml", text, binary=True))
        self.assertEqual(self.summarize()[1][-1], "1 passed, 0 failed, 0 skipped")

    def test_empty_test_binary_fails(self):
        self.configured("//a:empty_test")
        self.completed("//a:empty_test")
        self.result("//a:empty_test", "PASSED", self.write("a/empty_test/test.xml", GTEST_EMPTY_XML))
        self.assertEqual(self.summarize()[1][-1], "0 passed, 1 failed, 0 skipped")

    def test_missing_xml(self):
        self.configured("//a:x_test")
        self.completed("//a:x_test")
        self.result("//a:x_test", "FAILED", os.path.join(self.dir, "nope.xml"))
        self.assertEqual(self.summarize()[1][-1], "0 passed, 1 failed, 0 skipped")

    def test_build_failure_and_skipped_targets(self):
        self.configured("//a:broken_test")
        self.completed("//a:broken_test", success=False)
        self.configured("//a:cuda_test")
        self.completed("//a:cuda_test", skipped=True)
        self.configured("//a:lib", test=False)
        self.completed("//a:lib", success=False)  # not a test: bazel's exit code reports it
        self.configured("//a:never_ran_test")      # configured, no result at all: not counted
        code, lines = self.summarize()
        self.assertEqual(lines[-1], "0 passed, 1 failed, 1 skipped")
        self.assertIn("FAILED: //a:broken_test (failed to build)", lines)

    def test_last_attempt_wins(self):
        self.configured("//a:flaky_test")
        self.completed("//a:flaky_test")
        self.result("//a:flaky_test", "FAILED", self.write("a/flaky_test/attempt_1.xml", GTEST_XML), attempt=1)
        self.result("//a:flaky_test", "PASSED", self.write("a/flaky_test/test.xml", GTEST_PASS_XML), attempt=2)
        self.assertEqual(self.summarize()[1][-1], "2 passed, 0 failed, 0 skipped")

    def test_testlogs_walk(self):
        self.write("logs/a/m_test/shard_1_of_2/test.xml", GTEST_XML)
        self.write("logs/a/m_test/shard_2_of_2/test.xml", GTEST_PASS_XML)
        self.write("logs/b/p_test/test.xml", GTEST_PASS_XML)
        out = io.StringIO()
        with redirect_stdout(out):
            code = test_summary.main(["--testlogs", os.path.join(self.dir, "logs")])
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[-1], "6 passed, 1 failed, 2 skipped")
        self.assertIn("FAILED: //a:m_test Mixed.Fail", lines)
        self.assertEqual(code, 1)

    def test_xml_files(self):
        # tools/gpu/run.sh: one GoogleTest XML per binary, with the binary's exit status when known.
        mixed = self.write("out/conformance_gc_cuda.xml", GTEST_XML)
        passing = self.write("out/cuda_test.xml", GTEST_PASS_XML)
        crashed_at_exit = self.write("out/leak_test.xml", GTEST_PASS_XML)
        empty = self.write("out/empty_test.xml", GTEST_EMPTY_XML)
        never = os.path.join(self.dir, "out", "timed_out_test.xml")
        out = io.StringIO()
        with redirect_stdout(out):
            code = test_summary.main(["--xml", mixed + "=1", passing + "=0", crashed_at_exit + "=134",
                                      empty, never + "=124"])
        lines = out.getvalue().splitlines()
        # 2+2+2 passed; Mixed.Fail, leak_test's exit, empty_test, timed_out_test failed; 2 skipped.
        self.assertEqual(lines[-1], "6 passed, 4 failed, 2 skipped")
        self.assertIn("FAILED: conformance_gc_cuda Mixed.Fail", lines)
        self.assertTrue(any(l.startswith("FAILED: leak_test (exit status 134 ") for l in lines), lines)
        self.assertIn("FAILED: empty_test (no test case ran)", lines)
        self.assertTrue(any(l.startswith("FAILED: timed_out_test (no readable XML ") and "exit status 124" in l
                            for l in lines), lines)
        self.assertEqual(code, 1)

    def test_xml_files_all_pass_and_none(self):
        passing = self.write("out/a_test.xml", GTEST_PASS_XML)
        for argv, want, want_code in ((["--xml", passing + "=0"], "2 passed, 0 failed, 0 skipped", 0),
                                      (["--xml"], "0 passed, 0 failed, 0 skipped", 0)):
            out = io.StringIO()
            with redirect_stdout(out):
                code = test_summary.main(argv)
            self.assertEqual(out.getvalue().splitlines(), [want])
            self.assertEqual(code, want_code)

    def test_missing_bep_file(self):
        out = io.StringIO()
        with redirect_stdout(out):
            code = test_summary.main(["--bep", os.path.join(self.dir, "none.json")])
        self.assertEqual(code, 2)


def _write_junit_xml(path, result, suite):
    """Bazel sets XML_OUTPUT_FILE: report each test case, as GoogleTest does, for test_summary itself."""
    from xml.sax.saxutils import quoteattr
    bad = {t.id(): (kind, text) for kind, pairs in (("failure", result.failures), ("error", result.errors))
           for t, text in pairs}
    skipped = {t.id() for t, _ in result.skipped}
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>", '<testsuite name="test_summary_test">']
    for test in suite:
        cls, name = test.id().rsplit(".", 1)
        lines.append("<testcase classname={} name={}>".format(quoteattr(cls), quoteattr(name)))
        if test.id() in bad:
            kind, text = bad[test.id()]
            lines.append("<{0} message={1}></{0}>".format(kind, quoteattr(text)))
        elif test.id() in skipped:
            lines.append("<skipped/>")
        lines.append("</testcase>")
    lines += ["</testsuite>", "</testsuites>"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    tests = list(unittest.defaultTestLoader.loadTestsFromTestCase(SummaryTest))
    outcome = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite(tests))
    if os.environ.get("XML_OUTPUT_FILE"):
        _write_junit_xml(os.environ["XML_OUTPUT_FILE"], outcome, tests)
    sys.exit(0 if outcome.wasSuccessful() else 1)
