// Copyright 2026 The custody Authors.
//
// tests/extra_policy/testing.h — the counted policy's test idiom: nothing
// around the body (handles give their references back as they go).

#ifndef CUSTODY_TESTS_EXTRA_POLICY_TESTING_H_
#define CUSTODY_TESTS_EXTRA_POLICY_TESTING_H_

#include "core/policy_idiom.h"
#include "tests/extra_policy/counted.h"

namespace custody {

template <>
struct PolicyIdiom<counted::Policy> : DefaultPolicyIdiom {};

}  // namespace custody

#endif  // CUSTODY_TESTS_EXTRA_POLICY_TESTING_H_
