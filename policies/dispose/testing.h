// Copyright 2026 The custody Authors.
//
// policies/dispose/testing.h — the dispose policy's test idiom, `PolicyIdiom<dispose::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_DISPOSE_TESTING_H_
#define CUSTODY_POLICIES_DISPOSE_TESTING_H_

#include <cstdint>

#include "policies/dispose/dispose.h"
#include "core/policy_idiom.h"

namespace custody {

// A temporary an error skipped is lost (no owner frees it) and listed by leak_report().
template <>
struct PolicyIdiom<dispose::Policy>
    : LosesOnErrorIdiom<&dispose::leak_report, &dispose::live_references, &dispose::testing::next_serial,
                        &dispose::testing::release_created_on_this_thread_since> {
  // The stress test: beside the generic ops, C#'s `using var`, each temporary held by disposing().
  template <class T>
  struct StressThread : StressThreadDefaults {
    template <class Ops>
    bool iteration(int /*thread_id*/, int64_t /*i*/, Ops&& ops) {
      ops();
      auto x = dispose::disposing(T::ones({4, 4}));  // `using var`
      auto y = dispose::disposing(x.mul(3.0f));
      auto total = dispose::disposing(y.sum());
      return total.template item<float>() == 48.0f;
    }
  };
};

}  // namespace custody

#endif  // CUSTODY_POLICIES_DISPOSE_TESTING_H_
