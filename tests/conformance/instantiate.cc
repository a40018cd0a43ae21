// Copyright 2026 The custody Authors.
//
// Instantiates the lifetime suites and the policy's contract suite for one
// (policy, backend) combination. //tools/build_defs:matrix.bzl compiles this
// file once per combination and defines which: the policy's contract-suite
// header, type and suite name, the backend's header and type. Nothing here
// lists policies or backends.

#include "tests/conformance/lifetime_suites.h"

// From //tools/build_defs:matrix.bzl, for this combination.
#include CUSTODY_POLICY_SUITE_HEADER
#include CUSTODY_BACKEND_HEADER

using TestPolicy = CUSTODY_POLICY_TYPE;
using TestBackend = CUSTODY_BACKEND_TYPE;

using Combination = ::testing::Types<custody::BasicTensor<TestPolicy, TestBackend>>;

// Every suite, the policies' contract suites included, is in custody::testing.
namespace custody::testing {
CUSTODY_INSTANTIATE_LIFETIME_SUITES(Combination);
INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CUSTODY_POLICY_CONTRACT_SUITE, Combination);
}  // namespace custody::testing
