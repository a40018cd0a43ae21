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
//  * Every other difference is listed in policies/tensor_ptr/EXECUTORCH.md.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_EXECUTORCH_H_
#define CUSTODY_POLICIES_TENSOR_PTR_EXECUTORCH_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/scalar.h"
#include "core/storage.h"
#include "core/tensor_impl.h"
#include "policies/tensor_ptr/make.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace executorch {

namespace aten {
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

inline bool canCast(aten::ScalarType from, aten::ScalarType to) { return ::custody::can_cast(from, to); }
inline size_t elementSize(aten::ScalarType t) { return ::custody::element_size(t); }
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

namespace etensor {
using Device = ::custody::Device;
using DeviceType = ::custody::DeviceType;
using DeviceIndex = int;
}  // namespace etensor

}  // namespace runtime

namespace extension {

using ::custody::tensor_ptr::TensorPtr;
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

}  // namespace extension

}  // namespace executorch

#endif  // CUSTODY_POLICIES_TENSOR_PTR_EXECUTORCH_H_
