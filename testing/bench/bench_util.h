// Copyright 2026 The custody Authors.
//
// testing/bench/bench_util.h — what the *_benchmark.cc files share:
//
//   * loops over the lists of policies and backends generated from
//     tools/build_defs/flags.bzl (`for_each_tensor<AllPolicies, HostBackends>`,
//     each benchmark including the lists it uses): a benchmark body is written
//     once as a template over the tensor type and registered in a loop, so a
//     new policy is benchmarked with no edit here. This header names no policy
//     and no backend;
//   * benchmark names `<case>/<contender>` (`contender<T>()` is
//     "tensor_ptr:onednn"; the peers are "libtorch", "onednn_direct",
//     "omp_loop"), which tools/bench/report.py groups by case;
//   * `Env<Policy>`: what a policy's idiom needs around a benchmark body
//     (PolicyIdiom::Region: an open dispose scope under scope; no garbage
//     left behind under gc);
//   * `run_variant<Policy>`: a timing loop run the way one of the policy's
//     benchmark variants says (PolicyIdiom::benchmark_variants: releasing
//     each tensor, or giving them back in bulk), with the collector's
//     counters (`CollectorCounters`) of a policy that collects.
//
//   for_each_tensor<AllPolicies, HostBackends>([]<class T>() {
//     add("tiny_add", contender<T>(), [](benchmark::State& state) {
//       [[maybe_unused]] Env<typename T::policy_type> env;
//       T a = T::ones({1}), b = T::ones({1});
//       for (auto _ : state) {
//         T c = a + b;
//         custody::release(c);
//       }
//       custody::release(a);
//       custody::release(b);
//     });
//   });
//
// Every benchmark measures real (wall) time: kernels run on several threads.

#ifndef CUSTODY_TESTING_BENCH_BENCH_UTIL_H_
#define CUSTODY_TESTING_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/tensor.h"
#include "core/policy_idiom.h"
#include "custody/lists/type_list.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {

// The loops over the generated lists (custody/lists/type_list.h). A benchmark
// includes the lists it registers for itself: custody/lists/all_policies.h
// (AllPolicies: ALL_POLICIES, the test-only ones too, as the cheapest handles
// there are), custody/lists/host_backends.h (HostBackends).
using custody::lists::for_each_tensor;
using custody::lists::for_each_type;
using custody::lists::TypeList;

// "tensor_ptr:onednn", with an optional variant: "gc:onednn:collect_every_1000".
template <AnyTensor T>
std::string contender(const std::string& variant = "") {
  std::string name = absl::StrCat(T::policy_type::name, ":", T::backend_type::name);
  if (!variant.empty()) absl::StrAppend(&name, ":", variant);
  return name;
}

// Registers `fn(state)` as "<case>/<contender>", measured in real time.
// (Google Benchmark appends "/real_time" to the name; report.py strips it.)
//
// Every body starts with libtorch initialized (libtorch::warm_up()), whatever
// ran before it: libtorch's first op sets the calling thread's OpenMP thread
// count to libtorch's default (at::init_num_threads; 1 on some machines),
// which oneDNN called directly and the OpenMP loops then use. Without this, a
// benchmark that happens to run before any libtorch op (random interleaving)
// would run with other thread settings than its repetitions after one.
// (custody's onednn backend applies its own count before each primitive; one
// count for everything is configure_threads()'s job, testing/bench/threads.h.)
template <class Fn>
benchmark::internal::Benchmark* add(const std::string& case_name, const std::string& who, Fn fn) {
  return benchmark::RegisterBenchmark(absl::StrCat(case_name, "/", who).c_str(),
                                      [fn](benchmark::State& state) {
                                        libtorch::warm_up();
                                        fn(state);
                                      })
      ->UseRealTime();
}
// The same for a peer body `fn(state, args...)` defined elsewhere (libtorch_peers.h).
template <class Fn, class... Args>
benchmark::internal::Benchmark* add_peer(const std::string& case_name, const std::string& who,
                                         Fn fn, Args... args) {
  return add(case_name, who, [fn, args...](benchmark::State& state) { fn(state, args...); });
}

// What a policy's idiom needs alive around a benchmark body (its
// PolicyIdiom::Region, core/policy_idiom.h: a dispose scope under scope, a
// collected heap before and after under gc). Tensors the body creates before
// its timing loop are released by the body after it.
template <class Policy>
using Env = typename custody::PolicyIdiom<Policy>::Region;

// What a collecting policy's collector did over a benchmark's timing loop
// (PolicyIdiom::collector_counts), as counters per iteration: `collections`
// (by any cause) and `finalized` (references given back by finalizers).
// Construct before the loop, report() after it; a policy that does not
// collect reports nothing.
template <class Policy>
class CollectorCounters {
  using Idiom = custody::PolicyIdiom<Policy>;

 public:
  CollectorCounters() : start_(Idiom::collector_counts()) {}
  void report(benchmark::State& state) const {
    if constexpr (Idiom::kCollects) {
      const CollectorCounts now = Idiom::collector_counts();
      const auto per_iteration = [](int64_t n) {
        return benchmark::Counter(static_cast<double>(n), benchmark::Counter::kAvgIterations);
      };
      state.counters["collections"] = per_iteration(now.collections - start_.collections);
      state.counters["finalized"] = per_iteration(now.finalized - start_.finalized);
    }
  }

 private:
  CollectorCounts start_;
};

// A policy's benchmark variants (core/policy_idiom.h, "Benchmarks").
using BenchmarkVariant = DefaultPolicyIdiom::BenchmarkVariant;
using BenchmarkLoop = DefaultPolicyIdiom::BenchmarkLoop;
using BenchmarkGiveBack = DefaultPolicyIdiom::BenchmarkGiveBack;

// Every policy's plain contender "<policy>:<backend>": each tensor released right away.
inline constexpr BenchmarkVariant kReleaseEach{
    .name = "", .loop = BenchmarkLoop::kEachOp, .give_back = BenchmarkGiveBack::kRelease};

// Runs the timing loop of `state` with `step(release)` as its body, where
// `release` is std::true_type when the body gives back what it creates
// (custody::release) and std::false_type when `variant` leaves that to the
// idiom: a PressureTrigger open around the loop, a fresh Region every
// `variant.every` iterations, or a collection every `variant.every`
// iterations. The choice is made outside the loop, so the loop holds the body
// and, for a bulk variant, one countdown. A policy that collects reports its
// CollectorCounters.
template <class Policy, class Step>
void run_variant(benchmark::State& state, const BenchmarkVariant& variant, Step step) {
  using Idiom = custody::PolicyIdiom<Policy>;
  const CollectorCounters<Policy> counters;
  {
    std::optional<typename Idiom::PressureTrigger> trigger;
    if (variant.trigger_bytes > 0) trigger.emplace(variant.trigger_bytes);
    switch (variant.give_back) {
      case BenchmarkGiveBack::kRelease:
        for (auto _ : state) step(std::true_type{});
        break;
      case BenchmarkGiveBack::kLeave:
        for (auto _ : state) step(std::false_type{});
        break;
      case BenchmarkGiveBack::kRegion: {
        std::optional<typename Idiom::Region> region;
        region.emplace();
        int64_t left = variant.every;
        for (auto _ : state) {
          step(std::false_type{});
          if (--left == 0) {
            left = variant.every;
            region.reset();
            region.emplace();
          }
        }
        break;
      }
      case BenchmarkGiveBack::kCollect: {
        int64_t left = variant.every;
        for (auto _ : state) {
          step(std::false_type{});
          if (--left == 0) {
            left = variant.every;
            Idiom::collect();
          }
        }
        break;
      }
    }
  }
  counters.report(state);
}

// Flat float32 tensors of `sizes` with normal values (custody's Philox stream
// seeded with `seed`), for inputs created before a timing loop.
template <AnyTensor T>
T input(IntSpan sizes, uint64_t seed = 1) {
  manual_seed(seed);
  return T::randn(sizes);
}
template <AnyTensor T>
T input(std::initializer_list<int64_t> sizes, uint64_t seed = 1) {
  return input<T>(IntSpan(sizes.begin(), sizes.size()), seed);
}

}  // namespace custody::bench

#endif  // CUSTODY_TESTING_BENCH_BENCH_UTIL_H_
