// Copyright 2026 The custody Authors.
//
// The small model in the compare tool (:compare and every host binary of it),
// run when named: --workloads=small_model.

#include "tools/compare/register.h"
#include "workloads/small_model/small_model.h"

namespace custody::compare {
namespace {

[[maybe_unused]] const bool registered =
    register_generic_workload<workloads::small_model::SmallModel>(Selection::kWhenNamed);

}  // namespace
}  // namespace custody::compare
