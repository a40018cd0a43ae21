// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make_internal.h — what the makers share (namespace
// internal): strides from sizes, dim order and strides, the device check, views
// of a tensor, borrowed and owned memory, and the dtype conversions of the
// random makers, the clones and data given by value.
//
// Part of the maker API: policies/tensor_ptr/make.h defines DefaultBackend and
// the size types, then includes this header; include make.h, not this.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_INTERNAL_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/element_ops.h"
#include "core/error.h"
#include "core/ops.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::tensor_ptr {

namespace internal {
using custody::internal::Ops;

// Strides from an explicit dim order (outermost first) or the given strides,
// checking that both agree when both are given.
Dims resolve_strides(const char* op, IntSpan sizes, const std::vector<DimOrderType>& dim_order,
                     const std::vector<StridesType>& strides);

// Whether `strides` lay `sizes` out densely (a permutation of row-major: every
// element of a numel-sized buffer used exactly once).
bool is_dense(IntSpan sizes, IntSpan strides);
// ShapeError unless is_dense, as ExecuTorch requires of data given by value.
void check_dense_strides(const char* op, IntSpan sizes, IntSpan strides);

// DeviceError unless `device` is backend B's: a TensorPtrOn<B> always lives on
// B's device (the backend is part of its type).
void check_device(const char* op, Device device, Device backend_device, const char* backend_name);
template <class B>
void check_device(const char* op, Device device) {
  check_device(op, device, B::device(), B::name);
}

// ExecuTorch's view of `t` (make_tensor_ptr(tensor, sizes, dim_order, strides)):
// empty `sizes` keeps t's sizes; with no dim order and no strides, the same
// shape keeps t's strides and a same-rank reshape keeps t's dim order; the view
// may have fewer elements than t, not more. With a deleter, the view gets its own
// storage record over t's data, which keeps t's storage alive and runs the
// deleter when the view goes.
template <class B>
ImplRef view_of(const TensorImpl& t, std::vector<SizesType> sizes, std::vector<DimOrderType> dim_order,
                std::vector<StridesType> strides, std::function<void(void*)> deleter) {
  const char* op = "make_tensor_ptr";
  check_device<B>(op, t.device());
  if (sizes.empty()) sizes.assign(t.sizes().begin(), t.sizes().end());
  const int64_t numel = ValueOrThrow(checked_numel(sizes, op));
  if (numel > t.numel()) {
    throw ShapeError(absl::StrFormat(
        "%s: the view's sizes %s have %d elements but the source tensor (sizes %s) only has %d", op,
        shape_str(sizes), numel, shape_str(t.sizes()), t.numel()));
  }
  const bool same_rank = static_cast<int64_t>(sizes.size()) == t.dim();
  const bool same_shape = same_rank && std::equal(sizes.begin(), sizes.end(), t.sizes().begin());
  Dims st;
  if (dim_order.empty() && strides.empty() && same_shape) {
    st.assign(t.strides().begin(), t.strides().end());
  } else {
    if (dim_order.empty() && strides.empty() && same_rank) {
      const Dims order = t.dim_order();
      dim_order.assign(order.begin(), order.end());
    }
    st = resolve_strides(op, sizes, dim_order, strides);
    check_dense_strides(op, sizes, st);  // as ExecuTorch: strides that a dim order gives
  }
  const int64_t extent = ValueOrThrow(storage_extent(sizes, st, op));
  const size_t end_bytes = static_cast<size_t>(t.storage_offset() + extent) * t.element_size();
  if (end_bytes > t.storage()->nbytes()) {
    throw ShapeError(absl::StrFormat(
        "%s: a view of sizes %s and strides %s needs %d bytes but the tensor's storage has %d", op,
        shape_str(sizes), shape_str(st), end_bytes, t.storage()->nbytes()));
  }
  if (!deleter) return custody::internal::make_view(t, sizes, st, t.storage_offset());
  Ref<Storage> keep = t.storage();
  return blob<B>(t.data(), sizes, IntSpan(st), t.scalar_type(), t.shape_dynamism(),
                 [keep = std::move(keep), d = std::move(deleter)](void* p) mutable {
                   d(p);
                   keep.reset();
                 },
                 op);
}

// ExecuTorch's makers over a pointer accept a null one (for data bound later,
// TensorImpl::set_data): the tensor is valid until an op reads or writes its
// elements, which is an InvalidArgument (core/ops.h, check_has_data).
template <class B>
ImplRef blob(void* data, IntSpan sizes, std::optional<IntSpan> strides, ScalarType type,
             TensorShapeDynamism dynamism, std::function<void(void*)> deleter, const char* op) {
  return Ops<B>::from_blob(data, sizes, strides, type, dynamism, std::move(deleter), op,
                           /*allow_null_data=*/true);
}

// Memory for a tensor the maker fills. As in ExecuTorch, a tensor with no
// elements has no data (a null data pointer) rather than an empty allocation.
template <class B>
ImplRef owned_empty(IntSpan sizes, IntSpan strides, ScalarType type, TensorShapeDynamism dynamism,
                    const char* op) {
  if (ValueOrThrow(checked_numel(sizes, op)) == 0) {
    return blob<B>(nullptr, sizes, strides, type, dynamism, nullptr, op);
  }
  return Ops<B>::empty_strided(sizes, strides, type, dynamism, op);
}

// A new tensor of `type` with `strides` holding `samples` converted (B::copy
// converts as a static_cast does).
template <class B>
ImplRef converted(const TensorImpl& samples, IntSpan strides, ScalarType type,
                  TensorShapeDynamism dynamism, const char* op) {
  ImplRef out = owned_empty<B>(samples.sizes(), strides, type, dynamism, op);
  if (out->numel() > 0) {
    ThrowIfError(B::copy(custody::internal::kernel_view(*out), custody::internal::kernel_view(samples)));
  }
  return out;
}

// ExecuTorch's rand/randn: float32 and float64 are custody's Philox samples
// (core's random); every other dtype ExecuTorch's makers take (its
// ET_SWITCH_REALHBBF16_TYPES: uint8, int8, int16, int32, int64, bool, float16,
// bfloat16) gets float32 samples converted as ExecuTorch's static_cast does:
// truncated toward zero for integers (so rand gives zeros), nonzero -> true
// for bool, rounded for float16/bfloat16, whose uniform bound is lowered by
// half an epsilon so that no sample rounds up to 1.
template <class B>
ImplRef random_as(const char* op, IntSpan sizes, IntSpan strides, ScalarType type, RandomDist dist,
                  TensorShapeDynamism dynamism) {
  if (type == ScalarType::Float || type == ScalarType::Double) {
    return Ops<B>::random(sizes, strides, type, dist, 0, 1, dynamism, op);
  }
  switch (type) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short: case ScalarType::Int:
    case ScalarType::Long: case ScalarType::Bool: case ScalarType::Half: case ScalarType::BFloat16:
      break;
    default:
      throw DTypeError(absl::StrFormat(
          "%s: ExecuTorch's random makers take uint8, int8, int16, int32, int64, bool, float16, "
          "bfloat16, float32 and float64, not %s", op, dtype_name(type)));
  }
  double high = 1;
  if (dist == RandomDist::kUniform && type == ScalarType::Half) high = 1 - 0x1p-11;  // eps 2^-10
  if (dist == RandomDist::kUniform && type == ScalarType::BFloat16) high = 1 - 0x1p-8;  // eps 2^-7
  ImplRef samples = Ops<B>::random(sizes, contiguous_strides(sizes), ScalarType::Float, dist, 0, high,
                                   TensorShapeDynamism::DYNAMIC_BOUND, op);
  return converted<B>(*samples, strides, type, dynamism, op);
}

// randint of any dtype: core's for the computable ones; float16/bfloat16 get
// int64 samples rounded to them, as ExecuTorch's static_cast does.
template <class B>
ImplRef randint_as(const char* op, int64_t low, int64_t high, IntSpan sizes, IntSpan strides,
                   ScalarType type, TensorShapeDynamism dynamism) {
  if (!is_storage_only(type)) return Ops<B>::randint(sizes, strides, type, low, high, dynamism, op);
  ImplRef samples = Ops<B>::randint(sizes, contiguous_strides(sizes), ScalarType::Long, low, high,
                                    TensorShapeDynamism::DYNAMIC_BOUND, op);
  return converted<B>(*samples, strides, type, dynamism, op);
}

// A copy of `t` in dtype `type` that owns its data (canCast rules), with t's
// sizes, dynamism and — when t is dense — its strides (so its dim order), as
// ExecuTorch's clone keeps them; a non-dense view (narrow, select, expand)
// comes out contiguous.
template <class B>
ImplRef clone_as(const char* op, const TensorImpl& t, ScalarType type) {
  check_device<B>(op, t.device());
  const Dims st = is_dense(t.sizes(), t.strides()) ? Dims(t.strides().begin(), t.strides().end())
                                                   : contiguous_strides(t.sizes());
  if (t.storage()->data() == nullptr) {
    // No data to copy or cast (ExecuTorch's clone of a null-data tensor has none).
    return blob<B>(nullptr, t.sizes(), IntSpan(st), type, t.shape_dynamism(), nullptr, op);
  }
  if (t.scalar_type() != type && !can_cast(t.scalar_type(), type)) {
    throw DTypeError(absl::StrFormat(
        "%s: cannot cast a tensor of dtype %s to %s (floating -> integral and non-bool -> bool "
        "casts lose information)", op, dtype_name(t.scalar_type()), dtype_name(type)));
  }
  ImplRef out = owned_empty<B>(t.sizes(), st, type, t.shape_dynamism(), op);
  if (t.numel() > 0) ThrowIfError(B::copy(custody::internal::kernel_view(*out), custody::internal::kernel_view(t)));
  return out;
}

template <class To, class From>
To cast_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Only into uint16/32/64 (canCast refuses the other integers): defined for
    // every value, as to(dtype) converts (Note [Float to integer]).
    return element::convert<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Converts host values of T to dtype `type` (after the canCast check) and makes the tensor.
template <class B, class T>
ImplRef from_values(const char* op, IntSpan sizes, IntSpan strides, const std::vector<T>& data,
                    ScalarType type, TensorShapeDynamism dyn) {
  const ScalarType from = scalar_type_of<T>;
  if (!can_cast(from, type)) {
    throw DTypeError(absl::StrFormat(
        "%s: cannot cast data of dtype %s to %s (floating -> integral and non-bool -> bool casts "
        "lose information); pass data of a castable type", op, dtype_name(from), dtype_name(type)));
  }
  const int64_t numel = ValueOrThrow(checked_numel(sizes, op));
  if (static_cast<int64_t>(data.size()) != numel) {
    throw InvalidArgument(absl::StrFormat("%s: data has %d elements but sizes %s need %d", op,
                                          data.size(), shape_str(sizes), numel));
  }
  // As in ExecuTorch, the data *is* the tensor's memory in storage order, read
  // through `strides` (so dim_order {1, 0} means column-major data).
  check_dense_strides(op, sizes, strides);
  std::vector<char> bytes(data.size() * element_size(type));
  visit_dtype(type, [&](auto tag) {
    using D = typename decltype(tag)::type;
    for (size_t i = 0; i < data.size(); ++i) {
      const D v = cast_value<D>(data[i]);
      std::memcpy(bytes.data() + i * sizeof(D), &v, sizeof(D));
    }
  });
  ImplRef out = owned_empty<B>(sizes, strides, type, dyn, op);
  if (!bytes.empty()) ThrowIfError(B::copy_from_host(out->data(), bytes.data(), bytes.size()));
  return out;
}
}  // namespace internal

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_INTERNAL_H_
