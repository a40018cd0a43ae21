// Copyright 2026 The custody Authors.
//
// policies/policy_benchmark.cc — what a handle costs under each ownership
// policy, on every host backend, against the same thing done with at::Tensor:
//
//   handle_copy/<contender>    copy-construct a handle and destroy it (under
//                              dispose, scope and gc: a second reference to the same alias/entry;
//                              under manual: a plain value copy; tensor_ptr: a refcount)
//   alias_release/<contender>  `t.alias()` (a fresh +1 reference) and its release
//   empty_1/<contender>        `T::empty({1})` and its release
//   tiny_add/<contender>       `c = a + b` on 1-element float tensors and its release
//
// Contenders: `<policy>:<backend>` for every policy and host backend, releasing
// with `custody::release` (policy-generic: reset, dispose or free); the idioms
// that give tensors back in bulk instead, per policy:
//   scope:<b>:inner_scope_every_1000   no release; a fresh inner dispose scope every 1000 iterations
//   gc:<b>:release_trigger_8MiB        release right away, with the pressure trigger (8 MiB) set:
//                                      libgc's own collections come less often under a trigger
//                                      (Note [The collector's own schedule under a trigger], gc/schedule.cc)
//   gc:<b>:collect_every_1000          no release; gc::collect() every 1000 iterations
//   gc:<b>:trigger_8MiB                no release; the pressure trigger (8 MiB) collects
// and the peers `libtorch` (at::Tensor copy, at::empty({1}), a + b; the
// alias peer is an at::Tensor copy, `libtorch_alias_op` is `a.alias()`, a new
// TensorImpl) and `libtorch_inference_mode` (a + b under c10::InferenceMode).
// gc contenders report collections and finalizations per iteration.

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "benchmark/benchmark.h"
#include "policies/gc/benchmark_counters.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/all_host_backends.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllPolicies;
using custody::lists::AllHostBackends;

constexpr int64_t kBulkEvery = 1000;

template <AnyTensor T>
void handle_copy(benchmark::State& state) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = T::ones({1});
  for (auto _ : state) {
    T c = a;
    benchmark::DoNotOptimize(c);
  }
  custody::release(a);
}

// How a benchmark gives back the tensor each iteration creates.
enum class Drop {
  kRelease,         // custody::release right away
  kReleaseTrigger,  // gc: custody::release right away, with the 8 MiB pressure trigger set
  kInnerScope,      // scope: every kBulkEvery iterations, a fresh inner dispose scope
  kCollect,         // gc: gc::collect() every kBulkEvery iterations
  kPressureTrigger  // gc: the 8 MiB pressure trigger
};

// Runs `make()` (a fresh tensor) once per iteration and gives the result back per `drop`.
template <AnyTensor T, class Make>
void create_and_drop(benchmark::State& state, Drop drop, Make make) {
  using P = typename T::policy_type;
  if (drop == Drop::kRelease || drop == Drop::kReleaseTrigger) {
    // kReleaseTrigger: the configuration gc programs run in (Note [No trigger]),
    // which changes libgc's own schedule (Note [The collector's own schedule under a trigger]).
    std::optional<gc::ScopedPressureTrigger> trigger;
    if (drop == Drop::kReleaseTrigger) trigger.emplace(8 << 20);
    for (auto _ : state) {
      T c = make();
      custody::release(c);
    }
  } else if constexpr (std::is_same_v<P, scope::Policy>) {
    std::optional<scope::DisposeScope> inner;
    inner.emplace();
    int64_t i = 0;
    for (auto _ : state) {
      T c = make();
      benchmark::DoNotOptimize(c);
      if (++i % kBulkEvery == 0) {
        inner.reset();
        inner.emplace();
      }
    }
  } else if constexpr (std::is_same_v<P, gc::Policy>) {
    const GcCounters counters;
    if (drop == Drop::kCollect) {
      int64_t i = 0;
      for (auto _ : state) {
        T c = make();
        benchmark::DoNotOptimize(c);
        if (++i % kBulkEvery == 0) gc::collect();
      }
    } else {
      gc::ScopedPressureTrigger trigger(8 << 20);
      for (auto _ : state) {
        T c = make();
        benchmark::DoNotOptimize(c);
      }
    }
    counters.report(state);
  }
}

template <AnyTensor T>
void alias_release(benchmark::State& state, Drop drop) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = T::ones({1});
  create_and_drop<T>(state, drop, [&] { return a.alias(); });
  custody::release(a);
}

template <AnyTensor T>
void empty_1(benchmark::State& state, Drop drop) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  create_and_drop<T>(state, drop, [] { return T::empty({1}); });
}

template <AnyTensor T>
void tiny_add(benchmark::State& state, Drop drop) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = T::ones({1});
  T b = T::ones({1});
  create_and_drop<T>(state, drop, [&] { return a + b; });
  custody::release(a);
  custody::release(b);
}

// Registers `body(state, drop)` for T as "<case>/<contender>", plus the bulk variants of its policy.
template <AnyTensor T, class Body>
void add_with_variants(const std::string& case_name, Body body, bool gc_variants) {
  using P = typename T::policy_type;
  add(case_name, contender<T>(), [body](benchmark::State& s) { body(s, Drop::kRelease); });
  if constexpr (std::is_same_v<P, scope::Policy>) {
    add(case_name, contender<T>("inner_scope_every_1000"),
        [body](benchmark::State& s) { body(s, Drop::kInnerScope); });
  }
  if constexpr (std::is_same_v<P, gc::Policy>) {
    add(case_name, contender<T>("release_trigger_8MiB"),
        [body](benchmark::State& s) { body(s, Drop::kReleaseTrigger); });
    if (gc_variants) {
      add(case_name, contender<T>("collect_every_1000"),
          [body](benchmark::State& s) { body(s, Drop::kCollect); });
      add(case_name, contender<T>("trigger_8MiB"),
          [body](benchmark::State& s) { body(s, Drop::kPressureTrigger); });
    }
  }
}

[[maybe_unused]] const bool registered = [] {
  add("handle_copy", "libtorch", libtorch::handle_copy);
  add("alias_release", "libtorch", libtorch::alias_copy_release);
  add("alias_release", "libtorch_alias_op", libtorch::alias_op_release);
  add_peer("empty_1", "libtorch", &libtorch::empty_release, int64_t{1});
  add_peer("tiny_add", "libtorch", &libtorch::add, int64_t{1});
  add_peer("tiny_add", "libtorch_inference_mode", &libtorch::add_inference_mode, int64_t{1});
  for_each_tensor<AllPolicies, AllHostBackends>([]<class T>() {
    add("handle_copy", contender<T>(), handle_copy<T>);
    add_with_variants<T>("alias_release", alias_release<T>, /*gc_variants=*/false);
    add_with_variants<T>("empty_1", empty_1<T>, /*gc_variants=*/false);
    add_with_variants<T>("tiny_add", tiny_add<T>, /*gc_variants=*/true);
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
