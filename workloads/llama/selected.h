// Copyright 2026 The custody Authors.
//
// workloads/llama/selected.h — `SelectedGenerator`: the llama workload's generator in the idiom of
// the policy chosen at build time, on the chosen backend (custody/tensor.h):
//
//   #include "workloads/llama/selected.h"   // deps: //custody:tensor and //workloads/llama:<policy>
//   custody::workloads::llama::SelectedGenerator runner(...);
//
// Only the selected policy's header is included (its library is the one to depend on;
// //tools/build_defs:examples.bzl adds it).

#ifndef CUSTODY_WORKLOADS_LLAMA_SELECTED_H_
#define CUSTODY_WORKLOADS_LLAMA_SELECTED_H_

#include "custody/tensor.h"

#if defined(CUSTODY_SELECTED_POLICY_TENSOR_PTR)
#include "workloads/llama/tensor_ptr.h"
namespace custody::workloads::llama {
using SelectedGenerator = TensorPtrGenerator<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_DISPOSE)
#include "workloads/llama/dispose.h"
namespace custody::workloads::llama {
using SelectedGenerator = DisposeGenerator<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_SCOPE)
#include "workloads/llama/scope.h"
namespace custody::workloads::llama {
using SelectedGenerator = ScopeGenerator<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_GC)
#include "workloads/llama/gc.h"
namespace custody::workloads::llama {
using SelectedGenerator = GcGenerator<SelectedBackend>;
}
#elif defined(CUSTODY_SELECTED_POLICY_MANUAL)
#include "workloads/llama/manual.h"
namespace custody::workloads::llama {
using SelectedGenerator = ManualGenerator<SelectedBackend>;
}
#endif

#endif  // CUSTODY_WORKLOADS_LLAMA_SELECTED_H_
