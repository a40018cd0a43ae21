// Copyright 2026 The custody Authors.
//
// policies/dispose/testing.h — the dispose policy's test idiom, `PolicyIdiom<dispose::Policy>`
// (testing/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_DISPOSE_TESTING_H_
#define CUSTODY_POLICIES_DISPOSE_TESTING_H_

#include "policies/dispose/dispose.h"
#include "testing/policy_idiom.h"

namespace custody::testing {

template <>
struct PolicyIdiom<dispose::Policy> {
  using Guard = ReleaseCreatedSince<&dispose::testing::next_serial,
                                    &dispose::testing::release_created_on_this_thread_since>;
  static void settle() {}
};

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_DISPOSE_TESTING_H_
