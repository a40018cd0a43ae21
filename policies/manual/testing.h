// Copyright 2026 The custody Authors.
//
// policies/manual/testing.h — the manual policy's test idiom, `PolicyIdiom<manual::Policy>`
// (testing/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_MANUAL_TESTING_H_
#define CUSTODY_POLICIES_MANUAL_TESTING_H_

#include "policies/manual/manual.h"
#include "testing/policy_idiom.h"

namespace custody::testing {

// The generic suites release every handle they name but also chain
// temporaries (`values_of(a.mul(b))`); under manual those are unfreed +1
// references, so the idiom frees whatever the body created on its thread.
template <>
struct PolicyIdiom<manual::Policy> {
  using Guard = ReleaseCreatedSince<&manual::testing::next_serial,
                                    &manual::testing::release_created_on_this_thread_since>;
  static void settle() {}
};

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_MANUAL_TESTING_H_
