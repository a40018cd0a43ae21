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

// The flags name the policy and the backend through macros that //custody:tensor
// defines (tools/build_defs/flags.bzl: selected_policy_defines and
// selected_backend_defines, from the POLICIES and SELECTABLE_BACKENDS lists),
// so this header names no policy and no backend.
#if !defined(CUSTODY_SELECTED_POLICY_HEADER) || !defined(CUSTODY_SELECTED_POLICY_TYPE)
#error "custody/tensor.h: no policy selected; depend on //custody:tensor (or, with the policy fixed, on //custody:tensor_for_policy with local_defines = selected_policy_defines(p))"
#endif
#if !defined(CUSTODY_SELECTED_BACKEND_HEADER) || !defined(CUSTODY_SELECTED_BACKEND_TYPE)
#error "custody/tensor.h: no backend selected; depend on //custody:tensor"
#endif

#include CUSTODY_SELECTED_POLICY_HEADER
#include CUSTODY_SELECTED_BACKEND_HEADER

namespace custody {
using SelectedPolicy = CUSTODY_SELECTED_POLICY_TYPE;
using SelectedBackend = CUSTODY_SELECTED_BACKEND_TYPE;
}  // namespace custody

namespace custody {
using Tensor = BasicTensor<SelectedPolicy, SelectedBackend>;
}  // namespace custody

#endif  // CUSTODY_CUSTODY_TENSOR_H_
