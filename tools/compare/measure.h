// Copyright 2026 The custody Authors.
//
// tools/compare/measure.h — how one contender is measured on backend B:
//
//  1. timing pass: a fresh runner, one warm-up step, then `steps` steps timed
//     one by one (wall clock, from a synchronized device to a synchronized
//     device: B::synchronize(), a no-op on the host backends); finish().
//  2. memory pass (custody contenders): a fresh runner with the backend's
//     memory history recording (core/stats.h) from before its set-up; `steps`
//     steps, each ended by a mark; finish(). From the history: the peak of
//     bytes in use, the live-set lower bound (the peak had every allocation
//     been freed right after its last use), the timeline, the memory held
//     past its last use by creation site (the history records each
//     allocation's stack: custody/report/held_dead.h); from the counters:
//     live tensors after the last step, bytes and tensors left after finish().
// Recording costs a lock per event, so the passes are separate: timings never
// include it. A collecting contender's collector runs before each pass and
// what it left behind is given back after it (its policy's hooks,
// CollectorHooks), so no pass inherits another's garbage.

#ifndef CUSTODY_TOOLS_COMPARE_MEASURE_H_
#define CUSTODY_TOOLS_COMPARE_MEASURE_H_

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "core/error.h"
#include "core/stats.h"
#include "custody/report/snapshot.h"
#include "tools/compare/compare.h"

namespace custody::compare {

inline void summarize_times(Measurement& m) {
  std::vector<double> t = m.step_ms;
  std::sort(t.begin(), t.end());
  if (t.empty()) return;
  m.min_ms = t.front();
  m.median_ms = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
}

// The timeline and per-step peaks of a history whose kMark events end steps.
inline void read_history(const std::vector<MemoryEvent>& h, int64_t base, Measurement& m) {
  std::vector<size_t> marks;
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].kind == MemoryEventKind::kMark) marks.push_back(i);
  }
  // Mark 0 ends the set-up; mark k ends step k.
  size_t next_mark = 0;
  int64_t step_peak = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    const MemoryEvent& e = h[i];
    m.peak_bytes = std::max(m.peak_bytes, e.bytes_in_use - base);
    if (e.kind == MemoryEventKind::kMark) {
      if (next_mark > 0) m.step_peak_bytes.push_back(step_peak);
      step_peak = e.bytes_in_use - base;
      ++next_mark;
      continue;
    }
    step_peak = std::max(step_peak, e.bytes_in_use - base);
    if (e.kind != MemoryEventKind::kAlloc && e.kind != MemoryEventKind::kFree) continue;
    double step = 0;
    if (next_mark > 0 && next_mark < marks.size()) {
      const double t0 = h[marks[next_mark - 1]].time_s, t1 = h[marks[next_mark]].time_s;
      step = static_cast<double>(next_mark - 1) + (t1 > t0 ? (e.time_s - t0) / (t1 - t0) : 0);
    } else if (next_mark >= marks.size() && !marks.empty()) {
      step = static_cast<double>(marks.size() - 1);  // finish()
    }
    m.timeline.push_back({step, e.bytes_in_use - base});
  }
}

template <class B>
Measurement measure(const Contender& c, int64_t steps, bool sites = true, bool snapshot = false) {
  using Clock = std::chrono::steady_clock;
  Measurement m;
  m.contender = c.name;
  m.policy = c.policy;
  m.collects = c.collector.collects;
  MemoryStats& stats = B::stats();

  // A collecting contender's collector may keep a few dead aliases alive (a
  // conservative scan of the stack): they are counted as leaked below, then
  // given back so that the next pass starts from what it left. Made on any
  // thread: a runner's threads (serve's workers) end with its finish().
  const CollectorHooks& collector = c.collector;
  const auto dispose_stragglers = [&collector, since = collector.straggler_serial()] {
    collector.release_stragglers_since(since);
  };
  collector.collect();
  {
    std::unique_ptr<workloads::Runner> r = c.make();
    r->step();  // warm-up: caches, primitives, thread pools
    ThrowIfError(B::synchronize());
    m.step_ms.reserve(static_cast<size_t>(steps));
    for (int64_t i = 0; i < steps; ++i) {
      const auto t0 = Clock::now();
      r->step();
      ThrowIfError(B::synchronize());  // a device backend's kernels may still be queued
      m.step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    m.metric = r->metric();
    m.figures = r->figures();
    r->finish();
  }
  summarize_times(m);
  if (c.is_peer()) return m;

  dispose_stragglers();
  collector.collect();
  m.has_memory = true;
  const auto memory_pass_start = Clock::now();
  const StatsSnapshot before = stats.snapshot();
  const CollectorCounts collector_before = collector.counts();
  stats.record_history(true, /*with_sites=*/sites);
  {
    std::unique_ptr<workloads::Runner> r = c.make();
    stats.mark();
    for (int64_t i = 0; i < steps; ++i) {
      r->step();
      stats.mark();
    }
    m.live_tensors = stats.snapshot().live_tensors - before.live_tensors;
    const CollectorCounts collector_after = collector.counts();
    m.collections = collector_after.collections - collector_before.collections;
    m.finalized = collector_after.finalized - collector_before.finalized;
    r->finish();
  }
  stats.record_history(false);
  m.memory_record_ms = std::chrono::duration<double, std::milli>(Clock::now() - memory_pass_start).count();
  const std::vector<MemoryEvent> history = stats.history();
  stats.clear_history();
  const StatsSnapshot after = stats.snapshot();
  m.leaked_bytes = after.bytes_in_use - before.bytes_in_use;
  m.leaked_tensors = after.live_tensors - before.live_tensors;
  m.lower_bound_bytes = live_set_lower_bound(history);
  read_history(history, before.bytes_in_use, m);
  m.held_dead = report::held_dead(history);
  if (snapshot) m.snapshot = report::snapshot_pickle(history);
  report::keep_top_sites(m.held_dead, kHeldDeadSites);
  m.memory_pass_ms = std::chrono::duration<double, std::milli>(Clock::now() - memory_pass_start).count();
  dispose_stragglers();
  return m;
}

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_MEASURE_H_
