// Copyright 2026 The custody Authors.
//
// tools/compare/policies.h — `ComparePolicies`, the policies the compare tool
// measures: POLICIES (tools/build_defs/flags.bzl, //testing:policies), or,
// built with CUSTODY_COMPARE_ALL_POLICIES (//tools/compare:compare_all_policies,
// testonly), ALL_POLICIES: the test-only ones too, so a test can see that a
// new policy reaches the tool with no edit here.

#ifndef CUSTODY_TOOLS_COMPARE_POLICIES_H_
#define CUSTODY_TOOLS_COMPARE_POLICIES_H_

#if defined(CUSTODY_COMPARE_ALL_POLICIES)
#include "testing/all_policies.h"
#else
#include "testing/policies.h"
#endif

namespace custody::compare {

#if defined(CUSTODY_COMPARE_ALL_POLICIES)
using ComparePolicies = custody::testing::AllPolicies;
#else
using ComparePolicies = custody::testing::Policies;
#endif

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_POLICIES_H_
