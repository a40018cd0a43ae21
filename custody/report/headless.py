"""Opens a report.html (custody/report/html.h) in headless Chromium, as a person
would open it in a browser, and says what rendered.

The page is loaded from a file:// URL with the hash #selftest: its own script
then hovers every chart's peak marker and the middle of every chart and writes
what appeared into <pre id="selftest"> (JSON). Chromium dumps the DOM after the
scripts ran; this module reads that back together with the page's error count
(window.onerror and console.error, counted by the page into
body[data-errors]) and the console messages Chromium logged.

Chromium is Debian's `chromium` (./bazelw installs it). It runs without its
sandbox (tests run as root here and inside Bazel's sandbox), with a fresh
profile in a temporary directory, and with every host name unresolvable, so
the page cannot reach the network even if it tried.
"""

import html
import json
import os
import re
import shutil
import subprocess
import tempfile


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("no chromium on PATH: apt install chromium (./bazelw installs it)")


def _run(args, timeout=120):
    with tempfile.TemporaryDirectory() as profile:
        env = dict(os.environ, HOME=profile)
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--disable-background-networking", "--disable-component-update",
               "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile,
               "--enable-logging=stderr", "--v=0"] + args
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                              env=env, check=False)


def open_report(path):
    """Returns {"errors": int, "charts": int, "rendered": bool, "selftest": [...],
    "console": [console messages Chromium logged], "dom": str}."""
    url = "file://" + os.path.abspath(path) + "#selftest"
    proc = _run(["--virtual-time-budget=5000", "--dump-dom", url])
    dom = proc.stdout
    if proc.returncode != 0 or not dom:
        raise RuntimeError("chromium failed (%d) on %s:\n%s" % (proc.returncode, path, proc.stderr[-3000:]))
    body = re.search(r"<body([^>]*)>", dom)
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', body.group(1))) if body else {}
    selftest = re.search(r'<pre id="selftest">(.*?)</pre>', dom, re.S)
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    return {
        "errors": int(attrs.get("errors", "-1")),
        "charts": int(attrs.get("charts", "0")),
        "rendered": attrs.get("rendered") == "yes",
        "selftest": json.loads(html.unescape(selftest.group(1))) if selftest and selftest.group(1) else [],
        "console": console,
        "dom": dom,
    }


def screenshot(path, png, width=1200, height=1900):
    """Writes a PNG of the top of the page, `width` x `height` pixels."""
    proc = _run(["--hide-scrollbars", "--window-size=%d,%d" % (width, height), "--screenshot=" + png,
                 "file://" + os.path.abspath(path)])
    if proc.returncode != 0 or not os.path.exists(png):
        raise RuntimeError("chromium failed (%d) on %s:\n%s" % (proc.returncode, path, proc.stderr[-3000:]))
