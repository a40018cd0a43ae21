// Copyright 2026 The custody Authors.

#include "custody/report/session.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "custody/report/output.h"
#include "custody/report/html.h"
#include "custody/report/snapshot.h"

namespace custody::report {

Session::Session(MemoryStats& stats, std::string backend, std::string policy)
    : stats_(stats), backend_(std::move(backend)), policy_(std::move(policy)) {
  if (stats_.recording()) {
    throw InvalidArgument(absl::StrCat("report::Session: the ", backend_,
                                       " backend's memory history is being recorded already (another "
                                       "Session, or record_history)"));
  }
  stats_.record_history(true, /*with_sites=*/true);
  stats_.mark();  // the set-up ends here: what follows is the program's
  recording_ = true;
}

Session::~Session() {
  if (recording_) {
    stats_.record_history(false);
    stats_.clear_history();
  }
}

void Session::step() {
  if (!recording_) return;
  stats_.mark();
  ++steps_;
}

void Session::write_snapshot(const std::string& path) {
  if (!recording_) throw InvalidArgument("report::Session::write_snapshot: after write_html (the history is gone)");
  try {
    write_file(path, snapshot_pickle(stats_.history()));
  } catch (const OutputError& e) {
    throw InvalidArgument(absl::StrCat("report::Session::write_snapshot: ", e.what()));
  }
}

HeldDead Session::write_html(const std::string& path, std::string_view title) {
  if (!recording_) throw InvalidArgument("report::Session::write_html: called twice (the history is gone)");
  if (steps_ == 0) stats_.mark();  // one step: everything since the start
  stats_.record_history(false);
  recording_ = false;
  const std::vector<MemoryEvent> history = stats_.history();
  stats_.clear_history();

  ContenderData c;
  c.name = policy_;
  c.policy = policy_;
  c.has_memory = true;
  c.held_dead = held_dead(history);
  c.peak_bytes = c.held_dead.peak_bytes;
  c.lower_bound_bytes = live_set_lower_bound(history);
  for (const SiteHeld& s : c.held_dead.sites) c.leaked_bytes += s.unfreed_bytes;
  int64_t tensors = 0;  // tensors made and not destroyed while recording
  for (const MemoryEvent& e : history) {
    if (e.kind == MemoryEventKind::kTensorCreated) ++tensors;
    if (e.kind == MemoryEventKind::kTensorDestroyed) --tensors;
  }
  c.leaked_tensors = std::max<int64_t>(0, tensors);
  keep_top_sites(c.held_dead, 10);
  WorkloadData w{std::string(title), backend_, "step", "the program, as recorded by custody::report",
                 std::max<int64_t>(1, steps_), {}};
  w.contenders.push_back(c);
  try {
    write_file(path, render_html(title, {w}));
  } catch (const OutputError& e) {
    throw InvalidArgument(absl::StrCat("report::Session::write_html: ", e.what()));
  }
  return c.held_dead;
}

}  // namespace custody::report
