#!/usr/bin/env python3
"""Tests of tools/gpu/gtest_shards.py on a fake GoogleTest binary (a shell script): the shards' cases
merged into one XML, and every case that finished kept when a shard times out, crashes or exits
non-zero after writing its XML."""

import io
import os
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gtest_shards  # noqa: E402

# Six cases; shard I of N runs those whose index modulo N is I, as GoogleTest does. FAKE_FAIL=CASE
# fails CASE; FAKE_SKIP=CASE skips it; FAKE_HANG=CASE sleeps in it (ignoring SIGTERM when
# FAKE_IGNORE_TERM is set); FAKE_CRASH=CASE dies of SIGSEGV in it; FAKE_EXIT_AFTER=N exits N after
# writing an XML without failures; FAKE_DIE_FIRST=1 dies before any case. The XML is written at the end,
# as GoogleTest does.
FAKE = r"""#!/usr/bin/env bash
ulimit -c 0
[[ -n ${FAKE_IGNORE_TERM:-} ]] && trap '' TERM
xml=""
for a in "$@"; do [[ $a == --gtest_output=xml:* ]] && xml=${a#--gtest_output=xml:}; done
echo "shard ${GTEST_SHARD_INDEX:-unset} of ${GTEST_TOTAL_SHARDS:-unset}; OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
[[ -n ${FAKE_DIE_FIRST:-} ]] && kill -SEGV $$
cases=(S.a S.b S.c S.d T.e T.f)
body=""
i=0
for c in "${cases[@]}"; do
  if (( i % ${GTEST_TOTAL_SHARDS:-1} == ${GTEST_SHARD_INDEX:-0} )); then
    echo "[ RUN      ] $c"
    suite=${c%%.*} name=${c#*.}
    if [[ ${FAKE_HANG:-} == "$c" ]]; then echo "hanging in $c"; sleep 60; fi
    if [[ ${FAKE_CRASH:-} == "$c" ]]; then echo "about to crash in $c"; kill -SEGV $$; fi
    if [[ ${FAKE_FAIL:-} == "$c" ]]; then
      echo "fake.cc:1: Failure"
      echo "[  FAILED  ] $c (1 ms)"
      body+="<testcase name=\"$name\" classname=\"$suite\" status=\"run\" result=\"completed\"><failure message=\"fake\"/></testcase>"
    elif [[ ${FAKE_SKIP:-} == "$c" ]]; then
      echo "[  SKIPPED ] $c (0 ms)"
      body+="<testcase name=\"$name\" classname=\"$suite\" status=\"run\" result=\"skipped\"><skipped message=\"\"/></testcase>"
    else
      echo "[       OK ] $c (0 ms)"
      body+="<testcase name=\"$name\" classname=\"$suite\" status=\"run\" result=\"completed\"/>"
    fi
  fi
  i=$((i + 1))
done
echo "<testsuites><testsuite name=\"all\">$body</testsuite></testsuites>" >"$xml"
if grep -q "<failure" "$xml"; then exit 1; fi
exit "${FAKE_EXIT_AFTER:-0}"
"""


def verdicts(path):
    """{suite.case: 'passed' | 'failed' | 'skipped'} and {suite.case: failure message} of an XML."""
    root = ET.parse(path).getroot()
    out, messages = {}, {}
    for case in root.iter("testcase"):
        name = case.get("classname") + "." + case.get("name")
        tags = {c.tag for c in case}
        if "failure" in tags:
            out[name] = "failed"
            messages[name] = case.find("failure").get("message")
        elif "skipped" in tags or case.get("result") == "skipped":
            out[name] = "skipped"
        else:
            out[name] = "passed"
    return out, messages


class GtestShardsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.fake = os.path.join(self.dir.name, "fake_test")
        with open(self.fake, "w") as f:
            f.write(FAKE)
        os.chmod(self.fake, 0o755)
        self.xml = os.path.join(self.dir.name, "out", "fake_test.xml")
        self.log = os.path.join(self.dir.name, "out", "fake_test.log")
        os.makedirs(os.path.dirname(self.xml))
        self.env = dict(os.environ)
        for k in list(self.env):
            if k.startswith(("FAKE_", "GTEST_")) or k == "OMP_NUM_THREADS":
                del self.env[k]

    def run_shards(self, shards, timeout, **fake_env):
        env = dict(self.env, **fake_env)
        old = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)
        buf = io.StringIO()
        try:
            with redirect_stdout(buf):
                rc = gtest_shards.main(["--shards", str(shards), "--timeout", str(timeout),
                                        "--xml", self.xml, "--log", self.log, "--", self.fake])
        finally:
            os.environ.clear()
            os.environ.update(old)
        with open(self.log, encoding="utf-8") as f:
            log = f.read()
        return rc, buf.getvalue().strip(), log

    def test_every_shard_runs_its_cases_and_the_xml_has_them_all(self):
        rc, line, log = self.run_shards(3, 30)
        self.assertEqual(rc, 0, log)
        self.assertEqual(line, "3 shards")
        got, _ = verdicts(self.xml)
        self.assertEqual(got, {c: "passed" for c in ("S.a", "S.b", "S.c", "S.d", "T.e", "T.f")})
        omp = max(1, (os.cpu_count() or 1) // 3)
        for i in range(3):
            self.assertIn("== shard %d of 3: exit status 0" % i, log)
            self.assertIn("shard %d of 3; OMP_NUM_THREADS=%d" % (i, omp), log)
        self.assertEqual(sorted(os.listdir(os.path.dirname(self.xml))),
                         ["fake_test.log", "fake_test.xml"], "the shards' own files are removed")

    def test_a_failed_case_is_failed_and_the_exit_status_is_the_shards(self):
        rc, line, _ = self.run_shards(2, 30, FAKE_FAIL="S.c", FAKE_SKIP="T.f")
        self.assertEqual(rc, 1)
        self.assertEqual(line, "2 shards; shard 0 exit status 1")
        got, _ = verdicts(self.xml)
        self.assertEqual(got["S.c"], "failed")
        self.assertEqual(got["T.f"], "skipped")
        self.assertEqual(sum(v == "passed" for v in got.values()), 4)

    def test_a_timed_out_shard_keeps_the_cases_it_finished(self):
        t0 = time.monotonic()
        rc, line, log = self.run_shards(2, 3, FAKE_HANG="S.c")  # shard 0: S.a, S.c, T.e
        self.assertLess(time.monotonic() - t0, 20)
        self.assertEqual(rc, 124)
        self.assertEqual(line, "2 shards; shard 0 timed out while running S.c")
        got, messages = verdicts(self.xml)
        # Shard 1 wrote its XML; shard 0's S.a comes from its output, S.c failed, T.e never ran.
        self.assertEqual(got, {"S.a": "passed", "S.c": "failed", "S.b": "passed", "S.d": "passed",
                               "T.f": "passed"})
        self.assertIn("timed out while running (shard 0 of 2 timed out", messages["S.c"])
        self.assertIn("== shard 0 of 2: timed out", log)
        self.assertIn("hanging in S.c", log)
        root = ET.parse(self.xml).getroot()
        quoted = [c.find("failure").text for c in root.iter("testcase") if c.get("name") == "c"]
        self.assertIn("hanging in S.c", quoted[0], "the failure quotes the case's output")

    def test_a_shard_that_ignores_sigterm_is_killed(self):
        old = gtest_shards.KILL_AFTER_S
        gtest_shards.KILL_AFTER_S = 1
        try:
            rc, _, _ = self.run_shards(2, 2, FAKE_HANG="S.b", FAKE_IGNORE_TERM="1")
        finally:
            gtest_shards.KILL_AFTER_S = old
        self.assertEqual(rc, 137)
        got, _ = verdicts(self.xml)
        self.assertEqual(got["S.b"], "failed")
        self.assertEqual(got["S.a"], "passed")

    def test_a_crash_keeps_the_other_cases_and_names_the_one_running(self):
        rc, line, _ = self.run_shards(3, 30, FAKE_CRASH="S.d")  # shard 0: S.a, S.d
        self.assertEqual(rc, 128 + 11)
        self.assertEqual(line, "3 shards; shard 0 killed by signal 11 while running S.d")
        got, messages = verdicts(self.xml)
        self.assertEqual(got["S.a"], "passed")
        self.assertEqual(got["S.d"], "failed")
        self.assertIn("died while running (shard 0 of 3 killed by signal 11)", messages["S.d"])
        self.assertEqual(len(got), 6)

    def test_a_shard_that_dies_before_any_case_is_one_failure(self):
        rc, _, _ = self.run_shards(2, 30, FAKE_DIE_FIRST="1")
        self.assertEqual(rc, 128 + 11)
        got, messages = verdicts(self.xml)
        self.assertEqual(sorted(got), ["(shard 0 of 2).(no case running)",
                                       "(shard 1 of 2).(no case running)"])
        self.assertIn("killed by signal 11 with no XML", messages["(shard 0 of 2).(no case running)"])

    def test_a_non_zero_exit_after_a_clean_xml_is_a_failure(self):
        rc, _, _ = self.run_shards(2, 30, FAKE_EXIT_AFTER="3")
        self.assertEqual(rc, 3)
        got, messages = verdicts(self.xml)
        self.assertEqual(sum(v == "passed" for v in got.values()), 6)
        self.assertEqual(got["(shard 0 of 2).(after its cases)"], "failed")
        self.assertIn("exit status 3 after its test cases passed",
                      messages["(shard 0 of 2).(after its cases)"])

    def test_more_shards_than_cases(self):
        rc, _, _ = self.run_shards(8, 30)
        self.assertEqual(rc, 0)
        got, _ = verdicts(self.xml)
        self.assertEqual(len(got), 6)

    def test_bad_usage(self):
        for args in (["--shards", "0", "--timeout", "5"], ["--shards", "2", "--timeout", "0"]):
            with self.assertRaises(SystemExit) as e, redirect_stdout(io.StringIO()):
                sys.stderr, old = io.StringIO(), sys.stderr
                try:
                    gtest_shards.main(args + ["--xml", self.xml, "--log", self.log, "--", self.fake])
                finally:
                    sys.stderr = old
            self.assertEqual(e.exception.code, 2)

    def test_a_command_that_cannot_start(self):
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = gtest_shards.main(["--shards", "2", "--timeout", "5", "--xml", self.xml, "--log",
                                    self.log, "--", os.path.join(self.dir.name, "nonesuch")])
        self.assertEqual(rc, 127)
        self.assertIn("cannot run", buf.getvalue())
        self.assertFalse(os.path.exists(self.xml))

    def test_as_a_program(self):
        # What device_check.sh runs: the script itself, its summary line on stdout.
        out = subprocess.run([sys.executable, gtest_shards.__file__, "--shards", "2", "--timeout", "30",
                              "--xml", self.xml, "--log", self.log, "--", self.fake],
                             env=dict(self.env, FAKE_FAIL="T.e"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True, check=False)
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertEqual(out.stdout, "2 shards; shard 0 exit status 1\n")


if __name__ == "__main__":
    unittest.main()
