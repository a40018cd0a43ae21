// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make_blob.h — from_blob (a tensor over memory the caller
// gives, without copying) and for_blob's builder, TensorPtrMaker.
//
// Part of the maker API: policies/tensor_ptr/make.h defines DefaultBackend and
// the size types, then includes this header; include make.h, not this.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_BLOB_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_BLOB_H_

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "core/ops.h"
#include "policies/tensor_ptr/make_internal.h"
#include "policies/tensor_ptr/make_tensor_ptr.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::tensor_ptr {

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

}  // namespace custody::tensor_ptr

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_BLOB_H_
