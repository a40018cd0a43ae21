// Copyright 2026 The custody Authors.
//
// Instantiates every conformance suite for one (policy, backend) combination.
// //tools/build_defs:matrix.bzl compiles this file once per combination and
// defines which: the policy's contract-suite header, type and suite name, the
// backend's header and type. Nothing here lists policies or backends.

#include "tests/conformance/suites.h"

// From //tools/build_defs:matrix.bzl, for this combination.
#include CUSTODY_POLICY_SUITE_HEADER
#include CUSTODY_BACKEND_HEADER

using TestPolicy = CUSTODY_POLICY_TYPE;
using TestBackend = CUSTODY_BACKEND_TYPE;

using Combination = ::testing::Types<custody::BasicTensor<TestPolicy, TestBackend>>;

// Suites live in namespace custody::testing (their contract suites too).
namespace custody::testing {
CUSTODY_INSTANTIATE_GENERIC_SUITES(Combination);
INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CUSTODY_POLICY_CONTRACT_SUITE, Combination);
}  // namespace custody::testing
