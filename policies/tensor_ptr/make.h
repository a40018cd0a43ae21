// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make.h — ExecuTorch's TensorPtr maker API.
//
// Every maker takes the backend as its first, defaulted template argument
// (`DefaultBackend`: the backend --//backends:backend selects, when the
// flag-chosen facade is in the build: Note [The makers' default backend]), so
// ExecuTorch code reads the same:
//
//   auto a = make_tensor_ptr(3.14);                          // 0-dim float64
//   auto b = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
//   auto c = make_tensor_ptr({1, 2, 3}, ScalarType::Double); // cast, canCast rules
//   auto d = from_blob(data, {3}, ScalarType::Float);        // non-owning
//   auto e = for_blob(data, {2, 3}, ScalarType::Double).strides({3, 1}).make_tensor_ptr();
//   ABSL_CHECK_OK(resize_tensor_ptr(b, {3, 2}));
//   auto g = make_tensor_ptr<custody::Cuda>({2}, {1.f, 2.f}); // another backend
//
// Ownership: a vector passed by value is copied into memory the tensor owns; a
// pointer is borrowed (the caller keeps it alive) unless a deleter is given,
// which then runs exactly once, when the last TensorPtr or view of it goes. If a
// maker throws, it has not taken ownership and never calls the deleter.
//
// Errors: size mismatches are ShapeError/InvalidArgument, forbidden casts
// (floating -> integral, non-bool -> bool) DTypeError, a null pointer
// InvalidArgument — each naming the maker, the sizes and the dtypes.
//
// The makers are in one header per kind, all included at the end of this one:
//   make_tensor_ptr.h  make_tensor_ptr over values, bytes, pointers and tensors
//   make_blob.h        from_blob and for_blob's builder
//   make_clone.h       clone_tensor_ptr, convert_tensor_ptr, clone_tensor_ptr_to,
//                      resize_tensor_ptr
//   make_filled.h      scalar_tensor, empty, full, zeros, ones, rand, randn, randint
//   make_internal.h    what they share

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_

#include <cstdint>

#include "policies/tensor_ptr/tensor_ptr.h"

// Note [The makers' default backend]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A maker called without a backend makes its tensor on the backend the build
// flags select. The policy names no backend (docs/design.md, "Layers"): the
// flag-chosen facade (//custody:tensor_ptr, custody/tensor_ptr.h; also
// //custody:tensor) defines CUSTODY_SELECTED_BACKEND_HEADER and _TYPE for
// every target that depends on it and links that backend, and this header
// takes the default from them. Without the facade in the build there is no
// TensorPtr alias, DefaultBackend is a type whose name says what to do in the
// compiler's error, and a maker takes its backend explicitly:
// make_tensor_ptr<custody::Onednn>(...).
#if defined(CUSTODY_SELECTED_BACKEND_HEADER) && defined(CUSTODY_SELECTED_BACKEND_TYPE)
#include CUSTODY_SELECTED_BACKEND_HEADER
#endif

namespace custody::tensor_ptr {

using SizesType = int64_t;
using StridesType = int64_t;
using DimOrderType = uint8_t;
using custody::ScalarType;
using custody::TensorShapeDynamism;

#if defined(CUSTODY_SELECTED_BACKEND_HEADER) && defined(CUSTODY_SELECTED_BACKEND_TYPE)
// The backend of makers called without one, and its TensorPtr.
using DefaultBackend = CUSTODY_SELECTED_BACKEND_TYPE;
using TensorPtr = TensorPtrOn<DefaultBackend>;
#else
struct NoDefaultBackend_DependOnCustodyTensorPtrOrNameTheBackend;
using DefaultBackend = NoDefaultBackend_DependOnCustodyTensorPtrOrNameTheBackend;
#endif

}  // namespace custody::tensor_ptr

// The makers, whose backend template argument defaults to DefaultBackend above.
#include "policies/tensor_ptr/make_internal.h"
#include "policies/tensor_ptr/make_tensor_ptr.h"
#include "policies/tensor_ptr/make_clone.h"
#include "policies/tensor_ptr/make_blob.h"
#include "policies/tensor_ptr/make_filled.h"

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_
