// Copyright 2026 The custody Authors.
//
// policies/manual/testing.h — the manual policy's test idiom, `PolicyIdiom<manual::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_MANUAL_TESTING_H_
#define CUSTODY_POLICIES_MANUAL_TESTING_H_

#include <cstdint>

#include "policies/manual/manual.h"
#include "core/policy_idiom.h"

namespace custody {

// The generic suites release every handle they name but also chain
// temporaries (`values_of(a.mul(b))`); under manual those are unfreed +1
// references, so the idiom frees whatever the body created on its thread.
// A temporary an error skipped is lost (no owner frees it) and listed by leak_report().
template <>
struct PolicyIdiom<manual::Policy>
    : LosesOnErrorIdiom<&manual::leak_report, &manual::live_references, &manual::testing::next_serial,
                        &manual::testing::release_created_on_this_thread_since> {};

}  // namespace custody

#endif  // CUSTODY_POLICIES_MANUAL_TESTING_H_
