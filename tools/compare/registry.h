// Copyright 2026 The custody Authors.
//
// tools/compare/registry.h — workloads beyond the built-in three (mlp, llama,
// ops), registered by the binaries of the custody_workload macro
// (tools/build_defs/workload.bzl) so that their compare tool accepts
// --workloads=<name>. A registration is per backend: the plan of the
// workload's contenders on that backend (register.h makes them).

#ifndef CUSTODY_TOOLS_COMPARE_REGISTRY_H_
#define CUSTODY_TOOLS_COMPARE_REGISTRY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/compare/compare.h"

namespace custody::compare {

using PlanFactory = std::function<WorkloadPlan(const Options&)>;

// Adds workload `name` on `backend`; a second registration of the same pair
// is an InvalidArgument (two workloads of one name would shadow each other).
bool register_workload(const std::string& name, const std::string& backend, PlanFactory plan);

// The names registered, in the order first registered.
std::vector<std::string> registered_workloads();

// The plan factory of `name` on `backend`, or nullptr.
const PlanFactory* find_workload(std::string_view name, std::string_view backend);

// The backends the tool can run (BackendRun, compare.h): each host backend's
// generated translation unit registers its run (backend_run.h), `order` its
// place in HOST_BACKENDS; registered_backends() lists them in that order.
bool register_backend(int order, BackendRun run);
std::vector<BackendRun> registered_backends();

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_REGISTRY_H_
