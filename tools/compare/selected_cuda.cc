// Copyright 2026 The custody Authors.
//
// tools/compare/selected_cuda.cc — the backends of
// //tools/compare:compare_cuda: cuda alone, whatever --all_backends says (the
// binary links no CPU backend's peer). Without a GPU it says so and runs
// nothing.

#include <string>
#include <vector>

#include "backends/cuda/cuda.h"
#include "core/error.h"
#include "tools/compare/compare.h"

namespace custody::compare {

std::vector<BackendRun> backends_to_run(const Options& /*o*/) {
  if (!Cuda::available()) {
    throw DeviceError("compare_cuda: " + std::string(Cuda::availability().message()) +
                      "; run it on a GPU machine (tools/gpu/README.md)");
  }
  return {cuda_run()};
}

}  // namespace custody::compare
