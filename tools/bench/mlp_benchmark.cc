// Copyright 2026 The custody Authors.
//
// tools/bench/mlp_benchmark.cc — one training step of the MLP of mlp_step.h
// (batch 64, 784 -> 256 -> 10, relu, softmax cross-entropy, hand-written
// backward, SGD) for every policy on every host backend, against the same step
// in plain libtorch (AtenMlp):
//
//   mlp_step/64x784-256-10/<policy>:<backend>            temporaries given back by custody::release
//   mlp_step/64x784-256-10/<policy>:<backend>:<variant>  each kStep variant the policy's idiom
//                                                        declares (PolicyIdiom::benchmark_variants,
//                                                        listed in its testing.h)
//   mlp_step/64x784-256-10/libtorch                      AtenMlp::step (peer)
//
// A collecting policy's contenders report `collections` and `finalized` per
// step (PolicyIdiom::collector_counts).

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
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

template <AnyTensor T>
void mlp(benchmark::State& state, const BenchmarkVariant& variant) {
  using P = typename T::policy_type;
  [[maybe_unused]] Env<P> env;
  const MlpData data = make_mlp_data();
  Mlp<T> m = make_mlp<T>(data);
  float loss = 0;
  run_variant<P>(state, variant, [&](auto release) {
    if constexpr (decltype(release)::value) {
      loss = mlp_step(m, kLr);
    } else {
      loss = mlp_step(m, kLr, Temporaries::kLeave);
    }
  });
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
    add(kCase, contender<T>(), [](benchmark::State& s) { mlp<T>(s, kReleaseEach); });
    for (const BenchmarkVariant& v : PolicyIdiom<typename T::policy_type>::benchmark_variants()) {
      if (v.loop == BenchmarkLoop::kStep) {
        add(kCase, contender<T>(v.name), [&v](benchmark::State& s) { mlp<T>(s, v); });
      }
    }
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
