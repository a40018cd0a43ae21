// Copyright 2026 The custody Authors.
//
// tools/compare/selected_cpu.cc — the backends of //tools/compare:compare: the
// host backend --//backends:backend selects, or every registered host backend
// (HOST_BACKENDS) with --all_backends; libtorch's threads set up for its peer
// first.

#include <string>
#include <vector>

#include "core/error.h"
#include "custody/tensor.h"
#include "tools/compare/compare.h"
#include "tools/compare/registry.h"
#include "workloads/libtorch_threads.h"

namespace custody::compare {

std::vector<BackendRun> backends_to_run(const Options& o) {
  workloads::configure_libtorch_threads();
  std::vector<BackendRun> runs = registered_backends();
  if (o.all_backends) return runs;
  const std::string selected = SelectedBackend::name;
  for (BackendRun& run : runs) {
    if (run.name == selected) return {std::move(run)};
  }
  throw InvalidArgument("compare: the backend '" + selected +
                        "' has its own binary: ./bazelw run --config=cuda //tools/compare:compare_cuda "
                        "(or tools/gpu/pack.sh for a GPU machine)");
}

}  // namespace custody::compare
