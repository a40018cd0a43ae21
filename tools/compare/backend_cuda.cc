// Copyright 2026 The custody Authors.
//
// tools/compare/backend_cuda.cc — the compare tool's workloads and measurement
// on the cuda backend: the policies only. This binary links no libtorch;
// the peer on a GPU machine is PyTorch's own CUDA ops (tools/gpu/torch_peer.py).
// The built-in workloads register on cuda at static initialization (this file
// is a source of the binary itself, so it is always linked); serve runs only
// when --workloads names it: its threads have not yet run on a device
// (tools/gpu/device_check.sh runs the default list).

#include "backends/cuda/cuda.h"
#include "tools/compare/backend_run.h"
#include "tools/compare/compare.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"
#include "tools/compare/registry.h"

namespace custody::compare {
namespace {

const bool registered_workloads_on_cuda [[maybe_unused]] =
    register_builtin_workloads<Cuda, ComparePolicies, /*kLibtorchPeer=*/false>(
        /*serve_selection=*/Selection::kWhenNamed);

}  // namespace

BackendRun cuda_run() {
  return backend_run<Cuda>();
}

}  // namespace custody::compare
