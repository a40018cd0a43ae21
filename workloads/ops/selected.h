// Copyright 2026 The custody Authors.
//
// workloads/ops/selected.h — `SelectedMixer`: the ops workload's op mix in the idiom of
// the policy chosen at build time, on the chosen backend (custody/tensor.h):
//
//   #include "workloads/ops/selected.h"   // deps: //custody:tensor and //workloads/ops:<policy>
//   custody::workloads::ops::SelectedMixer runner(...);
//
// Only the selected policy's header is included (its library is the one to depend on;
// //tools/build_defs:examples.bzl adds it).

#ifndef CUSTODY_WORKLOADS_OPS_SELECTED_H_
#define CUSTODY_WORKLOADS_OPS_SELECTED_H_

#include "custody/tensor.h"

#if defined(CUSTODY_SELECTED_POLICY_TENSOR_PTR)
#include "workloads/ops/tensor_ptr.h"
namespace custody::workloads::ops {
using SelectedMixer = TensorPtrMixer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_DISPOSE)
#include "workloads/ops/dispose.h"
namespace custody::workloads::ops {
using SelectedMixer = DisposeMixer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_SCOPE)
#include "workloads/ops/scope.h"
namespace custody::workloads::ops {
using SelectedMixer = ScopeMixer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_GC)
#include "workloads/ops/gc.h"
namespace custody::workloads::ops {
using SelectedMixer = GcMixer<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_MANUAL)
#include "workloads/ops/manual.h"
namespace custody::workloads::ops {
using SelectedMixer = ManualMixer<SelectedBackend>;
}
#endif

#endif  // CUSTODY_WORKLOADS_OPS_SELECTED_H_
