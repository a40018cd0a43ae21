// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/executorch.h — ExecuTorch's namespaces and spellings over
// custody's tensor_ptr policy, so that code written against ExecuTorch's
// `extension/tensor` compiles after changing only its includes:
//
//   // #include <executorch/extension/tensor/tensor.h>
//   #include "policies/tensor_ptr/executorch.h"
//
//   using namespace ::executorch::extension;
//   auto t = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
//   auto v = make_tensor_ptr(t, {3, 2});                 // a view
//   auto c = clone_tensor_ptr(*t, executorch::aten::ScalarType::Double);
//   if (resize_tensor_ptr(t, {1, 3}) != executorch::runtime::Error::Ok) { ... }
//
// What maps to what:
//  * executorch::aten::Tensor is custody::TensorImpl (what `*tensor_ptr`
//    gives: sizes(), strides(), dim_order(), scalar_type(), const_data_ptr<T>(),
//    mutable_data_ptr(), unsafeGetTensorImpl(), ...); TensorPtr is custody's
//    TensorPtr on the default CPU backend (onednn, or aten with
//    --//backends:backend=aten), which has std::shared_ptr's face.
//  * SizesType and StridesType are int64_t (ExecuTorch's ATen mode; its portable
//    mode uses int32_t): code that spells the aliases is unaffected.
//  * executorch::runtime::Error has ExecuTorch's values; resize_tensor_ptr
//    returns it (NotSupported for a resize the dynamism or rank forbids).
//  * The names of ExecuTorch's exec_aten.h (ArrayRef is absl::Span<const T>,
//    what sizes() returns) and scalar_type_util.h (elementSize, toString,
//    promoteTypes, ...), runtime_init and Result, the deprecated exec_aten
//    alias, and tensor_accessor.h's make_tensor_accessor.
//  * A maker over a pointer takes a null one (data bound later with
//    TensorImpl::set_data); an op that reads such a tensor throws
//    custody::InvalidArgument.
//  * Every other difference is listed in policies/tensor_ptr/EXECUTORCH.md.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_EXECUTORCH_H_
#define CUSTODY_POLICIES_TENSOR_PTR_EXECUTORCH_H_

#include <sys/types.h>  // ssize_t

#include <complex>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/storage.h"
#include "core/tensor_impl.h"
#include "policies/tensor_ptr/make.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace executorch {

namespace aten {
// The names of ExecuTorch's runtime/core/exec_aten/exec_aten.h.
using Tensor = ::custody::TensorImpl;
using TensorImpl = ::custody::TensorImpl;
using ScalarType = ::custody::ScalarType;
using Scalar = ::custody::Scalar;
using SizesType = ::custody::tensor_ptr::SizesType;
using StridesType = ::custody::tensor_ptr::StridesType;
using DimOrderType = ::custody::tensor_ptr::DimOrderType;
using TensorShapeDynamism = ::custody::TensorShapeDynamism;
using Device = ::custody::Device;
using DeviceType = ::custody::DeviceType;
using DeviceIndex = int;
using Half = ::custody::Half;
using BFloat16 = ::custody::BFloat16;
// What Tensor::sizes() and strides() return (custody's IntSpan is absl::Span<const int64_t>).
template <class T>
using ArrayRef = absl::Span<const T>;
using IntArrayRef = ArrayRef<int64_t>;
template <class T>
using OptionalArrayRef = std::optional<ArrayRef<T>>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;
using TensorList = ArrayRef<Tensor>;
template <class T>
using optional = std::optional<T>;
using nullopt_t = std::nullopt_t;
using std::nullopt;
using string_view = std::string_view;
// ExecuTorch's portable enums (it has one layout and two memory formats).
enum class Layout : int8_t { Strided = 0 };
enum class MemoryFormat : int8_t { Contiguous, Preserve };
// Element types with no custody dtype (complex and quantized tensors are not
// supported): the names compile, no tensor holds them.
template <class T>
using complex = std::complex<T>;
struct qint8 { using underlying = int8_t; int8_t val_; };
struct quint8 { using underlying = uint8_t; uint8_t val_; };
struct qint32 { using underlying = int32_t; int32_t val_; };
struct quint4x2 { using underlying = uint8_t; uint8_t val_; };
struct quint2x4 { using underlying = uint8_t; uint8_t val_; };

inline size_t elementSize(ScalarType t) { return ::custody::element_size(t); }
// The element count of `sizes[0..dim)`; ShapeError for a negative size or an
// overflow (ExecuTorch aborts).
inline ssize_t compute_numel(const SizesType* sizes, ssize_t dim) {
  return static_cast<ssize_t>(::custody::ValueOrThrow(
      ::custody::checked_numel(::custody::IntSpan(sizes, static_cast<size_t>(dim)), "compute_numel")));
}
}  // namespace aten

namespace runtime {

// ExecuTorch's runtime::Error, with its values.
enum class Error : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
};

// The Error for a custody status: kUnimplemented is NotSupported (a resize the
// tensor's dynamism or rank forbids), kInvalidArgument InvalidArgument,
// kResourceExhausted MemoryAllocationFailed, kFailedPrecondition (a null
// TensorPtr) InvalidState, anything else Internal.
inline Error to_error(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return Error::Ok;
    case absl::StatusCode::kUnimplemented: return Error::NotSupported;
    case absl::StatusCode::kInvalidArgument: return Error::InvalidArgument;
    case absl::StatusCode::kResourceExhausted: return Error::MemoryAllocationFailed;
    case absl::StatusCode::kFailedPrecondition: return Error::InvalidState;
    default: return Error::Internal;
  }
}

// ExecuTorch initializes its platform layer here; custody has nothing to set up.
inline void runtime_init() {}

// A value or the Error why there is none (ExecuTorch's runtime/core/result.h),
// as make_tensor_accessor returns it.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as ExecuTorch's
  Result(Error error) : value_(error == Error::Ok ? Error::Internal : error) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(value_); }
  Error error() const { return ok() ? Error::Ok : std::get<Error>(value_); }
  // The value; a custody::Error (InvalidArgument) when there is none (ExecuTorch aborts).
  T& get() { return checked(); }
  const T& get() const { return const_cast<Result*>(this)->checked(); }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }

 private:
  T& checked() {
    if (!ok()) {
      throw ::custody::InvalidArgument(absl::StrFormat(
          "Result::get: no value (error 0x%x)", static_cast<uint32_t>(std::get<Error>(value_))));
    }
    return std::get<T>(value_);
  }
  std::variant<T, Error> value_;
};

inline bool canCast(aten::ScalarType from, aten::ScalarType to) { return ::custody::can_cast(from, to); }
using aten::elementSize;
// ExecuTorch's names: "Byte", "Float", "BFloat16", ...
inline const char* toString(aten::ScalarType t) {
  switch (t) {
#define CUSTODY_ET_NAME_(index, cpp, name, number, text) \
  case aten::ScalarType::name:                          \
    return #name;
    CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_ET_NAME_)
#undef CUSTODY_ET_NAME_
  }
  return "UNKNOWN_SCALAR";
}
inline bool isValid(aten::ScalarType t) {
  for (aten::ScalarType v : ::custody::kAllScalarTypes) {
    if (v == t) return true;
  }
  return false;
}
// As ExecuTorch's (ATen's) promotion; half_to_float makes float16/bfloat16 float32.
inline aten::ScalarType promoteTypes(aten::ScalarType a, aten::ScalarType b, bool half_to_float = false) {
  const aten::ScalarType r = ::custody::promote_types(a, b, "promoteTypes");
  return half_to_float && ::custody::is_storage_only(r) ? aten::ScalarType::Float : r;
}
inline bool isComplexType(aten::ScalarType) { return false; }  // custody has no complex dtypes
inline bool isQIntType(aten::ScalarType) { return false; }     // nor quantized ones
inline bool isFloatingType(aten::ScalarType t) { return ::custody::is_floating_point(t); }
// As ExecuTorch's: uint16/32/64 are not "integral" (they are barebones unsigned).
inline bool isIntegralType(aten::ScalarType t, bool include_bool) {
  return ::custody::is_integral(t, include_bool);
}
inline bool isBarebonesUnsignedType(aten::ScalarType t) { return ::custody::is_barebones_unsigned(t); }
template <class T>
struct CppTypeToScalarType {
  static constexpr aten::ScalarType value = ::custody::scalar_type_of<T>;
};
template <aten::ScalarType t>
struct ScalarTypeToCppType {
  using type = typename ::custody::ScalarTypeToCpp<t>::type;
};

namespace etensor {
using Device = ::custody::Device;
using DeviceType = ::custody::DeviceType;
using DeviceIndex = int;
}  // namespace etensor

}  // namespace runtime

namespace extension {

// ExecuTorch's TensorPtr is the default backend's (Note [The makers' default
// backend], make.h): there with the flag-chosen facade, //custody:tensor_ptr.
#if defined(CUSTODY_SELECTED_BACKEND_TYPE)
using ::custody::tensor_ptr::TensorPtr;
#endif
using ::custody::tensor_ptr::TensorPtrMaker;

using ::custody::tensor_ptr::clone_tensor_ptr;
using ::custody::tensor_ptr::clone_tensor_ptr_to;
using ::custody::tensor_ptr::convert_tensor_ptr;
using ::custody::tensor_ptr::empty;
using ::custody::tensor_ptr::empty_like;
using ::custody::tensor_ptr::empty_strided;
using ::custody::tensor_ptr::for_blob;
using ::custody::tensor_ptr::from_blob;
using ::custody::tensor_ptr::full;
using ::custody::tensor_ptr::full_like;
using ::custody::tensor_ptr::full_strided;
using ::custody::tensor_ptr::make_tensor_ptr;
using ::custody::tensor_ptr::ones;
using ::custody::tensor_ptr::ones_like;
using ::custody::tensor_ptr::ones_strided;
using ::custody::tensor_ptr::rand;
using ::custody::tensor_ptr::rand_like;
using ::custody::tensor_ptr::rand_strided;
using ::custody::tensor_ptr::randint;
using ::custody::tensor_ptr::randint_like;
using ::custody::tensor_ptr::randint_strided;
using ::custody::tensor_ptr::randn;
using ::custody::tensor_ptr::randn_like;
using ::custody::tensor_ptr::randn_strided;
using ::custody::tensor_ptr::scalar_tensor;
using ::custody::tensor_ptr::zeros;
using ::custody::tensor_ptr::zeros_like;
using ::custody::tensor_ptr::zeros_strided;

// ExecuTorch's resize_tensor_ptr returns runtime::Error (custody's returns
// absl::Status). A non-template, so it is chosen over custody's template, which
// argument-dependent lookup also finds.
[[nodiscard]] inline runtime::Error resize_tensor_ptr(TensorPtr& tensor,
                                                      const std::vector<aten::SizesType>& sizes) {
  return runtime::to_error(::custody::tensor_ptr::resize_tensor_ptr(tensor, sizes));
}

// ---- tensor_accessor.h ---------------------------------------------------------

// Indexes a host tensor's elements in place: `acc[i][j]` for rank 2, as
// ExecuTorch's TensorAccessor (made only by make_tensor_accessor). Indices are
// not checked; size(i) and stride(i) are (custody::Error).
template <class T, ssize_t N>
class TensorAccessor {
 public:
  aten::SizesType size(ssize_t i) const { return sizes_[checked_dim(i)]; }
  aten::StridesType stride(ssize_t i) const { return strides_[checked_dim(i)]; }
  // The accessor of rank N - 1 at index i of the outermost dim, or for N == 1
  // the element.
  decltype(auto) operator[](ssize_t i) const {
    if constexpr (N == 1) {
      return data_[strides_[0] * i];
    } else {
      return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
    }
  }

 private:
  template <class, ssize_t> friend class TensorAccessor;
  template <class T2, ssize_t N2>
  friend runtime::Result<TensorAccessor<T2, N2>> make_tensor_accessor(const aten::Tensor& tensor);
  TensorAccessor(T* data, const aten::SizesType* sizes, const aten::StridesType* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  ssize_t checked_dim(ssize_t i) const {
    if (i < 0 || i >= N) {
      throw ::custody::InvalidArgument(absl::StrFormat(
          "TensorAccessor: dim %d is outside [0, %d]", static_cast<int64_t>(i), static_cast<int64_t>(N) - 1));
    }
    return i;
  }
  T* data_;
  const aten::SizesType* sizes_;
  const aten::StridesType* strides_;
};

// A TensorAccessor<T, N> over `tensor`, which must outlive it: InvalidArgument
// unless N is its rank and sizeof(T) its element size (as ExecuTorch, the
// dtype itself is not compared), NotSupported for a dim order other than
// row-major. Unlike ExecuTorch, a tensor without data (null) is
// InvalidArgument, and so is one on a device the host cannot address.
template <class T, ssize_t N>
runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(const aten::Tensor& tensor) {
  static_assert(N > 0,
                "a TensorAccessor indexes a tensor of rank >= 1; read a scalar with const_data_ptr<T>()");
  if (N != tensor.dim() || sizeof(T) != tensor.element_size()) return runtime::Error::InvalidArgument;
  if (tensor.device().type() != ::custody::DeviceType::CPU) return runtime::Error::InvalidArgument;
  if (tensor.storage()->data() == nullptr && tensor.numel() > 0) return runtime::Error::InvalidArgument;
  const ::custody::Dims order = tensor.dim_order();
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int64_t>(i)) return runtime::Error::NotSupported;
  }
  return TensorAccessor<T, N>(static_cast<T*>(tensor.mutable_data_ptr()), tensor.sizes().data(),
                              tensor.strides().data());
}

}  // namespace extension

}  // namespace executorch

// ExecuTorch's deprecated name of executorch::aten.
namespace exec_aten = ::executorch::aten;

#endif  // CUSTODY_POLICIES_TENSOR_PTR_EXECUTORCH_H_
