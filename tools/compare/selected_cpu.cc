// Copyright 2026 The custody Authors.
//
// tools/compare/selected_cpu.cc — the backends of //tools/compare:compare: the
// one --//backends:backend selects (onednn or aten), or both with
// --all_backends; libtorch's threads set up for its peer first.

#include <string>
#include <vector>

#include "core/error.h"
#include "custody/tensor.h"
#include "tools/compare/compare.h"
#include "workloads/libtorch_threads.h"

namespace custody::compare {

std::vector<BackendRun> backends_to_run(const Options& o) {
  workloads::configure_libtorch_threads();
  if (o.all_backends) return {onednn_run(), aten_run()};
  const std::string selected = SelectedBackend::name;
  if (selected == "aten") return {aten_run()};
  if (selected == "onednn") return {onednn_run()};
  throw InvalidArgument("compare: the backend '" + selected +
                        "' has its own binary: ./bazelw run --config=cuda //tools/compare:compare_cuda "
                        "(or tools/gpu/pack.sh for a GPU machine)");
}

}  // namespace custody::compare
