// Copyright 2026 The custody Authors.
//
// core/sites_benchmark.cc — what site tracking (core/sites.h) costs: capture()
// alone, with tracking off and on. What it adds to creating and releasing a
// tensor under each policy: //policies:sites_benchmark.
//
//   ./bazelw run -c opt //core:sites_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Arg 0: tracking off, arg 1: tracking on.

#include <benchmark/benchmark.h>

#include "core/sites.h"

namespace custody {
namespace {

void BM_Capture(benchmark::State& state) {
  sites::ScopedTracking tracking(state.range(0) != 0);
  for (auto _ : state) {
    auto site = sites::capture();
    benchmark::DoNotOptimize(site);
  }
}
BENCHMARK(BM_Capture)->Arg(0)->Arg(1);

}  // namespace
}  // namespace custody
