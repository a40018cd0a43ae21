// Copyright 2026 The custody Authors.
//
// tools/compare/backend_aten.cc — the compare tool's workloads and measurement
// on the aten backend (one translation unit per backend).

#include "backends/aten/aten.h"
#include "tools/compare/compare.h"
#include "tools/compare/measure.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"

namespace custody::compare {

BackendRun aten_run() {
  return BackendRun{"aten", &plans<Aten, ComparePolicies>, &measure<Aten>};
}

}  // namespace custody::compare
