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
// with `custody::release` (policy-generic: reset, dispose or free); the
// variants of its idiom that a policy declares (PolicyIdiom::benchmark_variants,
// listed in its testing.h: giving tensors back in bulk, or releasing with
// something of the policy's set around the loop) as
// `<policy>:<backend>:<variant>`, each kEachOp variant in every case and each
// kOneOp variant in tiny_add only; and the peers `libtorch` (at::Tensor copy,
// at::empty({1}), a + b; the alias peer is an at::Tensor copy,
// `libtorch_alias_op` is `a.alias()`, a new TensorImpl) and
// `libtorch_inference_mode` (a + b under c10::InferenceMode). A collecting
// policy's contenders report collections and finalizations per iteration.

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/all_host_backends.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllPolicies;
using custody::lists::AllHostBackends;

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

// Runs `make()` (a fresh tensor) once per iteration and gives the result back
// the way `variant` says.
template <AnyTensor T, class Make>
void create_and_drop(benchmark::State& state, const BenchmarkVariant& variant, Make make) {
  run_variant<typename T::policy_type>(state, variant, [&](auto release) {
    T c = make();
    if constexpr (decltype(release)::value) {
      custody::release(c);
    } else {
      benchmark::DoNotOptimize(c);
    }
  });
}

template <AnyTensor T>
void alias_release(benchmark::State& state, const BenchmarkVariant& variant) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = T::ones({1});
  create_and_drop<T>(state, variant, [&] { return a.alias(); });
  custody::release(a);
}

template <AnyTensor T>
void empty_1(benchmark::State& state, const BenchmarkVariant& variant) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  create_and_drop<T>(state, variant, [] { return T::empty({1}); });
}

template <AnyTensor T>
void tiny_add(benchmark::State& state, const BenchmarkVariant& variant) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = T::ones({1});
  T b = T::ones({1});
  create_and_drop<T>(state, variant, [&] { return a + b; });
  custody::release(a);
  custody::release(b);
}

// Registers `body(state, variant)` for T as "<case>/<contender>", plus the
// variants its policy declares for every case and, in the case that samples
// them (`sampled`), those for one case.
template <AnyTensor T, class Body>
void add_with_variants(const std::string& case_name, Body body, bool sampled) {
  add(case_name, contender<T>(), [body](benchmark::State& s) { body(s, kReleaseEach); });
  for (const BenchmarkVariant& v : PolicyIdiom<typename T::policy_type>::benchmark_variants()) {
    if (v.loop == BenchmarkLoop::kEachOp || (sampled && v.loop == BenchmarkLoop::kOneOp)) {
      add(case_name, contender<T>(v.name), [body, &v](benchmark::State& s) { body(s, v); });
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
    add_with_variants<T>("alias_release", alias_release<T>, /*sampled=*/false);
    add_with_variants<T>("empty_1", empty_1<T>, /*sampled=*/false);
    add_with_variants<T>("tiny_add", tiny_add<T>, /*sampled=*/true);
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
