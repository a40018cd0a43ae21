// Copyright 2026 The custody Authors.
//
// policies/gc/benchmark_counters.h — `GcCounters`: what the collector did over
// a benchmark's timing loop, as Google Benchmark counters.

#ifndef CUSTODY_POLICIES_GC_BENCHMARK_COUNTERS_H_
#define CUSTODY_POLICIES_GC_BENCHMARK_COUNTERS_H_

#include <cstdint>

#include "benchmark/benchmark.h"
#include "policies/gc/gc.h"

namespace custody::bench {

// Counters from gc::stats() deltas over a benchmark's timing loop, per
// iteration: `collections` (by any cause) and `finalized` (references given
// back by finalizers). Construct before the loop, report() after it.
class GcCounters {
 public:
  GcCounters() : start_(gc::stats()) {}
  void report(benchmark::State& state) const {
    const gc::Stats now = gc::stats();
    const auto per_iteration = [](int64_t n) {
      return benchmark::Counter(static_cast<double>(n), benchmark::Counter::kAvgIterations);
    };
    state.counters["collections"] = per_iteration(now.collections - start_.collections);
    state.counters["finalized"] = per_iteration(now.finalized - start_.finalized);
  }

 private:
  gc::Stats start_;
};

}  // namespace custody::bench

#endif  // CUSTODY_POLICIES_GC_BENCHMARK_COUNTERS_H_
