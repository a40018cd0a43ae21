// Copyright 2026 The custody Authors.
//
// tools/compare/policies.h — `ComparePolicies`, the policies the compare tool
// measures: POLICIES (tools/build_defs/flags.bzl, //custody/lists:policies), or,
// built with CUSTODY_COMPARE_ALL_POLICIES (//tools/compare:compare_all_policies,
// testonly), ALL_POLICIES: the test-only ones too, so a test can see that a
// new policy reaches the tool with no edit here.

#ifndef CUSTODY_TOOLS_COMPARE_POLICIES_H_
#define CUSTODY_TOOLS_COMPARE_POLICIES_H_

#if defined(CUSTODY_COMPARE_ALL_POLICIES)
#include "custody/lists/all_policies.h"
#else
#include "custody/lists/policies.h"
#endif

namespace custody::compare {

#if defined(CUSTODY_COMPARE_ALL_POLICIES)
using ComparePolicies = custody::lists::AllPolicies;
#else
using ComparePolicies = custody::lists::Policies;
#endif

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_POLICIES_H_
