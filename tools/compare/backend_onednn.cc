// Copyright 2026 The custody Authors.
//
// tools/compare/backend_onednn.cc — the compare tool's workloads and measurement
// on the onednn backend (one translation unit per backend).

#include "backends/onednn/onednn.h"
#include "tools/compare/compare.h"
#include "tools/compare/measure.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"

namespace custody::compare {

BackendRun onednn_run() {
  return BackendRun{"onednn", &plans<Onednn, ComparePolicies>, &measure<Onednn>};
}

}  // namespace custody::compare
