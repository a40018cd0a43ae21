// Copyright 2026 The custody Authors.
//
// policies/manual/testing.h — the manual policy's test idiom, `PolicyIdiom<manual::Policy>`
// (testing/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_MANUAL_TESTING_H_
#define CUSTODY_POLICIES_MANUAL_TESTING_H_

#include <cstdint>

#include "policies/manual/manual.h"
#include "testing/policy_idiom.h"

namespace custody::testing {

// The generic suites release every handle they name but also chain
// temporaries (`values_of(a.mul(b))`); under manual those are unfreed +1
// references, so the idiom frees whatever the body created on its thread.
template <>
struct PolicyIdiom<manual::Policy> : DefaultPolicyIdiom {
  using Guard = ReleaseCreatedSince<&manual::testing::next_serial,
                                    &manual::testing::release_created_on_this_thread_since>;

  // A temporary an error skipped is lost (no owner frees it) and listed by leak_report().
  static constexpr bool kLosesOnError = true;
  static int64_t reported_leaks() { return static_cast<int64_t>(manual::leak_report().size()); }
  static int64_t live_references() { return manual::live_references(); }
  static uint64_t next_serial() { return manual::testing::next_serial(); }
  static void release_since(uint64_t serial) {
    manual::testing::release_created_on_this_thread_since(serial);
  }
};

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_MANUAL_TESTING_H_
