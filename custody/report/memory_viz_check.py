#!/usr/bin/python3
"""Reads custody's memory snapshots (custody/report/snapshot.h) with PyTorch's own reader,
torch/cuda/_memory_viz.py (Debian's python3-torch), as a user would, and prints what it found as
JSON, one object per file:

    /usr/bin/python3 memory_viz_check.py a.pickle [b.pickle ...]

  {"path", "total_size": stats()'s total (it asserts each segment's total equals its blocks),
   "segments": stats()'s count, "states": {state: bytes}, "memory": memory()'s collapsed lines,
   "segment_lines": how many lines segments() made, "compare_lines": how many compare() made
   against the same snapshot with its first segment left out, "allocs"/"frees": the trace's
   actions}

Run by Debian's interpreter (the one python3-torch is built for), whatever python runs the test.
The flamegraph step is replaced by one that returns the collapsed lines: the default downloads
flamegraph.pl, which cannot work offline.
"""

import json
import pickle
import sys

from torch.cuda import _memory_viz


def lines(collapsed):
    return collapsed


def check(path):
    with open(path, "rb") as f:
        snapshot = pickle.load(f)
    segments = snapshot["segments"]
    s = _memory_viz.stats(segments)
    states = {k: v.value for k, v in s.items() if isinstance(v, _memory_viz.Bytes) and k != "total_size"}
    memory = _memory_viz.memory(segments, format_flamegraph=lines)
    seg = _memory_viz.segments(segments, format_flamegraph=lines)
    cmp = _memory_viz.compare(segments[1:], segments, format_flamegraph=lines)
    trace = snapshot["device_traces"][0]
    return {
        "path": path,
        "total_size": s["total_size"].value,
        "segments": s["segments"],
        "states": states,
        "memory": memory.splitlines(),
        "segment_lines": len(seg.splitlines()),
        "compare_lines": len(cmp.splitlines()),
        "allocs": sum(1 for t in trace if t["action"] == "alloc"),
        "frees": sum(1 for t in trace if t["action"] == "free_completed"),
    }


if __name__ == "__main__":
    # compare() prints the segments only in one snapshot: keep stdout for the JSON.
    real_stdout, sys.stdout = sys.stdout, sys.stderr
    result = [check(p) for p in sys.argv[1:]]
    sys.stdout = real_stdout
    json.dump(result, sys.stdout)
