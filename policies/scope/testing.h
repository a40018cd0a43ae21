// Copyright 2026 The custody Authors.
//
// policies/scope/testing.h — the scope policy's test idiom, `PolicyIdiom<scope::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_SCOPE_TESTING_H_
#define CUSTODY_POLICIES_SCOPE_TESTING_H_

#include <cstdint>
#include <span>

#include "policies/scope/scope.h"
#include "core/policy_idiom.h"

namespace custody {

template <>
struct PolicyIdiom<scope::Policy> : DefaultPolicyIdiom {
  // A dispose scope around the test; what is still registered in it when it
  // ends is what the guard gave back (a tensor disposed by another thread
  // stays registered, empty, and counts too: the threads suites dispose on
  // the creating thread).
  struct Guard {
    scope::DisposeScope scope;
    Guard() = default;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { guard_gave_back().fetch_add(scope.size()); }
  };
  // Tensors can only be created inside a dispose scope; a body's are disposed when it ends.
  using Region = scope::DisposeScope;

  // The stress test: an outer scope for the whole thread and one per iteration (everything made in
  // the iteration dies with it), but for a running sum moved to the outer scope each iteration;
  // at the thread's end it must be 8 per iteration.
  template <class T>
  struct StressThread : StressThreadDefaults {
    scope::DisposeScope outer;  // first: ends after `kept`
    T kept = T::zeros({4});
    int64_t iterations = 0;

    StressThread() = default;
    StressThread(const StressThread&) = delete;
    StressThread& operator=(const StressThread&) = delete;

    template <class Ops>
    bool iteration(int /*thread_id*/, int64_t /*i*/, Ops&& ops) {
      scope::DisposeScope step;
      ops();
      T x = T::ones({4}).mul(2.0f);
      T next = kept.add(x);
      next.move_to_outer_dispose_scope();  // survives this iteration's scope
      kept.dispose();
      kept = next;
      ++iterations;
      return true;
    }
    bool ok() {
      T total = kept.sum();
      return total.template item<float>() == 8.0f * static_cast<float>(iterations);
    }
  };

  // Benchmarks. inner_scope_every_1000 / scope_per_step: no release; a fresh
  // inner dispose scope every 1000 iterations / around each step disposes
  // what was created in the last one.
  static std::span<const BenchmarkVariant> benchmark_variants() {
    static constexpr BenchmarkVariant kVariants[] = {
        {.name = "inner_scope_every_1000",
         .loop = BenchmarkLoop::kEachOp,
         .give_back = BenchmarkGiveBack::kRegion,
         .every = 1000},
        {.name = "scope_per_step",
         .loop = BenchmarkLoop::kStep,
         .give_back = BenchmarkGiveBack::kRegion,
         .every = 1},
    };
    return kVariants;
  }
};

}  // namespace custody

#endif  // CUSTODY_POLICIES_SCOPE_TESTING_H_
