// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make.h — ExecuTorch's TensorPtr maker API.
//
// Every maker takes the backend as its first, defaulted template argument
// (`DefaultBackend`: the CPU backend --//backends:backend selects, onednn unless
// it says aten; only that backend is linked), so ExecuTorch code reads the same:
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

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#if defined(CUSTODY_TENSOR_PTR_DEFAULT_BACKEND_ATEN)
#include "backends/aten/aten.h"
#else
#include "backends/onednn/onednn.h"
#endif
#include "core/element_ops.h"
#include "core/error.h"
#include "core/ops.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::tensor_ptr {

using SizesType = int64_t;
using StridesType = int64_t;
using DimOrderType = uint8_t;
using custody::ScalarType;
using custody::TensorShapeDynamism;

// The backend of makers called without one: the one the build flags select
// (//policies/tensor_ptr:BUILD).
#if defined(CUSTODY_TENSOR_PTR_DEFAULT_BACKEND_ATEN)
using DefaultBackend = Aten;
#else
using DefaultBackend = Onednn;
#endif

// The TensorPtr of the default backend.
using TensorPtr = TensorPtrOn<DefaultBackend>;

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

// ---- from_blob / for_blob ----------------------------------------------------------------

template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::blob<B>(data, sizes, std::nullopt, type, dynamism,
                                                 nullptr, "from_blob"));
}

template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, std::vector<StridesType> strides,
                         ScalarType type = ScalarType::Float,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::blob<B>(data, sizes, IntSpan(strides), type,
                                                 dynamism, nullptr, "from_blob"));
}

template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, ScalarType type,
                         std::function<void(void*)> deleter,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::blob<B>(data, sizes, std::nullopt, type, dynamism,
                                                 std::move(deleter), "from_blob"));
}

template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, std::vector<StridesType> strides,
                         ScalarType type, std::function<void(void*)> deleter,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::blob<B>(data, sizes, IntSpan(strides), type,
                                                 dynamism, std::move(deleter), "from_blob"));
}

// A typed pointer names its dtype, as in ExecuTorch's newest maker: from_blob
// of an int8_t* is int8 (a void* keeps the float32 default); an explicit type
// still reinterprets the memory.
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrOn<B> from_blob(T* data, std::vector<SizesType> sizes, ScalarType type = scalar_type_of<T>,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return from_blob<B>(static_cast<void*>(data), std::move(sizes), type, dynamism);
}
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrOn<B> from_blob(T* data, std::vector<SizesType> sizes, std::vector<StridesType> strides,
                         ScalarType type = scalar_type_of<T>,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return from_blob<B>(static_cast<void*>(data), std::move(sizes), std::move(strides), type, dynamism);
}

// The device forms: `device` says where `data` lives and must be backend B's.
template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, ScalarType type, Device device,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  internal::check_device<B>("from_blob", device);
  return from_blob<B>(data, std::move(sizes), type, dynamism);
}
template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, std::vector<StridesType> strides,
                         ScalarType type, Device device,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  internal::check_device<B>("from_blob", device);
  return from_blob<B>(data, std::move(sizes), std::move(strides), type, dynamism);
}

// Fluent builder: for_blob(data, sizes, type).strides(...).dynamism(...).make_tensor_ptr().
// The setters work on a named maker too (they return it as an rvalue);
// make_tensor_ptr() and the conversion need an rvalue: std::move(maker).
template <class B = DefaultBackend>
class TensorPtrMaker {
 public:
  TensorPtrMaker(void* data, std::vector<SizesType> sizes, ScalarType type)
      : data_(data), sizes_(std::move(sizes)), type_(type) {}
  TensorPtrMaker(const TensorPtrMaker&) = delete;
  TensorPtrMaker& operator=(const TensorPtrMaker&) = delete;
  TensorPtrMaker(TensorPtrMaker&&) = default;
  TensorPtrMaker& operator=(TensorPtrMaker&&) = default;

  TensorPtrMaker&& type(ScalarType t) { type_ = t; return std::move(*this); }
  TensorPtrMaker&& strides(std::vector<StridesType> s) { strides_ = std::move(s); return std::move(*this); }
  TensorPtrMaker&& dim_order(std::vector<DimOrderType> d) { dim_order_ = std::move(d); return std::move(*this); }
  TensorPtrMaker&& dynamism(TensorShapeDynamism d) { dynamism_ = d; return std::move(*this); }
  TensorPtrMaker&& deleter(std::function<void(void*)> d) { deleter_ = std::move(d); return std::move(*this); }
  // Where the data already lives (no data moves): must be backend B's device,
  // else make_tensor_ptr() throws DeviceError.
  TensorPtrMaker&& device(Device d) { device_ = d; return std::move(*this); }
  TensorPtrOn<B> make_tensor_ptr() && {
    return custody::tensor_ptr::make_tensor_ptr<B>(std::move(sizes_), data_, std::move(dim_order_),
                                                   std::move(strides_), type_, device_, dynamism_,
                                                   std::move(deleter_));
  }
  operator TensorPtrOn<B>() && { return std::move(*this).make_tensor_ptr(); }

 private:
  void* data_;
  std::vector<SizesType> sizes_;
  ScalarType type_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  TensorShapeDynamism dynamism_ = TensorShapeDynamism::DYNAMIC_BOUND;
  std::function<void(void*)> deleter_;
  Device device_ = B::device();
};

template <class B = DefaultBackend>
TensorPtrMaker<B> for_blob(void* data, std::vector<SizesType> sizes, ScalarType type = ScalarType::Float) {
  return TensorPtrMaker<B>(data, std::move(sizes), type);
}
// A typed pointer names its dtype (see from_blob).
template <class B = DefaultBackend, class T>
  requires Backend<B> && kIsScalarCppType<T>
TensorPtrMaker<B> for_blob(T* data, std::vector<SizesType> sizes, ScalarType type = scalar_type_of<T>) {
  return TensorPtrMaker<B>(static_cast<void*>(data), std::move(sizes), type);
}

// ---- scalar_tensor and the filled/random makers ---------------------------------------------

template <class B = DefaultBackend>
TensorPtrOn<B> scalar_tensor(Scalar value, ScalarType type = ScalarType::Float) {
  return TensorPtrOn<B>::scalar(value, type);
}

template <class B = DefaultBackend>
TensorPtrOn<B> empty(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                     TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::empty(sizes, type, dynamism);
}
template <class B = DefaultBackend>
TensorPtrOn<B> empty_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                             ScalarType type = ScalarType::Float,
                             TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::empty_strided(sizes, strides, type, dynamism);
}
template <class B>
TensorPtrOn<B> empty_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  return other.empty_like(type);
}

template <class B = DefaultBackend>
TensorPtrOn<B> full(std::vector<SizesType> sizes, Scalar fill_value, ScalarType type = ScalarType::Float,
                    TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::full(sizes, fill_value, type, dynamism);
}
template <class B = DefaultBackend>
TensorPtrOn<B> full_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                            Scalar fill_value, ScalarType type = ScalarType::Float) {
  return TensorPtrOn<B>::full_strided(sizes, strides, fill_value, type);
}
template <class B>
TensorPtrOn<B> full_like(const TensorPtrOn<B>& other, Scalar fill_value,
                         std::optional<ScalarType> type = std::nullopt) {
  return other.full_like(fill_value, type);
}

template <class B = DefaultBackend>
TensorPtrOn<B> zeros(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                     TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return full<B>(std::move(sizes), 0, type, dynamism);
}
template <class B = DefaultBackend>
TensorPtrOn<B> zeros_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                             ScalarType type = ScalarType::Float) {
  return full_strided<B>(std::move(sizes), std::move(strides), 0, type);
}
template <class B>
TensorPtrOn<B> zeros_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  return other.zeros_like(type);
}

template <class B = DefaultBackend>
TensorPtrOn<B> ones(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                    TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return full<B>(std::move(sizes), 1, type, dynamism);
}
template <class B = DefaultBackend>
TensorPtrOn<B> ones_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                            ScalarType type = ScalarType::Float) {
  return full_strided<B>(std::move(sizes), std::move(strides), 1, type);
}
template <class B>
TensorPtrOn<B> ones_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  return other.ones_like(type);
}

// Uniform samples in [0, 1) (rand) and standard normal ones (randn) of every
// dtype ExecuTorch's makers take: see internal::random_as.
template <class B = DefaultBackend>
TensorPtrOn<B> rand(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                    TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::random_as<B>("rand", sizes, contiguous_strides(sizes), type,
                                                     RandomDist::kUniform, dynamism));
}
template <class B = DefaultBackend>
TensorPtrOn<B> rand_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                            ScalarType type = ScalarType::Float) {
  return TensorPtrOn<B>::adopt(internal::random_as<B>("rand_strided", sizes, strides, type,
                                                     RandomDist::kUniform,
                                                     TensorShapeDynamism::DYNAMIC_BOUND));
}
// The *_like random makers keep other's sizes and dynamism (contiguous), with
// rand/randn's dtypes above.
template <class B>
TensorPtrOn<B> rand_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  const TensorImpl& t = other.checked_impl("rand_like");
  return TensorPtrOn<B>::adopt(internal::random_as<B>("rand_like", t.sizes(), contiguous_strides(t.sizes()),
                                                     type.value_or(t.scalar_type()),
                                                     RandomDist::kUniform, t.shape_dynamism()));
}

template <class B = DefaultBackend>
TensorPtrOn<B> randn(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                     TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::random_as<B>("randn", sizes, contiguous_strides(sizes), type,
                                                     RandomDist::kNormal, dynamism));
}
template <class B = DefaultBackend>
TensorPtrOn<B> randn_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                             ScalarType type = ScalarType::Float) {
  return TensorPtrOn<B>::adopt(internal::random_as<B>("randn_strided", sizes, strides, type,
                                                     RandomDist::kNormal,
                                                     TensorShapeDynamism::DYNAMIC_BOUND));
}
template <class B>
TensorPtrOn<B> randn_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  const TensorImpl& t = other.checked_impl("randn_like");
  return TensorPtrOn<B>::adopt(internal::random_as<B>("randn_like", t.sizes(), contiguous_strides(t.sizes()),
                                                     type.value_or(t.scalar_type()),
                                                     RandomDist::kNormal, t.shape_dynamism()));
}

// Integers in [low, high). ExecuTorch's default dtype is int32. Every integer
// dtype, bool, float32/64 and (as ExecuTorch's, int64 samples rounded)
// float16/bfloat16; [low, high) must fit the dtype (InvalidArgument, as ATen's
// randint; ExecuTorch wraps).
template <class B = DefaultBackend>
TensorPtrOn<B> randint(int64_t low, int64_t high, std::vector<SizesType> sizes,
                       ScalarType type = ScalarType::Int,
                       TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(
      internal::randint_as<B>("randint", low, high, sizes, contiguous_strides(sizes), type, dynamism));
}
template <class B = DefaultBackend>
TensorPtrOn<B> randint_strided(int64_t low, int64_t high, std::vector<SizesType> sizes,
                               std::vector<StridesType> strides, ScalarType type = ScalarType::Int) {
  return TensorPtrOn<B>::adopt(internal::randint_as<B>("randint_strided", low, high, sizes, strides,
                                                       type, TensorShapeDynamism::DYNAMIC_BOUND));
}
template <class B>
TensorPtrOn<B> randint_like(const TensorPtrOn<B>& other, int64_t low, int64_t high,
                            std::optional<ScalarType> type = std::nullopt) {
  const TensorImpl& t = other.checked_impl("randint_like");
  return TensorPtrOn<B>::adopt(internal::randint_as<B>("randint_like", low, high, t.sizes(),
                                                       contiguous_strides(t.sizes()),
                                                       type.value_or(t.scalar_type()),
                                                       t.shape_dynamism()));
}

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_
