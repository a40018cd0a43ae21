// Copyright 2026 The custody Authors.
//
// policies/gc/gc_collect_benchmark.cc — what one gc::collect() costs with
// little garbage, in a process that has libtorch (and its ~330 shared
// libraries) loaded: the aten backend runs an at:: op before the benchmarks.
//
//   ./bazelw run -c opt //policies/gc:gc_collect_benchmark --
//       --benchmark_repetitions=30 --benchmark_report_aggregates_only=true
//
// Arguments: garbage tensors made before each collection, and scan_all:
// 0 = the policy's default root filter (Note [Static roots] in gc.h),
// 1 = gc::set_scan_all_libraries(true) (libgc's own behaviour: every
// library's static data). Reports min, median and mean over the repetitions,
// and the static data scanned/skipped per collection.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "backends/aten/aten.h"
#include "core/tensor.h"
#include "policies/gc/gc.h"

namespace custody {
namespace {

using T = BasicTensor<gc::Policy, Aten>;

// A few live handles the collector must keep (one in static data, the rest in
// a gc::vector) and a little garbage per collection.
gc::vector<T>* live_handles() {
  static auto* v = new gc::vector<T>();
  return v;
}
T g_static_handle;

__attribute__((noinline)) void make_garbage(int n) {
  for (int i = 0; i < n; ++i) {
    T t = T::ones({4});
    benchmark::DoNotOptimize(t);
  }
}

void setup() {
  static bool done = false;
  if (done) return;
  done = true;
  g_static_handle = T::ones({2, 2}).add(1);  // an at:: kernel: libtorch is loaded and used
  for (int i = 0; i < 64; ++i) live_handles()->push_back(T::ones({8}));
  gc::collect();
}

void BM_Collect(benchmark::State& state) {
  setup();
  const int garbage = static_cast<int>(state.range(0));
  const bool old_scan_all = gc::scan_all_libraries();
  gc::set_scan_all_libraries(state.range(1) != 0);
  gc::collect();  // the first collection under this setting re-registers the roots
  for (auto _ : state) {
    state.PauseTiming();
    make_garbage(garbage);
    state.ResumeTiming();
    benchmark::DoNotOptimize(gc::collect());
  }
  const gc::Stats s = gc::stats();
  gc::set_scan_all_libraries(old_scan_all);
  state.counters["gc_heap_bytes"] = static_cast<double>(s.gc_heap_bytes);
  state.counters["roots_kB_scanned"] = static_cast<double>(s.root_bytes_scanned) / 1e3;
  state.counters["roots_kB_skipped"] = static_cast<double>(s.root_bytes_skipped) / 1e3;
  state.counters["objects_scanned"] = static_cast<double>(s.root_objects_scanned);
  state.counters["objects_skipped"] = static_cast<double>(s.root_objects_skipped);
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

BENCHMARK(BM_Collect)
    ->ArgNames({"garbage", "scan_all"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({16, 0})
    ->Args({16, 1})
    ->Unit(benchmark::kMicrosecond)
    ->ComputeStatistics("min", min_of);

}  // namespace
}  // namespace custody
