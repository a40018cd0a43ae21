// Copyright 2026 The custody Authors.
//
// custody/tensor_ptr.h — ExecuTorch's TensorPtr API (policies/tensor_ptr/make.h,
// executorch.h) with the makers' default backend the one the build flags choose
// (--//backends:backend; Note [The makers' default backend]), whatever
// --//policies:policy says:
//
//   #include "custody/tensor_ptr.h"      // deps = ["//custody:tensor_ptr"]
//   auto t = custody::tensor_ptr::make_tensor_ptr({2, 2}, {1.f, 2.f, 3.f, 4.f});

#ifndef CUSTODY_CUSTODY_TENSOR_PTR_H_
#define CUSTODY_CUSTODY_TENSOR_PTR_H_

#if !defined(CUSTODY_SELECTED_BACKEND_HEADER)
#error "custody/tensor_ptr.h: no backend selected; depend on //custody:tensor_ptr"
#endif

#include "policies/tensor_ptr/executorch.h"
#include "policies/tensor_ptr/make.h"
#include CUSTODY_SELECTED_BACKEND_HEADER

#endif  // CUSTODY_CUSTODY_TENSOR_PTR_H_
