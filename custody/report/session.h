// Copyright 2026 The custody Authors.
//
// custody/report/session.h — the held-dead and leak report for any program on
// one backend's MemoryStats, without the compare tool (custody/report.h binds
// it to the backend the build selects):
//
//   report::Session s(Onednn::stats(), "onednn", "dispose");
//   ... the program; s.step() at the end of each step (optional) ...
//   const report::HeldDead h = s.write_html("report.html");
//
// The Session records the backend's memory history with allocation sites from
// its construction (about a microsecond per allocation; nothing per kernel
// but an event) until write_html() or its destructor, then analyses it
// (held_dead.h) and writes the page of html.h: the timeline by category with
// the live-set bound, the held-dead sites with their stacks, and what was
// never freed (leaks: allocations made while recording and still alive).

#ifndef CUSTODY_CUSTODY_REPORT_SESSION_H_
#define CUSTODY_CUSTODY_REPORT_SESSION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/stats.h"
#include "custody/report/held_dead.h"

namespace custody::report {

class Session {
 public:
  // Starts recording `stats`' history with sites. `backend` and `policy` name
  // what the page shows. The history of `stats` must not be recorded by
  // anyone else meanwhile: InvalidArgument if it is.
  Session(MemoryStats& stats, std::string backend, std::string policy);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();  // stops recording, if write_html() did not

  // Ends a step: the timeline's unit. Without steps the run is one step.
  void step();
  bool recording() const { return recording_; }

  // Stops recording, analyses the history and writes the page to `path`
  // (through a temporary file renamed into place). Returns the analysis.
  // OutputError-like failures throw custody::Error naming the path.
  HeldDead write_html(const std::string& path, std::string_view title = "custody report");
  // Writes the history recorded so far as PyTorch's memory snapshot pickle
  // (custody/report/snapshot.h) to `path`, whole or not at all; recording goes
  // on. InvalidArgument after write_html() or when the file cannot be written.
  void write_snapshot(const std::string& path);

 private:
  MemoryStats& stats_;
  std::string backend_, policy_;
  int64_t steps_ = 0;
  bool recording_ = false;
};

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_SESSION_H_
