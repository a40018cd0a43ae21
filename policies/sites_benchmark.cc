// Copyright 2026 The custody Authors.
//
// policies/sites_benchmark.cc — what site tracking (core/sites.h) adds to
// creating and releasing one 1-element tensor on onednn, under every policy
// (those that record sites: dispose, scope, manual, gc; the others are the
// baseline), with tracking off and on:
//
//   ./bazelw run -c opt //policies:sites_benchmark -- --benchmark_repetitions=5
//
// "create_release/tracking_off/<policy>:onednn", ".../tracking_on/...".

#include "backends/onednn/onednn.h"
#include "benchmark/benchmark.h"
#include "core/sites.h"
#include "core/tensor.h"
#include "custody/lists/all_policies.h"
#include "testing/bench/bench_util.h"

namespace custody::bench {
namespace {

using custody::lists::AllPolicies;

template <AnyTensor T>
void create_release(benchmark::State& state, bool tracking) {
  sites::ScopedTracking tracked(tracking);
  [[maybe_unused]] Env<typename T::policy_type> env;  // a dispose scope under scope; collections under gc
  for (auto _ : state) {
    T t = T::zeros({1});
    release(t);
    benchmark::DoNotOptimize(t);
  }
}

[[maybe_unused]] const bool registered = [] {
  for_each_tensor<AllPolicies, TypeList<Onednn>>([]<class T>() {
    add("create_release/tracking_off", contender<T>(),
        [](benchmark::State& s) { create_release<T>(s, false); });
    add("create_release/tracking_on", contender<T>(),
        [](benchmark::State& s) { create_release<T>(s, true); });
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
