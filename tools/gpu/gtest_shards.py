#!/usr/bin/env python3
"""gtest_shards: one GoogleTest binary run as N shards at once, every case's result kept whatever
happens to a shard (tools/gpu/device_check.sh and run.sh run each test binary through it).

    python3 gtest_shards.py --shards N --timeout SECONDS --xml OUT.xml --log OUT.log -- COMMAND [ARG...]

Shard I of N (I = 0 .. N-1) runs `COMMAND ARG... --gtest_output=xml:FILE` with GTEST_TOTAL_SHARDS=N and
GTEST_SHARD_INDEX=I, so GoogleTest runs every N-th case of the binary in each, all N at once; when
OMP_NUM_THREADS is not set, each gets the CPUs divided by N (oneDNN's OpenMP pool in N processes would
otherwise start N times as many threads as there are CPUs). The shards share one deadline: at SECONDS,
each one still running gets SIGTERM, and SIGKILL 10 s later (as `timeout --kill-after=10`).

GoogleTest writes its XML only when the binary ends, so a shard that is killed or crashes writes none.
OUT.xml holds every case of every shard: a shard's own XML when it wrote one; otherwise the cases its
output shows finished (`[       OK ]`, `[  FAILED  ]`, `[  SKIPPED ]`), the case it was running when it
was killed or died as failed ("timed out while running", "died while running"), and, when no case was
running, one failed case `(shard I of N).(no case running)` saying how the shard ended. A shard that
exited non-zero although its XML shows no failure (a crash or sanitizer report after the XML was
written) also adds one failed case, so OUT.xml alone has every failure. Cases a killed shard never
reached are not in OUT.xml; the summary line says how many shards were cut short.

OUT.log: every shard's output, one after another, each under a `== shard I of N: ...` line (exit status
and seconds).

Prints one line: `N shards` and what went wrong (`; shard I timed out while running CASE`, ...).
Exit status: 0 when every shard exited 0; 124 when one timed out (137 when one outlived SIGTERM and was
killed); else the status of the first shard that failed (128 + the signal's number for a shard killed by one); 2 on bad usage. SIGTERM or SIGINT to this
script stops the shards as the deadline would, and it exits 128 + that signal's number.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

KILL_AFTER_S = 10
# What a failure recovered from a shard's output quotes of it: the last lines the case printed.
QUOTED_LINES = 20
# GoogleTest's progress lines; a name ends at a space or a comma (", where GetParam() = ...").
_PROGRESS = re.compile(r"\[ +(RUN|OK|FAILED|SKIPPED) +\] ([^\s,]+)")


class Shard:
    def __init__(self, index, total, workdir):
        self.index = index
        self.total = total
        self.xml = os.path.join(workdir, "shard-%d-of-%d.xml" % (index, total))
        self.log = os.path.join(workdir, "shard-%d-of-%d.log" % (index, total))
        self.proc = None
        self.started = 0.0
        self.seconds = 0.0
        self.rc = None
        self.terminated_at = None  # when SIGTERM was sent
        self.killed = False        # SIGKILL sent
        self.timed_out = False

    def label(self):
        return "shard %d of %d" % (self.index, self.total)

    def how_it_ended(self):
        if self.timed_out:
            return "timed out (killed after %.0f s)" % self.seconds
        if self.rc is not None and self.rc > 128:
            return "killed by signal %d" % (self.rc - 128)
        return "exit status %s" % self.rc


def exit_status(returncode):
    """subprocess's returncode as a shell gives it: 128 + N for a process killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def _signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run_shards(shards, command, timeout_s, stop):
    """Starts every shard, waits for all of them, stopping those still running at the deadline (or
    when stop() says so). Fills rc, seconds, timed_out."""
    cpus = os.cpu_count() or 1
    for s in shards:
        env = dict(os.environ)
        env["GTEST_TOTAL_SHARDS"] = str(s.total)
        env["GTEST_SHARD_INDEX"] = str(s.index)
        if "OMP_NUM_THREADS" not in env:
            env["OMP_NUM_THREADS"] = str(max(1, cpus // s.total))
        with open(s.log, "wb") as log:
            s.started = time.monotonic()
            # A session of its own: the deadline stops the shard and whatever it started (a launcher
            # script execs the binary, but a shell wrapper might not).
            s.proc = subprocess.Popen(command + ["--gtest_output=xml:" + s.xml], env=env,
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True)
    deadline = time.monotonic() + timeout_s
    running = list(shards)
    while running:
        now = time.monotonic()
        for s in list(running):
            rc = s.proc.poll()
            if rc is not None:
                s.rc = exit_status(rc)
                s.seconds = now - s.started
                running.remove(s)
                continue
            if s.terminated_at is None and (now >= deadline or stop()):
                s.timed_out = now >= deadline
                s.terminated_at = now
                _signal_group(s.proc, signal.SIGTERM)
            elif s.terminated_at is not None and not s.killed and now - s.terminated_at >= KILL_AFTER_S:
                s.killed = True
                _signal_group(s.proc, signal.SIGKILL)
        if running:
            time.sleep(0.05)
    for s in shards:
        if s.timed_out:
            s.rc = 137 if s.killed else 124


def _read_xml(path):
    try:
        with open(path, "rb") as f:
            return ET.fromstring(f.read())
    except (OSError, ET.ParseError):
        return None


def _split(name):
    suite, dot, case = name.partition(".")
    return (suite, case) if dot else ("", name)


def _case(suite_el, name, verdict, message="", text=""):
    classname, case = _split(name)
    el = ET.SubElement(suite_el, "testcase", name=case, classname=classname, status="run",
                       result="skipped" if verdict == "SKIPPED" else "completed")
    if verdict == "FAILED":
        failure = ET.SubElement(el, "failure", message=message)
        failure.text = text
    elif verdict == "SKIPPED":
        ET.SubElement(el, "skipped", message=message)
    return el


def recover_from_log(shard):
    """A <testsuite> of the cases the shard's output shows, for a shard that wrote no readable XML."""
    try:
        with open(shard.log, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    suite = ET.Element("testsuite", name="(%s, from its output: it wrote no XML)" % shard.label())
    running, output, seen = None, [], set()
    for line in lines:
        m = _PROGRESS.search(line)
        if m is None:
            if running is not None:
                output.append(line)
            continue
        verdict, name = m.group(1), m.group(2)
        if verdict == "RUN":
            running, output = name, []
            continue
        if name != running or name in seen:
            continue  # GoogleTest's closing list of failed cases, or noise
        seen.add(name)
        # Output printed on the line before the verdict (no newline) stays with the case.
        if m.start() > 0:
            output.append(line[:m.start()])
        quoted = "\n".join(output[-QUOTED_LINES:])
        _case(suite, name, verdict, "failed (from the shard's output)" if verdict == "FAILED" else "",
              quoted)
        running, output = None, []
    ended = shard.how_it_ended()
    if running is not None:
        what = "timed out while running" if shard.timed_out else "died while running"
        _case(suite, running, "FAILED", "%s (%s %s)" % (what, shard.label(), ended),
              "\n".join(output[-QUOTED_LINES:]))
    else:
        _case(suite, "(%s).(no case running)" % shard.label(), "FAILED",
              "%s %s with no XML and no case running (before the first or after the last case); "
              "see its output" % (shard.label(), ended))
    return suite


def _has_failure(el):
    return any(c.tag in ("failure", "error") for case in el.iter("testcase") for c in case)


def merge(shards, out_xml):
    """Writes out_xml: every shard's cases (its XML, or what recover_from_log finds)."""
    root = ET.Element("testsuites", name="AllTests")
    for s in shards:
        doc = _read_xml(s.xml)
        if doc is None:
            root.append(recover_from_log(s))
            continue
        suites = [doc] if doc.tag == "testsuite" else list(doc.iter("testsuite"))
        for suite in suites:
            root.append(suite)
        if s.rc != 0 and not _has_failure(doc):
            extra = ET.Element("testsuite", name="(%s)" % s.label())
            _case(extra, "(%s).(after its cases)" % s.label(), "FAILED",
                  "%s: %s after its test cases passed (a crash or sanitizer report after the XML was "
                  "written); see its output" % (s.label(), s.how_it_ended()))
            root.append(extra)
    cases = list(root.iter("testcase"))
    root.set("tests", str(len(cases)))
    root.set("failures", str(sum(1 for c in cases if any(x.tag == "failure" for x in c))))
    root.set("errors", "0")
    tmp = out_xml + ".tmp"
    ET.ElementTree(root).write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, out_xml)


def write_log(shards, out_log):
    with open(out_log, "wb") as out:
        for s in shards:
            out.write(("== %s: %s, %.0f s\n" % (s.label(), s.how_it_ended(), s.seconds)).encode())
            try:
                with open(s.log, "rb") as f:
                    shutil.copyfileobj(f, out)
            except OSError as e:
                out.write(("(no output: %s)\n" % e).encode())


def summary_line(shards):
    parts = ["%d shard%s" % (len(shards), "" if len(shards) == 1 else "s")]
    for s in shards:
        if s.rc == 0:
            continue
        running = None
        if _read_xml(s.xml) is None:
            for case in recover_from_log(s).iter("testcase"):
                for f in case.iter("failure"):
                    if "while running" in f.get("message", ""):
                        running = case.get("classname") + "." + case.get("name")
        parts.append("shard %d %s%s" % (s.index, "timed out" if s.timed_out else s.how_it_ended(),
                                        " while running " + running if running else ""))
    return "; ".join(parts)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, required=True, help="processes to split the cases over")
    parser.add_argument("--timeout", type=float, required=True, help="seconds for all the shards")
    parser.add_argument("--xml", required=True, help="the merged GoogleTest XML")
    parser.add_argument("--log", required=True, help="every shard's output")
    parser.add_argument("command", nargs="+", help="the test binary and its arguments (after --)")
    args = parser.parse_args(argv)
    if args.shards < 1:
        parser.error("--shards: at least 1 (got %d)" % args.shards)
    if args.timeout <= 0:
        parser.error("--timeout: seconds, more than 0 (got %g)" % args.timeout)

    stopped = []

    def on_signal(signum, _frame):
        stopped.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    workdir = tempfile.mkdtemp(prefix=".gtest_shards.", dir=os.path.dirname(os.path.abspath(args.xml)))
    try:
        shards = [Shard(i, args.shards, workdir) for i in range(args.shards)]
        try:
            run_shards(shards, args.command, args.timeout, lambda: bool(stopped))
        except OSError as e:  # the command cannot start: every shard failed the same way
            with open(args.log, "w", encoding="utf-8") as f:
                f.write("gtest_shards: cannot run %s: %s\n" % (args.command[0], e))
            for s in shards:
                if s.proc is not None and s.proc.poll() is None:
                    _signal_group(s.proc, signal.SIGKILL)
                    s.proc.wait()
            print("%d shards; cannot run %s: %s" % (args.shards, args.command[0], e))
            return 127
        merge(shards, args.xml)
        write_log(shards, args.log)
        print(summary_line(shards))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if stopped:
        return 128 + stopped[0]
    timed_out = [s.rc for s in shards if s.timed_out]
    if timed_out:
        return max(timed_out)  # 137 when one had to be killed
    return next((s.rc for s in shards if s.rc != 0), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
