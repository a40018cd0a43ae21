// Copyright 2026 The custody Authors.
//
// custody/tensor.h — `custody::Tensor`: the handle type chosen at build time by
//
//   --//policies:policy=tensor_ptr|dispose|scope|gc|manual
//   --//backends:backend=onednn|aten
//
// for examples and user code that should not name a policy or backend:
//
//   #include "custody/tensor.h"          // deps = ["//custody:tensor"]
//   custody::Tensor x = custody::Tensor::ones({2, 2});
//
// The conformance matrix does not use this: it names every combination.

#ifndef CUSTODY_CUSTODY_TENSOR_H_
#define CUSTODY_CUSTODY_TENSOR_H_

#include "core/tensor.h"

#if defined(CUSTODY_SELECTED_POLICY_TENSOR_PTR)
#include "policies/tensor_ptr/make.h"
namespace custody {
using SelectedPolicy = tensor_ptr::Policy;
}
#elif defined(CUSTODY_SELECTED_POLICY_DISPOSE)
#include "policies/dispose/dispose.h"
namespace custody {
using SelectedPolicy = dispose::Policy;
}
#elif defined(CUSTODY_SELECTED_POLICY_SCOPE)
#include "policies/scope/scope.h"
namespace custody {
using SelectedPolicy = scope::Policy;
}
#elif defined(CUSTODY_SELECTED_POLICY_GC)
#include "policies/gc/gc.h"
namespace custody {
using SelectedPolicy = gc::Policy;
}
#elif defined(CUSTODY_SELECTED_POLICY_MANUAL)
#include "policies/manual/manual.h"
namespace custody {
using SelectedPolicy = manual::Policy;
}
#else
#error "the selected --//policies:policy is not implemented yet; use tensor_ptr, dispose, scope, gc or manual"
#endif

#if defined(CUSTODY_SELECTED_BACKEND_ONEDNN)
#include "backends/onednn/onednn.h"
namespace custody {
using SelectedBackend = Onednn;
}
#elif defined(CUSTODY_SELECTED_BACKEND_ATEN)
#include "backends/aten/aten.h"
namespace custody {
using SelectedBackend = Aten;
}
#else
#error "the selected --//backends:backend is not implemented yet; use onednn or aten"
#endif

namespace custody {
using Tensor = BasicTensor<SelectedPolicy, SelectedBackend>;
}  // namespace custody

#endif  // CUSTODY_CUSTODY_TENSOR_H_
