// Copyright 2026 The custody Authors.
//
// tools/bench/mlp_benchmark.cc — one training step of the MLP of mlp_step.h
// (batch 64, 784 -> 256 -> 10, relu, softmax cross-entropy, hand-written
// backward, SGD) for every policy on every host backend, against the same step
// in plain libtorch (AtenMlp):
//
//   mlp_step/64x784-256-10/<policy>:<backend>     temporaries given back by custody::release
//   mlp_step/64x784-256-10/scope:<b>:scope_per_step        one dispose scope per step, no release
//   mlp_step/64x784-256-10/gc:<b>:trigger_8MiB              no release; the pressure trigger collects
//   mlp_step/64x784-256-10/gc:<b>:collect_every_step        no release; gc::collect() after each step
//   mlp_step/64x784-256-10/libtorch                         AtenMlp::step (peer)
//
// gc contenders report `collections` and `finalized` per step (gc::stats()).

#include <cstdint>
#include <string>
#include <type_traits>

#include "benchmark/benchmark.h"
#include "policies/gc/benchmark_counters.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/all_host_backends.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"
#include "tools/bench/mlp_step.h"
#include "tools/bench/mlp_step_aten.h"

namespace custody::bench {
namespace {

using custody::lists::AllPolicies;
using custody::lists::AllHostBackends;

constexpr float kLr = 0.01f;
const char* const kCase = "mlp_step/64x784-256-10";

enum class Variant { kRelease, kScopePerStep, kGcTrigger, kGcCollectEveryStep };

template <AnyTensor T>
void mlp(benchmark::State& state, Variant variant) {
  using P = typename T::policy_type;
  [[maybe_unused]] Env<P> env;
  const MlpData data = make_mlp_data();
  Mlp<T> m = make_mlp<T>(data);
  float loss = 0;
  if constexpr (std::is_same_v<P, gc::Policy>) {
    const GcCounters counters;
    if (variant == Variant::kGcTrigger) {
      gc::ScopedPressureTrigger trigger(8 << 20);
      for (auto _ : state) loss = mlp_step(m, kLr, Temporaries::kLeave);
    } else if (variant == Variant::kGcCollectEveryStep) {
      for (auto _ : state) {
        loss = mlp_step(m, kLr, Temporaries::kLeave);
        gc::collect();
      }
    } else {
      for (auto _ : state) loss = mlp_step(m, kLr);
    }
    counters.report(state);
  } else if constexpr (std::is_same_v<P, scope::Policy>) {
    if (variant == Variant::kScopePerStep) {
      for (auto _ : state) {
        scope::DisposeScope per_step;
        loss = mlp_step(m, kLr, Temporaries::kLeave);
      }
    } else {
      for (auto _ : state) loss = mlp_step(m, kLr);
    }
  } else {
    for (auto _ : state) loss = mlp_step(m, kLr);
  }
  benchmark::DoNotOptimize(loss);
  release_mlp(m);
}

void mlp_libtorch(benchmark::State& state) {
  libtorch::warm_up();
  const MlpData data = make_mlp_data();
  AtenMlp net(data);
  float loss = 0;
  for (auto _ : state) loss = net.step(kLr);
  benchmark::DoNotOptimize(loss);
}

[[maybe_unused]] const bool registered = [] {
  add(kCase, "libtorch", mlp_libtorch);
  for_each_tensor<AllPolicies, AllHostBackends>([]<class T>() {
    using P = typename T::policy_type;
    add(kCase, contender<T>(), [](benchmark::State& s) { mlp<T>(s, Variant::kRelease); });
    if constexpr (std::is_same_v<P, scope::Policy>) {
      add(kCase, contender<T>("scope_per_step"),
          [](benchmark::State& s) { mlp<T>(s, Variant::kScopePerStep); });
    }
    if constexpr (std::is_same_v<P, gc::Policy>) {
      add(kCase, contender<T>("trigger_8MiB"),
          [](benchmark::State& s) { mlp<T>(s, Variant::kGcTrigger); });
      add(kCase, contender<T>("collect_every_step"),
          [](benchmark::State& s) { mlp<T>(s, Variant::kGcCollectEveryStep); });
    }
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
