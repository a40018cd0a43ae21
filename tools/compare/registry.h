// Copyright 2026 The custody Authors.
//
// tools/compare/registry.h — the workloads and backends of the compare tool.
// Every workload reaches the tool by register_workload, once per backend, with
// the factory of its plans on that backend: the built-in ones (mlp, llama, ops,
// serve: register_builtin_workloads, plans.h) from each backend's translation
// unit (backend_run.h, backend_cuda.cc) under that unit's policy list, an own
// workload from the one file the custody_workload macro
// (tools/build_defs/workload.bzl) generates (register.h). compare.cc takes
// --workloads' names, their order and its default from here; each backend's
// run asks registered_plans for the plans of the workloads chosen.
//
// The registrations are made by static initializers; the tables are
// function-local statics, so they exist before the first registration
// whatever the order the translation units initialize in. A library holding
// registrations is alwayslink (tools/compare/BUILD, workload.bzl).

#ifndef CUSTODY_TOOLS_COMPARE_REGISTRY_H_
#define CUSTODY_TOOLS_COMPARE_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/compare/compare.h"

namespace custody::compare {

// The plans of a workload on one backend, given the options and the steps
// each plan runs (registered_plans resolves them from --steps, --quick and the
// registration's counts): one plan, or several for a workload run several
// ways (serve: one per worker count).
using PlansFactory = std::function<std::vector<WorkloadPlan>(const Options&, int64_t steps)>;

// Whether a workload runs when --workloads is not given.
enum class Selection {
  kDefault,    // in --workloads' default list, and run by it
  kWhenNamed,  // in --workloads' default list, yet run only when --workloads is given and names it
  kOwn,        // a custody_workload's: not in that list; a binary with one runs its kOwn workloads
               // by default, in place of the list
};

struct WorkloadRegistration {
  std::string name;     // --workloads=<name>, WorkloadPlan::name
  std::string backend;  // BackendRun::name
  Selection selection = Selection::kDefault;
  int64_t steps = 0;        // the steps of a run without --steps ...
  int64_t quick_steps = 0;  // ... and under --quick
  PlansFactory plans;
};

// Adds a workload on its backend; a second registration of the same name and
// backend is an InvalidArgument (two workloads of one name would shadow each
// other).
bool register_workload(WorkloadRegistration r);

// The names registered: the tool's (every selection but kOwn), then the own
// workloads, each in the order first registered.
std::vector<std::string> registered_workloads();

// --workloads' default list: the names registered other than kOwn ones.
std::vector<std::string> default_workloads();

// The names registered as kOwn (a custody_workload binary's).
std::vector<std::string> own_workloads();

// The plans on `backend` of the workloads of o.workloads, in that order; a
// kWhenNamed workload only when o.workloads_given. A name not registered on
// the backend is an InvalidArgument.
std::vector<WorkloadPlan> registered_plans(std::string_view backend, const Options& o);

// The backends the tool can run (BackendRun, compare.h): each host backend's
// generated translation unit registers its run (backend_run.h), `order` its
// place in HOST_BACKENDS; registered_backends() lists them in that order.
bool register_backend(int order, BackendRun run);
std::vector<BackendRun> registered_backends();

}  // namespace custody::compare

#endif  // CUSTODY_TOOLS_COMPARE_REGISTRY_H_
