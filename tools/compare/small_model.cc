// Copyright 2026 The custody Authors.
//
// tools/compare/small_model.cc — workloads/small_model in the compare tool (:compare and every host binary of it),
// run when named: --workloads=small_model. Compiled twice (BUILD): under the
// policies and backends the tool ships, and under all of them, the test-only
// ones too, for :compare_all_policies.

#include "tools/compare/register.h"
#include "workloads/small_model/small_model.h"

#if defined(CUSTODY_COMPARE_ALL_POLICIES)
#include "custody/lists/all_host_backends.h"
#endif

namespace custody::compare {
namespace {

#if defined(CUSTODY_COMPARE_ALL_POLICIES)
using Backends = lists::AllHostBackends;  // :compare_all_policies runs the test-only backends too
#else
using Backends = lists::HostBackends;
#endif

[[maybe_unused]] const bool registered =
    register_generic_workload<workloads::small_model::SmallModel, Backends>(Selection::kWhenNamed);

}  // namespace
}  // namespace custody::compare
