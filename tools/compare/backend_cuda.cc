// Copyright 2026 The custody Authors.
//
// tools/compare/backend_cuda.cc — the compare tool's workloads and measurement
// on the cuda backend: the policies only. This binary links no libtorch;
// the peer on a GPU machine is PyTorch's own CUDA ops (tools/gpu/torch_peer.py).

#include "backends/cuda/cuda.h"
#include "tools/compare/compare.h"
#include "tools/compare/measure.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"

namespace custody::compare {

BackendRun cuda_run() {
  return BackendRun{"cuda", &plans<Cuda, ComparePolicies, /*kLibtorchPeer=*/false>, &measure<Cuda>};
}

}  // namespace custody::compare
