#!/usr/bin/env python3
"""test_summary: one line `N passed, N failed, N skipped` for a Bazel test run (or GoogleTest XML files).

    bazel test //... --build_event_json_file=bep.json
    python3 tools/test_summary/test_summary.py --bep bep.json      # the tests of that invocation
    python3 tools/test_summary/test_summary.py --bep a.json --bep b.json   # of two, added up
    python3 tools/test_summary/test_summary.py [--testlogs DIR]     # every test.xml under DIR
                                                                    # (default: bazel-testlogs)
    python3 tools/test_summary/test_summary.py --xml FILE[=EXIT]... # GoogleTest XML files, no Bazel
                                                                    # (tools/gpu/run.sh)

Counts test cases, not targets, from each test's test.xml (GoogleTest writes one per test binary, or per
shard: shard_N_of_M/test.xml; for other tests Bazel writes one with a single test case):

  * a <testcase> with <failure> or <error> is failed; with <skipped>, result="skipped"|"suppressed" or
    status="notrun" (GTEST_SKIP, DISABLED_) is skipped; otherwise passed. Skips never count as passes.
  * a test run Bazel reports as not passed whose XML shows no failure (sanitizer report or crash after
    GoogleTest wrote its XML, timeout, missing or unreadable XML) adds 1 failed;
  * a test target with no test case at all (an empty binary) counts 1 failed;
  * with --bep: a test target that failed to build, or had no result, counts 1 failed; one skipped as
    incompatible (e.g. a CUDA test without --config=cuda) counts 1 skipped. Only the last attempt of a
    retried (flaky) run counts.
  * with --xml: each FILE is what one test binary wrote with --gtest_output=xml:FILE, named in failures
    by the file's name without .xml. FILE=EXIT gives the binary's exit status: non-zero with no failure
    in the XML (crash after the XML was written, sanitizer report) adds 1 failed. A FILE that is missing
    or unreadable (the binary crashed, timed out or never ran) counts 1 failed, whatever EXIT says.

Failures are listed, one per line, before the summary line, which is always the last line printed.
Exit status: 0 when nothing failed, 1 otherwise, 2 on bad usage.
"""

import argparse
import json
import os
import sys
import urllib.parse
import xml.etree.ElementTree as ET


class Counts:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []  # human-readable names of what failed

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.failures.extend(other.failures)

    def total(self):
        return self.passed + self.failed + self.skipped

    def line(self):
        return "{} passed, {} failed, {} skipped".format(self.passed, self.failed, self.skipped)


def parse_test_xml(path):
    """Counts of the test cases in one test.xml, or None when it is missing or unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        try:  # Bazel pastes test.log into its generated XML; it may not be valid UTF-8.
            root = ET.fromstring(data.decode("utf-8", errors="replace").encode("utf-8"))
        except ET.ParseError:
            return None
    counts = Counts()
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        name = case.get("name", "?")
        if case.get("classname"):
            name = case.get("classname") + "." + name
        if "failure" in tags or "error" in tags:
            counts.failed += 1
            counts.failures.append(name)
        elif ("skipped" in tags or case.get("result") in ("skipped", "suppressed")
              or case.get("status") == "notrun"):
            counts.skipped += 1
        else:
            counts.passed += 1
    return counts


def count_run(xml_path, status):
    """One test action (one shard of one run): its XML, corrected by Bazel's own verdict."""
    counts = parse_test_xml(xml_path) if xml_path else None
    if counts is None:
        counts = Counts()
        if status == "PASSED":
            counts.passed = 1
        else:
            counts.failed = 1
            counts.failures.append("(no test.xml; {})".format(status or "no status"))
    elif status not in (None, "PASSED") and counts.failed == 0:
        counts.failed += 1
        counts.failures.append("(test {} after its test cases passed: crash, sanitizer "
                               "report or timeout; see test.log)".format(status))
    return counts


def finish_target(label, runs):
    """Sums the runs (shards) of one target; a target without any test case counts as failed."""
    total = Counts()
    for counts in runs:
        total.add(counts)
    if total.total() == 0:
        total.failed = 1
        total.failures.append("(no test case ran)")
    total.failures = ["{} {}".format(label, f) for f in total.failures]
    return total


def _uri_to_path(uri):
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme not in ("", "file"):
        return None
    return urllib.parse.unquote(parsed.path)


def summarize_bep(bep_path):
    """Counts for the tests of the Bazel invocation that wrote the BEP JSON file at bep_path."""
    tests = set()           # labels of test rules (targetConfigured.testSize is set)
    skipped = set()         # (label, config) skipped as incompatible
    broken = {}             # (label, config) -> why it has no result
    results = {}            # (label, config, run, shard) -> (attempt, status, xml path)
    with open(bep_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a truncated last line if Bazel died
            ident = event.get("id", {})
            if "targetConfigured" in ident:
                label = ident["targetConfigured"].get("label")
                configured = event.get("configured")
                if configured is not None and "testSize" in configured:
                    tests.add(label)
                elif "aborted" in event and label and label.rsplit(":", 1)[-1].endswith("test"):
                    tests.add(label)  # analysis failed: we cannot tell, trust the name
                    broken[(label, None)] = "failed analysis"
            elif "targetCompleted" in ident:
                tid = ident["targetCompleted"]
                key = (tid.get("label"), tid.get("configuration", {}).get("id"))
                aborted = event.get("aborted")
                completed = event.get("completed")
                if aborted is not None and aborted.get("reason") == "SKIPPED":
                    skipped.add(key)
                elif aborted is not None:
                    broken[key] = "aborted: " + aborted.get("reason", "?")
                elif completed is not None and not completed.get("success", False):
                    broken[key] = "failed to build"
            elif "testResult" in ident:
                tid = ident["testResult"]
                key = (tid.get("label"), tid.get("configuration", {}).get("id"),
                       tid.get("run", 1), tid.get("shard", 1))
                result = event.get("testResult", {})
                xml = None
                for output in result.get("testActionOutput", []):
                    if output.get("name") == "test.xml":
                        xml = _uri_to_path(output.get("uri", ""))
                attempt = tid.get("attempt", 1)
                if key not in results or results[key][0] <= attempt:
                    results[key] = (attempt, result.get("status"), xml)

    total = Counts()
    runs_by_target = {}
    for (label, config, _run, _shard), (_attempt, status, xml) in sorted(results.items(), key=str):
        runs_by_target.setdefault((label, config), []).append(count_run(xml, status))
    for (label, config), runs in sorted(runs_by_target.items(), key=str):
        total.add(finish_target(label, runs))
    ran = {label for (label, _config) in runs_by_target}
    for (label, config) in sorted(skipped, key=str):
        if label in tests and label not in ran:
            total.skipped += 1
    counted = set()
    for (label, config), why in sorted(broken.items(), key=str):
        if label in tests and label not in ran and label not in counted:
            counted.add(label)
            total.failed += 1
            total.failures.append("{} ({})".format(label, why))
    return total


def summarize_testlogs(testlogs):
    """Counts for every test.xml under testlogs (no Bazel verdicts: XML contents only)."""
    total = Counts()
    runs_by_target = {}
    for dirpath, _dirnames, filenames in os.walk(testlogs, followlinks=True):
        if "test.xml" not in filenames:
            continue
        rel = os.path.relpath(dirpath, testlogs)
        parts = rel.split(os.sep)
        if parts[-1].startswith("shard_") and "_of_" in parts[-1]:
            parts = parts[:-1]
        if len(parts) > 1 and parts[-1].startswith("run_") and "_of_" in parts[-1]:
            parts = parts[:-1]
        label = "//{}:{}".format("/".join(parts[:-1]), parts[-1])
        runs_by_target.setdefault(label, []).append(
            count_run(os.path.join(dirpath, "test.xml"), None))
    for label, runs in sorted(runs_by_target.items()):
        total.add(finish_target(label, runs))
    return total


def parse_xml_arg(arg):
    """`FILE` or `FILE=EXIT` (EXIT an integer) -> (path, exit status or None)."""
    path, sep, code = arg.rpartition("=")
    if sep and path and code.lstrip("-").isdigit():
        return path, int(code)
    return arg, None


def summarize_xml_files(args):
    """Counts for GoogleTest XML files given directly (FILE or FILE=EXIT), one per test binary run."""
    total = Counts()
    for arg in args:
        path, code = parse_xml_arg(arg)
        name = os.path.basename(path)
        if name.endswith(".xml"):
            name = name[:-len(".xml")]
        counts = parse_test_xml(path)
        if counts is None:
            counts = Counts()
            counts.failed = 1
            counts.failures.append("(no readable XML {}{}: crashed, timed out or did not run)".format(
                path, "" if code is None else "; exit status {}".format(code)))
        elif code not in (None, 0) and counts.failed == 0:
            counts.failed += 1
            counts.failures.append("(exit status {} after its test cases passed: crash, sanitizer "
                                   "report or timeout; see its log)".format(code))
        total.add(finish_target(name, [counts]))
    return total


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--bep", action="append",
                        help="BEP JSON file (bazel test --build_event_json_file=...); repeat it for "
                             "several invocations (their counts add up)")
    source.add_argument("--testlogs", help="directory to walk for test.xml (default bazel-testlogs)")
    source.add_argument("--xml", nargs="*", metavar="FILE[=EXIT]",
                        help="GoogleTest XML files, one per test binary run (EXIT: its exit status)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    args = parser.parse_args(argv)
    if args.bep:
        missing = [b for b in args.bep if not os.path.exists(b)]
        if missing:
            print("test_summary: no BEP file {}".format(", ".join(missing)), file=sys.stderr)
            print(Counts().line())
            return 2
        total = Counts()
        for bep in args.bep:
            total.add(summarize_bep(bep))
    elif args.xml is not None:
        total = summarize_xml_files(args.xml)
    else:
        total = summarize_testlogs(args.testlogs or "bazel-testlogs")
    if not args.quiet:
        for failure in total.failures:
            print("FAILED: " + failure)
    print(total.line())
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
