// Copyright 2026 The custody Authors.
//
// policies/dispose/testing.h — the dispose policy's test idiom, `PolicyIdiom<dispose::Policy>`
// (testing/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_DISPOSE_TESTING_H_
#define CUSTODY_POLICIES_DISPOSE_TESTING_H_

#include <cstdint>

#include "policies/dispose/dispose.h"
#include "testing/policy_idiom.h"

namespace custody::testing {

template <>
struct PolicyIdiom<dispose::Policy> : DefaultPolicyIdiom {
  using Guard = ReleaseCreatedSince<&dispose::testing::next_serial,
                                    &dispose::testing::release_created_on_this_thread_since>;

  // A temporary an error skipped is lost (no owner frees it) and listed by leak_report().
  static constexpr bool kLosesOnError = true;
  static int64_t reported_leaks() { return static_cast<int64_t>(dispose::leak_report().size()); }
  static int64_t live_references() { return dispose::live_references(); }
  static uint64_t next_serial() { return dispose::testing::next_serial(); }
  static void release_since(uint64_t serial) {
    dispose::testing::release_created_on_this_thread_since(serial);
  }
};

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_DISPOSE_TESTING_H_
