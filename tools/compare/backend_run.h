// Copyright 2026 The custody Authors.
//
// tools/compare/backend_run.h — one backend's run of the compare tool: the
// plans of the workloads registered on it (registry.h) and their measurement.
// A host backend's run and its built-in workloads are registered by a
// translation unit of its own that tools/compare/BUILD generates from
// HOST_BACKENDS (tools/build_defs/flags.bzl), so a backend reaches the tool as
// a list entry, with no edit here.

#ifndef CUSTODY_TOOLS_COMPARE_BACKEND_RUN_H_
#define CUSTODY_TOOLS_COMPARE_BACKEND_RUN_H_

#include "tools/compare/compare.h"
#include "tools/compare/measure.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"
#include "tools/compare/registry.h"

namespace custody::compare {

// The run of backend B: the plans registered on it, measured on B.
template <class B>
BackendRun backend_run() {
  return BackendRun{B::name, [](const Options& o) { return registered_plans(B::name, o); }, &measure<B>};
}

// Host backend B in the tool, the `order`-th: the built-in workloads on it
// under ComparePolicies against the libtorch peer, and its run.
template <class B>
bool register_host_backend(int order) {
  register_builtin_workloads<B, ComparePolicies, /*kLibtorchPeer=*/true>();
  return register_backend(order, backend_run<B>());
}

}  // namespace custody::compare

// In the generated translation unit of a host backend: registers it as the
// `order`-th (the position of the backend in HOST_BACKENDS), with its
// built-in workloads.
#define CUSTODY_COMPARE_REGISTER_BACKEND(B, order)                          \
  static const bool custody_compare_registered_backend [[maybe_unused]] = \
      ::custody::compare::register_host_backend<B>(order)

#endif  // CUSTODY_TOOLS_COMPARE_BACKEND_RUN_H_
