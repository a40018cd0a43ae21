// Copyright 2026 The custody Authors.
//
// policies/manual/testing.h — the manual policy's test idiom, `PolicyIdiom<manual::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_MANUAL_TESTING_H_
#define CUSTODY_POLICIES_MANUAL_TESTING_H_

#include <cstdint>

#include "policies/manual/manual.h"
#include "core/policy_idiom.h"

namespace custody {

// The generic suites release every handle they name but also chain
// temporaries (`values_of(a.mul(b))`); under manual those are unfreed +1
// references, so the idiom frees whatever the body created on its thread.
// A temporary an error skipped is lost (no owner frees it) and listed by leak_report().
template <>
struct PolicyIdiom<manual::Policy>
    : LosesOnErrorIdiom<&manual::leak_report, &manual::live_references, &manual::testing::next_serial,
                        &manual::testing::release_created_on_this_thread_since> {
  // The stress test: beside the generic ops, a retained reference and every reference freed by hand.
  template <class T>
  struct StressThread : StressThreadDefaults {
    template <class Ops>
    bool iteration(int /*thread_id*/, int64_t /*i*/, Ops&& ops) {
      ops();
      T x = T::ones({4, 4});
      T y = manual::retain(x);  // a second reference to the same tensor: two frees
      T z = x.mul(2.0f);
      T total = z.sum();
      const bool right = total.template item<float>() == 32.0f;
      total.release();  // custody::release (core/tensor.h): a free each
      z.release();
      y.release();
      x.release();
      return right;
    }
  };
};

}  // namespace custody

#endif  // CUSTODY_POLICIES_MANUAL_TESTING_H_
