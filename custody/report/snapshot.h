// Copyright 2026 The custody Authors.
//
// custody/report/snapshot.h — a recorded memory history (core/stats.h) as
// PyTorch's memory snapshot, the pickle torch.cuda.memory._snapshot() returns
// and PyTorch's own tools read (torch/cuda/_memory_viz.py: stats, segments,
// memory, compare), so custody's history opens in the tools people know:
//
//   {"segments": [segment, ...], "device_traces": [[trace entry, ...]]}
//
//   segment      {"device": 0, "address", "total_size", "allocated_size",
//                 "active_size", "stream": 0, "segment_type": "large",
//                 "blocks": [block]}
//   block        {"size", "state": "active_allocated",
//                 "history": [{"addr", "real_size", "frames": [frame]}]}
//   trace entry  {"action": "alloc" | "free_completed", "addr", "size",
//                 "stream": 0, "frames": [frame]}
//   frame        {"filename", "line", "name"}   innermost first
//
// custody's allocators have no segments to report (the host cache and the
// CUDA pool hand blocks out of memory they do not describe), so each block is
// a segment of its own. The segments are what was alive at the history's
// peak (HeldDead::peak_bytes in all: what the report and compare.json call
// the peak), the moment a user looks at to lower it; the trace is every
// allocation and free of the history. Frames are the recorded stacks,
// symbolized to file:line with their inlined calls (core/symbolize.h); an
// event recorded without a stack has no frames. custody adds, to each block's
// history entry, "category" and "op" (what made it), and to each free in the
// trace "held_by" (Note [Held by], core/stats.h): extra keys PyTorch's tools
// ignore.

#ifndef CUSTODY_CUSTODY_REPORT_SNAPSHOT_H_
#define CUSTODY_CUSTODY_REPORT_SNAPSHOT_H_

#include <string>
#include <vector>

#include "core/stats.h"

namespace custody::report {

// The pickle (protocol 2) of `history` as a PyTorch memory snapshot.
std::string snapshot_pickle(const std::vector<MemoryEvent>& history);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_SNAPSHOT_H_
