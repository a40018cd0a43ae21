// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make_clone.h — clone_tensor_ptr, convert_tensor_ptr and
// clone_tensor_ptr_to (copies of a tensor, on its backend or another), and
// resize_tensor_ptr.
//
// Part of the maker API: policies/tensor_ptr/make.h defines DefaultBackend and
// the size types, then includes this header; include make.h, not this.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_CLONE_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_CLONE_H_

#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/ops.h"
#include "policies/tensor_ptr/make_internal.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::tensor_ptr {

// ---- clones -------------------------------------------------------------------------------

// A TensorPtr that owns a copy of `tensor`'s data (whether or not that was
// owned), with its sizes, dtype, dynamism and — for a dense tensor — strides
// (a non-dense view comes out contiguous).
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> clone_tensor_ptr(const TensorImpl& tensor) {
  return TensorPtrOn<B>::adopt(internal::clone_as<B>("clone_tensor_ptr", tensor, tensor.scalar_type()));
}
template <class B>
TensorPtrOn<B> clone_tensor_ptr(const TensorPtrOn<B>& tensor) {
  return clone_tensor_ptr<B>(tensor.checked_impl("clone_tensor_ptr"));
}

// The same, converting the elements to `type` under ExecuTorch's canCast rules
// (no floating -> integral, no non-bool -> bool: DTypeError).
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> clone_tensor_ptr(const TensorImpl& tensor, ScalarType type) {
  return TensorPtrOn<B>::adopt(internal::clone_as<B>("clone_tensor_ptr", tensor, type));
}
template <class B>
TensorPtrOn<B> clone_tensor_ptr(const TensorPtrOn<B>& tensor, ScalarType type) {
  return clone_tensor_ptr<B>(tensor.checked_impl("clone_tensor_ptr"), type);
}
// ExecuTorch's newer name for the converting clone.
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> convert_tensor_ptr(const TensorImpl& tensor, ScalarType type) {
  return TensorPtrOn<B>::adopt(internal::clone_as<B>("convert_tensor_ptr", tensor, type));
}
template <class B>
TensorPtrOn<B> convert_tensor_ptr(const TensorPtrOn<B>& tensor, ScalarType type) {
  return convert_tensor_ptr<B>(tensor.checked_impl("convert_tensor_ptr"), type);
}

// A copy of `tensor` on backend `To` (host <-> device, or between any two
// backends), contiguous, with its sizes, dtype and dynamism:
//   TensorPtrOn<custody::Cuda> g = clone_tensor_ptr_to<custody::Cuda>(t);
template <class To, class From>
  requires Backend<To>
TensorPtrOn<To> clone_tensor_ptr_to(const TensorPtrOn<From>& tensor) {
  const TensorImpl& t = tensor.checked_impl("clone_tensor_ptr_to");
  if constexpr (std::is_same_v<To, From>) {
    return clone_tensor_ptr<To>(t);
  } else {
    if (t.storage()->data() == nullptr) {  // no data to copy: the copy has none either
      return TensorPtrOn<To>::adopt(internal::blob<To>(
          nullptr, t.sizes(), contiguous_strides(t.sizes()), t.scalar_type(), t.shape_dynamism(),
          nullptr, "clone_tensor_ptr_to"));
    }
    ImplRef c = internal::Ops<From>::contiguous(t);
    std::vector<char> host(c->nbytes());
    if (!host.empty()) ThrowIfError(From::copy_to_host(host.data(), c->data(), host.size()));
    ImplRef out = internal::Ops<To>::empty(t.sizes(), t.scalar_type(), t.shape_dynamism(),
                                           "clone_tensor_ptr_to");
    if (!host.empty()) ThrowIfError(To::copy_from_host(out->data(), host.data(), host.size()));
    return TensorPtrOn<To>::adopt(std::move(out));
  }
}

// ExecuTorch's clone to a device given at run time. A TensorPtrOn<B> lives on
// B's device, so `target` must be it (a plain clone); any other device is a
// DeviceError that names clone_tensor_ptr_to<Backend>, which does the copy.
template <class B>
TensorPtrOn<B> clone_tensor_ptr(const TensorPtrOn<B>& tensor, Device target) {
  const TensorImpl& t = tensor.checked_impl("clone_tensor_ptr");
  if (target != B::device()) {
    throw DeviceError(absl::StrFormat(
        "clone_tensor_ptr: cannot clone a %s tensor to %s into a TensorPtr of backend %s, whose "
        "type fixes its device; copy it with clone_tensor_ptr_to<Backend>(tensor) (e.g. "
        "custody::Cuda for cuda:0, custody::Onednn for cpu)",
        t.device().str(), target.str(), B::name));
  }
  return clone_tensor_ptr<B>(t);
}

// Resizes under the tensor's dynamism (ExecuTorch rules): STATIC never changes;
// DYNAMIC_BOUND up to the element count at creation; DYNAMIC_UNBOUND may grow
// (reallocating). The rank is immutable. A rule violation is an error status
// with code kUnimplemented (ExecuTorch's Error::NotSupported); a negative size
// is kInvalidArgument. Never throws for either.
template <class B>
absl::Status resize_tensor_ptr(TensorPtrOn<B>& tensor, const std::vector<SizesType>& sizes) {
  if (!tensor) {
    return MakeStatus(ErrorKind::kLifetime, absl::StatusCode::kFailedPrecondition,
                      "resize_tensor_ptr: the TensorPtr is null");
  }
  return tensor.resize(sizes);
}

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_CLONE_H_
