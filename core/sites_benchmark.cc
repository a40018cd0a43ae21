// Copyright 2026 The custody Authors.
//
// core/sites_benchmark.cc — what site tracking (core/sites.h) costs: capture()
// alone, and one 1-element tensor created and released under each policy that
// records sites (dispose, scope, manual, gc), with tracking off and on.
//
//   ./bazelw run -c opt //core:sites_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Arg 0: tracking off, arg 1: tracking on.

#include <benchmark/benchmark.h>

#include "backends/onednn/onednn.h"
#include "core/sites.h"
#include "core/tensor.h"
#include "policies/dispose/dispose.h"
#include "policies/gc/gc.h"
#include "policies/manual/manual.h"
#include "policies/scope/scope.h"

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

// Creates and releases one 1-element tensor per iteration.
template <class Policy>
void create_release_loop(benchmark::State& state) {
  using T = BasicTensor<Policy, Onednn>;
  for (auto _ : state) {
    T t = T::zeros({1});
    release(t);
    benchmark::DoNotOptimize(t);
  }
}

template <class Policy>
void BM_CreateRelease(benchmark::State& state) {
  sites::ScopedTracking tracking(state.range(0) != 0);
  create_release_loop<Policy>(state);
}
BENCHMARK_TEMPLATE(BM_CreateRelease, dispose::Policy)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_CreateRelease, manual::Policy)->Arg(0)->Arg(1);

void BM_CreateRelease_scope(benchmark::State& state) {
  sites::ScopedTracking tracking(state.range(0) != 0);
  auto d = scope::new_dispose_scope();
  create_release_loop<scope::Policy>(state);
}
BENCHMARK(BM_CreateRelease_scope)->Arg(0)->Arg(1);

void BM_CreateRelease_gc(benchmark::State& state) {
  sites::ScopedTracking tracking(state.range(0) != 0);
  create_release_loop<gc::Policy>(state);
  gc::collect();  // the disposed aliases are plain garbage: leave none for the next run
}
BENCHMARK(BM_CreateRelease_gc)->Arg(0)->Arg(1);

}  // namespace
}  // namespace custody
