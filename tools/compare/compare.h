// Copyright 2026 The custody Authors.
//
// tools/compare/compare.h — the pieces of the compare tool (compare.cc):
// contenders, what is measured about each, and the per-backend entry points
// (backend_<name>.cc instantiate measure.h's templates for one backend each).

#ifndef CUSTODY_TOOLS_COMPARE_COMPARE_H_
#define CUSTODY_TOOLS_COMPARE_COMPARE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/policy_idiom.h"
#include "custody/report/held_dead.h"
#include "workloads/workload.h"

namespace custody::compare {

struct Options {
  std::vector<std::string> workloads;  // the names registered (registry.h) to run, in order
  bool workloads_given = false;        // --workloads named them (else the default list)
  std::vector<std::string> contenders;  // empty: all; else names such as "scope", "gc:trigger_8MiB", "libtorch"
  int64_t steps = 0;  // 0: each workload's default (or its quick count under --quick)
  bool quick = false;
  bool all_backends = false;
  bool list_contenders = false;  // print the contenders and exit
  std::string out_dir;
  std::string llama_checkpoint;  // a llama2.c .bin file; empty: seeded random weights
  bool sites = true;  // record allocation sites in the memory pass (the held-dead report by site)
  bool snapshots = false;  // write each memory pass as PyTorch's memory snapshot (a .pickle)
  int64_t ops_size = 0;      // ops: rows = cols of its state; 0: the workload's default (1024)
  int64_t ops_tiny_ops = 0;  // ops: one-element ops per round; 0: the workload's default (64)
};

// One workload under one policy (and gc mode), or the libtorch peer.
// What the compare tool calls of a contender's policy around its passes: its
// PolicyIdiom's collector hooks (core/policy_idiom.h), which do nothing for a
// policy that does not collect and for the peer.
struct CollectorHooks {
  bool collects = false;  // PolicyIdiom::kCollects
  void (*collect)() = [] {};
  CollectorCounts (*counts)() = [] { return CollectorCounts{}; };
  uint64_t (*straggler_serial)() = [] { return uint64_t{0}; };
  int64_t (*release_stragglers_since)(uint64_t) = [](uint64_t) { return int64_t{0}; };
};

template <class P>
CollectorHooks collector_hooks() {
  using Idiom = PolicyIdiom<P>;
  return {Idiom::kCollects, &Idiom::collect, &Idiom::collector_counts, &Idiom::straggler_serial,
          &Idiom::release_stragglers_since};
}

struct Contender {
  std::string name;    // "scope", "gc:trigger", "libtorch", ...
  std::string policy;  // "scope", ..., "" for the libtorch peer
  std::function<std::unique_ptr<workloads::Runner>()> make;
  CollectorHooks collector = {};
  bool is_peer() const { return policy.empty(); }
};

struct WorkloadPlan {
  std::string name;         // "mlp"
  std::string variant;      // "" or, for a workload run several ways, which ("2 workers")
  std::string unit;         // what one step is: "training step", "token", "round"
  std::string description;
  int64_t steps = 0;
  // The sizes the workload runs with, by name (JSON "shapes"): what a reader
  // (and compare_test) computes the expected live set from.
  std::vector<std::pair<std::string, int64_t>> shapes;
  std::vector<Contender> contenders;  // the libtorch peer last
  std::shared_ptr<const void> data;   // keeps the workload's inputs alive
};

// A point of the memory timeline: bytes in use after an event, at `step`
// (fractional: the position between the marks that end each step).
struct TimelinePoint {
  double step;
  int64_t bytes;
};

struct Measurement {
  std::string contender, policy;
  std::vector<double> step_ms;      // timing pass, one per step
  double median_ms = 0, min_ms = 0;
  double metric = 0;                // the runner's metric after the last step
  bool has_memory = false;          // custody contenders only
  bool collects = false;            // its policy collects (the table prints its counts)
  int64_t peak_bytes = 0;           // memory pass, above the bytes in use before it
  int64_t lower_bound_bytes = 0;    // live-set lower bound of the same history
  int64_t live_tensors = 0;         // after the last step, above the count before the pass
  int64_t leaked_bytes = 0;         // after finish()
  int64_t leaked_tensors = 0;
  int64_t collections = 0, finalized = 0;  // the collector's counts over the memory pass
  std::vector<int64_t> step_peak_bytes;    // the highest bytes in use within each step
  std::vector<TimelinePoint> timeline;
  double memory_pass_ms = 0;  // the memory pass, recording and analysis included (wall clock)
  double memory_record_ms = 0;  // of which the recording: the steps run with the history on
  std::vector<workloads::Figure> figures;  // the runner's own, after the timing pass (Runner::figures)
  // Memory held past its last use, by creation site (custody/report/held_dead.h),
  // from the memory pass's history recorded with sites; `sites` keeps the top kHeldDeadSites
  // by held dead and by bytes at the peak, and the leaks (report::keep_top_sites).
  report::HeldDead held_dead;
  std::string snapshot;  // --snapshots: the memory pass as PyTorch's snapshot pickle (report/snapshot.h)
};
inline constexpr size_t kHeldDeadSites = 10;

struct BackendRun {
  std::string name;
  std::function<std::vector<WorkloadPlan>(const Options&)> plans;
  std::function<Measurement(const Contender&, int64_t steps, bool sites, bool snapshot)> measure;
};

BackendRun cuda_run();  // backend_cuda.cc (compare_cuda, --config=cuda: no libtorch peer)

// The backends one binary of the tool runs, given the options, after setting up
// its threads: selected_cpu.cc in //tools/compare:compare (the flag-selected
// host backend, or every host backend with --all_backends: those registered,
// registry.h), selected_cuda.cc in //tools/compare:compare_cuda (cuda).
std::vector<BackendRun> backends_to_run(const Options& o);

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_COMPARE_H_
