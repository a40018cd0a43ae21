// Copyright 2026 The custody Authors.
//
// workloads/mlp/selected.h — `SelectedTrainer`: the mlp workload's trainer in the idiom of
// the policy chosen at build time, on the chosen backend (custody/tensor.h):
//
//   #include "workloads/mlp/selected.h"   // deps: //custody:tensor and //workloads/mlp:<policy>
//   custody::workloads::mlp::SelectedTrainer runner(...);
//
// Only the selected policy's header is included (its library is the one to depend on;
// //tools/build_defs:examples.bzl adds it).

#ifndef CUSTODY_WORKLOADS_MLP_SELECTED_H_
#define CUSTODY_WORKLOADS_MLP_SELECTED_H_

#include "custody/tensor.h"

#if defined(CUSTODY_SELECTED_POLICY_TENSOR_PTR)
#include "workloads/mlp/tensor_ptr.h"
namespace custody::workloads::mlp {
using SelectedTrainer = TensorPtrTrainer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_DISPOSE)
#include "workloads/mlp/dispose.h"
namespace custody::workloads::mlp {
using SelectedTrainer = DisposeTrainer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_SCOPE)
#include "workloads/mlp/scope.h"
namespace custody::workloads::mlp {
using SelectedTrainer = ScopeTrainer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_GC)
#include "workloads/mlp/gc.h"
namespace custody::workloads::mlp {
using SelectedTrainer = GcTrainer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_MANUAL)
#include "workloads/mlp/manual.h"
namespace custody::workloads::mlp {
using SelectedTrainer = ManualTrainer<SelectedBackend>;
}
#endif

#endif  // CUSTODY_WORKLOADS_MLP_SELECTED_H_
