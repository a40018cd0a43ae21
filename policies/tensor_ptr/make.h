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
using custody::internal::Unwrap;

// Strides from an explicit dim order (outermost first) or the given strides,
// checking that both agree when both are given.
Dims resolve_strides(const char* op, IntSpan sizes, const std::vector<DimOrderType>& dim_order,
                     const std::vector<StridesType>& strides);

// ShapeError unless `strides` lay `sizes` out densely (a permutation of row-major:
// every element of a numel-sized buffer used exactly once), as ExecuTorch requires.
void check_dense_strides(const char* op, IntSpan sizes, IntSpan strides);

template <class To, class From>
To cast_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
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
  const int64_t numel = Unwrap(checked_numel(sizes, op));
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
  ImplRef out = Ops<B>::empty_strided(sizes, strides, type, dyn, op);
  if (!bytes.empty()) ThrowIfError(B::copy_from_host(out->data(), bytes.data(), bytes.size()));
  return out;
}
}  // namespace internal

// ---- scalars -------------------------------------------------------------------

// A 0-dim tensor holding `value`, dtype deduced from T.
template <class B = DefaultBackend, class T>
  requires std::is_arithmetic_v<T>
TensorPtrOn<B> make_tensor_ptr(T value) {
  return TensorPtrOn<B>::adopt(internal::from_values<B, T>(
      "make_tensor_ptr", IntSpan(), IntSpan(), std::vector<T>{value}, scalar_type_of<T>,
      TensorShapeDynamism::STATIC));
}

// A 0-dim tensor holding `value` cast to `type` (canCast rules).
template <class B = DefaultBackend, class T>
  requires std::is_arithmetic_v<T>
TensorPtrOn<B> make_tensor_ptr(T value, ScalarType type) {
  return TensorPtrOn<B>::adopt(internal::from_values<B, T>(
      "make_tensor_ptr", IntSpan(), IntSpan(), std::vector<T>{value}, type,
      TensorShapeDynamism::STATIC));
}

// ---- owned data from vectors --------------------------------------------------------

// Sizes + data (owned copy, in storage order as ExecuTorch). Strides come from
// `strides`, else `dim_order`, else row-major, and must be dense (ShapeError). `type` defaults to T's dtype; a different one casts (canCast rules).
template <class B = DefaultBackend, class T>
  requires kIsScalarCppType<T>
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
  requires kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::vector<T> data, ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  const std::vector<SizesType> sizes{static_cast<SizesType>(data.size())};
  return TensorPtrOn<B>::adopt(internal::from_values<B, T>(
      "make_tensor_ptr", sizes, contiguous_strides(sizes), data, type, dynamism));
}

// Sizes + an initializer list of values (so `make_tensor_ptr({2, 3}, {1.f, ...})` deduces T).
template <class B = DefaultBackend, class T>
  requires kIsScalarCppType<T>
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
  requires kIsScalarCppType<T>
TensorPtrOn<B> make_tensor_ptr(std::initializer_list<T> list, ScalarType type = scalar_type_of<T>,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<B, T>(std::vector<T>(list), type, dynamism);
}

// Raw bytes reinterpreted as `type`; their count must be exactly numel * element_size.
template <class B = DefaultBackend>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, std::vector<uint8_t> data,
                               ScalarType type,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  const int64_t numel = internal::Unwrap(checked_numel(sizes, "make_tensor_ptr"));
  const size_t need = static_cast<size_t>(numel) * element_size(type);
  if (data.size() != need) {
    throw InvalidArgument(absl::StrFormat(
        "make_tensor_ptr: %d bytes of data do not match sizes %s of %s (need %d bytes)",
        data.size(), shape_str(sizes), dtype_name(type), need));
  }
  return TensorPtrOn<B>::adopt(internal::Ops<B>::from_host(data.data(), data.size(), type, sizes,
                                                           dynamism, "make_tensor_ptr"));
}

// ---- borrowed data from pointers ----------------------------------------------------

// Wraps `data` (memory of backend B) without copying. The caller keeps it alive
// unless `deleter` is given, which runs once when the last reference goes.
template <class B = DefaultBackend>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                               std::vector<DimOrderType> dim_order,
                               std::vector<StridesType> strides, ScalarType type = ScalarType::Float,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND,
                               std::function<void(void*)> deleter = nullptr) {
  const Dims st = internal::resolve_strides("make_tensor_ptr", sizes, dim_order, strides);
  return TensorPtrOn<B>::adopt(internal::Ops<B>::from_blob(data, sizes, IntSpan(st), type, dynamism,
                                                           std::move(deleter), "make_tensor_ptr"));
}

template <class B = DefaultBackend>
TensorPtrOn<B> make_tensor_ptr(std::vector<SizesType> sizes, void* data,
                               ScalarType type = ScalarType::Float,
                               TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND,
                               std::function<void(void*)> deleter = nullptr) {
  return make_tensor_ptr<B>(std::move(sizes), data, {}, {}, type, dynamism, std::move(deleter));
}

// ---- views of existing tensors -------------------------------------------------------

// A new TensorPtr with its own metadata over `tensor`'s data, keeping that data
// alive. With `sizes` (and optionally strides/dim order) it reinterprets the
// data; the view must fit inside the storage.
template <class B>
TensorPtrOn<B> make_tensor_ptr(const TensorPtrOn<B>& tensor, std::vector<SizesType> sizes = {},
                               std::vector<DimOrderType> dim_order = {},
                               std::vector<StridesType> strides = {}) {
  const TensorImpl& t = tensor.checked_impl("make_tensor_ptr");
  if (sizes.empty() && dim_order.empty() && strides.empty()) {
    return TensorPtrOn<B>::adopt(custody::internal::make_view(t, t.sizes(), t.strides(), t.storage_offset()));
  }
  const Dims st = internal::resolve_strides("make_tensor_ptr", sizes, dim_order, strides);
  const int64_t extent = internal::Unwrap(storage_extent(sizes, st, "make_tensor_ptr"));
  const size_t end_bytes = static_cast<size_t>(t.storage_offset() + extent) * t.element_size();
  if (end_bytes > t.storage()->nbytes()) {
    throw ShapeError(absl::StrFormat(
        "make_tensor_ptr: a view of sizes %s and strides %s needs %d bytes but the tensor's storage "
        "has %d", shape_str(sizes), shape_str(st), end_bytes, t.storage()->nbytes()));
  }
  return TensorPtrOn<B>::adopt(custody::internal::make_view(t, sizes, st, t.storage_offset()));
}

// A TensorPtr that owns a copy of `tensor`'s data (whether or not that was owned).
template <class B>
TensorPtrOn<B> clone_tensor_ptr(const TensorPtrOn<B>& tensor) {
  return tensor.clone();
}

// Resizes under the tensor's dynamism (ExecuTorch rules): STATIC never changes;
// DYNAMIC_BOUND up to the element count at creation; DYNAMIC_UNBOUND may grow
// (reallocating). The rank is immutable. Returns an error status, never throws
// for a rule violation.
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
  return TensorPtrOn<B>::adopt(internal::Ops<B>::from_blob(data, sizes, std::nullopt, type, dynamism,
                                                           nullptr, "from_blob"));
}

template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, std::vector<StridesType> strides,
                         ScalarType type = ScalarType::Float,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::from_blob(data, sizes, IntSpan(strides), type,
                                                           dynamism, nullptr, "from_blob"));
}

template <class B = DefaultBackend>
TensorPtrOn<B> from_blob(void* data, std::vector<SizesType> sizes, ScalarType type,
                         std::function<void(void*)> deleter,
                         TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::from_blob(data, sizes, std::nullopt, type, dynamism,
                                                           std::move(deleter), "from_blob"));
}

// Fluent builder: for_blob(data, sizes, type).strides(...).dynamism(...).make_tensor_ptr().
template <class B = DefaultBackend>
class TensorPtrMaker {
 public:
  TensorPtrMaker(void* data, std::vector<SizesType> sizes, ScalarType type)
      : data_(data), sizes_(std::move(sizes)), type_(type) {}
  TensorPtrMaker&& strides(std::vector<StridesType> s) && { strides_ = std::move(s); return std::move(*this); }
  TensorPtrMaker&& dim_order(std::vector<DimOrderType> d) && { dim_order_ = std::move(d); return std::move(*this); }
  TensorPtrMaker&& dynamism(TensorShapeDynamism d) && { dynamism_ = d; return std::move(*this); }
  TensorPtrMaker&& deleter(std::function<void(void*)> d) && { deleter_ = std::move(d); return std::move(*this); }
  TensorPtrOn<B> make_tensor_ptr() && {
    return custody::tensor_ptr::make_tensor_ptr<B>(std::move(sizes_), data_, std::move(dim_order_),
                                                   std::move(strides_), type_, dynamism_,
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
};

template <class B = DefaultBackend>
TensorPtrMaker<B> for_blob(void* data, std::vector<SizesType> sizes, ScalarType type = ScalarType::Float) {
  return TensorPtrMaker<B>(data, std::move(sizes), type);
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

template <class B = DefaultBackend>
TensorPtrOn<B> rand(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                    TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::random(sizes, contiguous_strides(sizes), type,
                                                        RandomDist::kUniform, 0, 1, dynamism, "rand"));
}
template <class B = DefaultBackend>
TensorPtrOn<B> rand_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                            ScalarType type = ScalarType::Float) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::random(sizes, strides, type, RandomDist::kUniform, 0,
                                                        1, TensorShapeDynamism::DYNAMIC_BOUND,
                                                        "rand_strided"));
}
template <class B>
TensorPtrOn<B> rand_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  return other.rand_like(type);
}

template <class B = DefaultBackend>
TensorPtrOn<B> randn(std::vector<SizesType> sizes, ScalarType type = ScalarType::Float,
                     TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::random(sizes, contiguous_strides(sizes), type,
                                                        RandomDist::kNormal, 0, 1, dynamism, "randn"));
}
template <class B = DefaultBackend>
TensorPtrOn<B> randn_strided(std::vector<SizesType> sizes, std::vector<StridesType> strides,
                             ScalarType type = ScalarType::Float) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::random(sizes, strides, type, RandomDist::kNormal, 0,
                                                        1, TensorShapeDynamism::DYNAMIC_BOUND,
                                                        "randn_strided"));
}
template <class B>
TensorPtrOn<B> randn_like(const TensorPtrOn<B>& other, std::optional<ScalarType> type = std::nullopt) {
  return other.randn_like(type);
}

// Integers in [low, high). ExecuTorch's default dtype is int32.
template <class B = DefaultBackend>
TensorPtrOn<B> randint(int64_t low, int64_t high, std::vector<SizesType> sizes,
                       ScalarType type = ScalarType::Int,
                       TensorShapeDynamism dynamism = TensorShapeDynamism::DYNAMIC_BOUND) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::randint(sizes, contiguous_strides(sizes), type,
                                                          low, high, dynamism, "randint"));
}
template <class B = DefaultBackend>
TensorPtrOn<B> randint_strided(int64_t low, int64_t high, std::vector<SizesType> sizes,
                               std::vector<StridesType> strides, ScalarType type = ScalarType::Int) {
  return TensorPtrOn<B>::adopt(internal::Ops<B>::randint(
      sizes, strides, type, low, high, TensorShapeDynamism::DYNAMIC_BOUND, "randint_strided"));
}
template <class B>
TensorPtrOn<B> randint_like(const TensorPtrOn<B>& other, int64_t low, int64_t high,
                            std::optional<ScalarType> type = std::nullopt) {
  return other.randint_like(low, high, type);
}

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_H_
