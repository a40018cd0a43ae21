// Copyright 2026 The custody Authors.
//
// tools/compare/backend_cuda.cc — the compare tool's workloads and measurement
// on the cuda backend: the policies only. This binary links no libtorch;
// the peer on a GPU machine is PyTorch's own CUDA ops (tools/gpu/torch_peer.py).

#include "backends/cuda/cuda.h"
#include "tools/compare/backend_run.h"
#include "tools/compare/compare.h"

namespace custody::compare {

BackendRun cuda_run() {
  return backend_run<Cuda, /*kLibtorchPeer=*/false>();
}

}  // namespace custody::compare
