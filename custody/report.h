// Copyright 2026 The custody Authors.
//
// custody/report.h — where a program holds tensor memory past its last use,
// by the line that made it, without the compare tool: the same page the
// compare tool writes (report.html), for one program on the backend and
// policy the build selects.
//
//   #include "custody/report.h"            // deps = ["//custody:report"]
//   custody::report::start();
//   for (int i = 0; i < steps; ++i) {
//     train_step();
//     custody::report::step();             // optional: the timeline's unit
//   }
//   custody::report::write_html("report.html");
//
// Or with no change to the code, for any binary that links //custody:report:
//
//   CUSTODY_REPORT=/tmp/report.html ./bazelw run //my:program
//
// records from start-up and writes the page at exit. The page shows bytes in
// use over the steps stacked by category (parameters, inputs, activations,
// gradients, temporaries), the live-set bound (what freeing every tensor
// right after its last use would need), the creation sites holding memory
// past its last use with their stacks, and the allocations still alive at the
// end (leaks, with their sites). Recording costs about a microsecond per
// allocation and an event per kernel operand: for diagnosis, not production.
// Sites are named by the first frame outside namespace custody (Note [Folding
// sites], custody/report/held_dead.cc).

#ifndef CUSTODY_CUSTODY_REPORT_H_
#define CUSTODY_CUSTODY_REPORT_H_

#include <string>

#include "custody/report/held_dead.h"

namespace custody::report {

// Starts recording the selected backend's memory history with allocation
// sites. InvalidArgument if a report is being recorded already.
void start();
// Ends a step (does nothing when no report is being recorded).
void step();
// Whether start() was called and write_html() not yet.
bool active();
// Stops recording and writes the page to `path` (whole or not at all);
// returns the analysis (the top sites). InvalidArgument if start() was not
// called or the file cannot be written (the message names the path and why).
HeldDead write_html(const std::string& path);
// Writes what was recorded since start() as PyTorch's memory snapshot
// (custody/report/snapshot.h: the blocks alive at the peak with their stacks,
// and every allocation and free), for torch/cuda/_memory_viz.py; recording
// goes on. InvalidArgument if no report is being recorded or the file cannot
// be written. CUSTODY_SNAPSHOT=path does it at exit (and starts recording if
// CUSTODY_REPORT did not).
void write_snapshot(const std::string& path);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_H_
