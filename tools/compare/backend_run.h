// Copyright 2026 The custody Authors.
//
// tools/compare/backend_run.h — one backend's run of the compare tool: the
// workloads' plans on it and their measurement. A host backend's run is
// registered by a translation unit of its own that tools/compare/BUILD
// generates from HOST_BACKENDS (tools/build_defs/flags.bzl), so a backend
// reaches the tool as a list entry, with no edit here.

#ifndef CUSTODY_TOOLS_COMPARE_BACKEND_RUN_H_
#define CUSTODY_TOOLS_COMPARE_BACKEND_RUN_H_

#include "tools/compare/compare.h"
#include "tools/compare/measure.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"
#include "tools/compare/registry.h"

namespace custody::compare {

// The run of backend B under ComparePolicies; with the libtorch peer unless
// kLibtorchPeer is false (a device backend, whose peer is PyTorch's own ops).
template <class B, bool kLibtorchPeer = true>
BackendRun backend_run() {
  return BackendRun{B::name, &plans<B, ComparePolicies, kLibtorchPeer>, &measure<B>};
}

}  // namespace custody::compare

// In the generated translation unit of a host backend: registers its run as
// the `order`-th (the position of the backend in HOST_BACKENDS).
#define CUSTODY_COMPARE_REGISTER_BACKEND(B, order)                   \
  static const bool custody_compare_registered_backend [[maybe_unused]] = \
      ::custody::compare::register_backend(order, ::custody::compare::backend_run<B>())

#endif  // CUSTODY_TOOLS_COMPARE_BACKEND_RUN_H_
