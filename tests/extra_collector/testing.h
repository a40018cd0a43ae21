// Copyright 2026 The custody Authors.
//
// tests/extra_collector/testing.h — the deferred policy's test idiom,
// `PolicyIdiom<deferred::Policy>` (core/policy_idiom.h): a collecting policy
// whose collection is giving back the queue of dropped references. The Guard,
// Reap and Region give back the queue at their end (the Region at its start
// too); what they give back was dropped by the code, so it is no reference the
// code kept (nothing is added to guard_gave_back()). Nothing is conservative:
// no stragglers, nothing left to a Reap.

#ifndef CUSTODY_TESTS_EXTRA_COLLECTOR_TESTING_H_
#define CUSTODY_TESTS_EXTRA_COLLECTOR_TESTING_H_

#include <cstdint>

#include "core/policy_idiom.h"
#include "tests/extra_collector/deferred.h"

namespace custody {

template <>
struct PolicyIdiom<deferred::Policy> : DefaultPolicyIdiom {
  // Gives back the queue when it goes.
  struct Flush {
    Flush() = default;
    Flush(const Flush&) = delete;
    Flush& operator=(const Flush&) = delete;
    ~Flush() { deferred::collect(); }
  };

  using Guard = Flush;
  static void settle() { deferred::collect(); }

  struct Reap : Flush {
    Reap() = default;
    explicit Reap(AllThreads) {}
  };

  // Starts from an empty queue and leaves none to the next body.
  struct Region : Flush {
    Region() { deferred::collect(); }
  };

  static constexpr bool kCollects = true;
  static void collect() { deferred::collect(); }
  struct PressureTrigger {
    explicit PressureTrigger(int64_t bytes) : trigger(bytes) {}
    deferred::ScopedPressureTrigger trigger;
  };
  static CollectorCounts collector_counts() {
    const deferred::Stats s = deferred::stats();
    return {s.collections, s.given_back};
  }
};

}  // namespace custody

#endif  // CUSTODY_TESTS_EXTRA_COLLECTOR_TESTING_H_
