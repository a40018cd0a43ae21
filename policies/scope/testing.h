// Copyright 2026 The custody Authors.
//
// policies/scope/testing.h — the scope policy's test idiom, `PolicyIdiom<scope::Policy>`
// (testing/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_SCOPE_TESTING_H_
#define CUSTODY_POLICIES_SCOPE_TESTING_H_

#include <cstdint>

#include "policies/scope/scope.h"
#include "testing/policy_idiom.h"

namespace custody::testing {

template <>
struct PolicyIdiom<scope::Policy> : DefaultPolicyIdiom {
  using Guard = scope::DisposeScope;
  // Tensors can only be created inside a dispose scope; a body's are disposed when it ends.
  using Region = scope::DisposeScope;
};

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_SCOPE_TESTING_H_
