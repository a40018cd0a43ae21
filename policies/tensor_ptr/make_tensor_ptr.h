// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make_tensor_ptr.h — make_tensor_ptr's overloads: a
// scalar, owned data from vectors, initializer lists and raw bytes, borrowed
// data from a pointer, and views of an existing tensor.
//
// Part of the maker API: policies/tensor_ptr/make.h defines DefaultBackend and
// the size types, then includes this header; include make.h, not this.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_TENSOR_PTR_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_TENSOR_PTR_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/ops.h"
#include "policies/tensor_ptr/make_internal.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::tensor_ptr {

// ---- scalars -------------------------------------------------------------------

// A 0-dim tensor holding `value`, dtype deduced from T.
template <class B = DefaultBackend, class T>
  requires Backend<B> && std::is_arithmetic_v<T>
TensorPtrOn<B> make_tensor_ptr(T value) {
  return TensorPtrOn<B>::adopt(internal::from_values<B, T>(
      "make_tensor_ptr", IntSpan(), IntSpan(), std::vector<T>{value}, scalar_type_of<T>,
      TensorShapeDynamism::STATIC));
}

// A 0-dim tensor holding `value` cast to `type` (canCast rules).
template <class B = DefaultBackend, class T>
  requires Backend<B> && std::is_arithmetic_v<T>
TensorPtrOn<B> make_tensor_ptr(T value, ScalarType type) {
  return TensorPtrOn<B>::adopt(internal::from_values<B, T>(
      "make_tensor_ptr", IntSpan(), IntSpan(), std::vector<T>{value}, type,
      TensorShapeDynamism::STATIC));
}

// ---- owned data from vectors --------------------------------------------------------

// Sizes + data (owned copy, in storage order as ExecuTorch). Strides come from
// `strides`, else `dim_order`, else row-major, and must be dense (ShapeError). `type` defaults to T's dtype; a different one casts (canCast rules).
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, std::vector<T> data,
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {},
                               ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  const Dims st = internal::resolve_strides("make_tensor_ptr", sizes, dim_order, strides);
  return TensorPtrOn<B>::adopt(
      internal::from_values<B, T>("make_tensor_ptr", sizes, st, data, type, dynamism));
}

// 1-D data (owned copy) cast to `type` (canCast rules).
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<T> data, ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  const std::vector<SizesType> sizes{static_cast<SizesType>(data.size())};
  return TensorPtrOn<B>::adopt(internal::from_values<B, T>(
      "make_tensor_ptr", sizes, contiguous_strides(sizes), data, type, dynamism));
}

// Sizes + an initializer list of values (so `make_tensor_ptr({2, 3}, {1.f, ...})` deduces T).
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, std::initializer_list<T> list,
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {},
                               ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::move(sizes), std::vector<T>(list), std::move(dim_order),
                               std::move(strides), type, dynamism);
}

// 1-D values from an initializer list, cast to `type`.
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::initializer_list<T> list, ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::vector<T>(list), type, dynamism);
}

// ---- the element type first: make_tensor_ptr<float>(...) -----------------------------
// ExecuTorch names the element type as the first template argument; custody's
// first template argument is the backend. These overloads take an element type
// there instead (their T is not deduced, so calls without template arguments
// pick the overloads above) and make the tensor on the default backend.

template <class T, class B = DefaultBackend>
  requires(!Backend<T>) && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, std::vector<std::type_identity_t<T>> data,
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {},
                               ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::move(sizes), std::move(data), std::move(dim_order),
                               std::move(strides), type, dynamism);
}
template <class T, class B = DefaultBackend>
  requires(!Backend<T>) && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<std::type_identity_t<T>> data, ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::move(data), type, dynamism);
}
template <class T, class B = DefaultBackend>
  requires(!Backend<T>) && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes,
                               std::initializer_list<std::type_identity_t<T>> list,
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {},
                               ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::move(sizes), std::vector<T>(list), std::move(dim_order),
                               std::move(strides), type, dynamism);
}
template <class T, class B = DefaultBackend>
  requires(!Backend<T>) && kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::initializer_list<std::type_identity_t<T>> list,
                               ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::vector<T>(list), type, dynamism);
}
template <class T, class B = DefaultBackend>
  requires(!Backend<T>) && std::is_arithmetic_v<T>
TensorPtrOn<B> make_tensor_ptr(std::type_identity_t<T> value) {
  return make_tensor_ptr<B, T>(value);
}

// Raw bytes reinterpreted as `type` (float32 unless given, as in ExecuTorch:
// `make_tensor_ptr({4}, bytes)` is 16 bytes of float, not 16 uint8 elements);
// their count must be exactly numel * element_size. Strides come from `strides`,
// else `dim_order`, else row-major, and must be dense.
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, std::vector<uint8_t> data,
                               std::vector<DimOrderType> dim_order,
                               std::vector<StridesType> strides, ScalarType type = ScalarType::Float,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  const char* op = "make_tensor_ptr";
  const int64_t numel = ValueOrThrow(checked_numel(sizes, op));
  const size_t need = static_cast<size_t>(numel) * element_size(type);
  if (data.size() != need) {
    throw InvalidArgument(absl::StrFormat(
        "make_tensor_ptr: %d bytes of data do not match sizes %s of %s (need %d bytes)",
        data.size(), shape_str(sizes), dtype_name(type), need));
  }
  const Dims st = internal::resolve_strides(op, sizes, dim_order, strides);
  internal::check_dense_strides(op, sizes, st);
  ImplRef out = internal::owned_empty<B>(sizes, st, type, dynamism, op);
  if (!data.empty()) ThrowIfError(B::copy_from_host(out->data(), data.data(), data.size()));
  return TensorPtrOn<B>::adopt(std::move(out));
}
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, std::vector<uint8_t> data,
                               ScalarType type = ScalarType::Float,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B>(std::move(sizes), std::move(data), {}, {}, type, dynamism);
}

// ---- borrowed data from pointers ----------------------------------------------------

// Wraps `data` (memory of backend B) without copying. The caller keeps it alive
// unless `deleter` is given, which runs once when the last reference goes.
// Strides may be any that fit (ExecuTorch accepts only dense ones).
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                               std::vector<DimOrderType> dim_order,
                               std::vector<StridesType> strides, ScalarType type = ScalarType::Float,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND,
                               std::function<void(void*)> deleter = nullptr) {
  const Dims st = internal::resolve_strides("make_tensor_ptr", sizes, dim_order, strides);
  return TensorPtrOn<B>::adopt(internal::blob<B>(data, sizes, IntSpan(st), type, dynamism,
                                                 std::move(deleter), "make_tensor_ptr"));
}

template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                               ScalarType type = ScalarType::Float,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND,
                               std::function<void(void*)> deleter = nullptr) {
  return make_tensor_ptr<B>(std::move(sizes), data, {}, {}, type, dynamism, std::move(deleter));
}

// The device forms (ExecuTorch: the device says where `data` already lives; no
// data moves). `device` must be backend B's (DeviceError otherwise): to wrap
// CUDA memory, make a TensorPtrOn<custody::Cuda>.
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                               std::vector<DimOrderType> dim_order,
                               std::vector<StridesType> strides, ScalarType type, Device device,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND,
                               std::function<void(void*)> deleter = nullptr) {
  internal::check_device<B>("make_tensor_ptr", device);
  return make_tensor_ptr<B>(std::move(sizes), data, std::move(dim_order), std::move(strides), type,
                            dynamism, std::move(deleter));
}
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, void* data, ScalarType type,
                               Device device,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND,
                               std::function<void(void*)> deleter = nullptr) {
  internal::check_device<B>("make_tensor_ptr", device);
  return make_tensor_ptr<B>(std::move(sizes), data, {}, {}, type, dynamism, std::move(deleter));
}

// ---- views of existing tensors -------------------------------------------------------

// A new tensor with its own metadata over `tensor`'s data (it never copies),
// with ExecuTorch's defaults: empty `sizes` keeps the source's sizes; with no
// dim order and no strides, the same shape keeps the source's strides and a
// same-rank reshape its dim order; other ranks are row-major. The view may have
// fewer elements than the source, not more, and keeps its dtype and dynamism.
// Unlike ExecuTorch's plain-Tensor form, the view always keeps the source's
// memory alive (a custody view holds a reference to the storage); `deleter`,
// if given, runs with the data pointer when the view goes.
template <class B = DefaultBackend>
  requires Backend<B>
TensorPtrOn<B> make_tensor_ptr(const TensorImpl& tensor, std::vector<SizesType> sizes = {},
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {},
                               std::function<void(void*)> deleter = nullptr) {
  return TensorPtrOn<B>::adopt(internal::view_of<B>(tensor, std::move(sizes), std::move(dim_order),
                                                    std::move(strides), std::move(deleter)));
}
template <class B>
TensorPtrOn<B> make_tensor_ptr(const TensorPtrOn<B>& tensor, std::vector<SizesType> sizes = {},
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {}) {
  return TensorPtrOn<B>::adopt(internal::view_of<B>(tensor.checked_impl("make_tensor_ptr"),
                                                    std::move(sizes), std::move(dim_order),
                                                    std::move(strides), nullptr));
}

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_TENSOR_PTR_H_
