// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/make_filled.h — the makers that fill a new tensor:
// scalar_tensor, empty, full, zeros, ones, rand, randn and randint, with their
// _strided and _like forms.
//
// Part of the maker API: policies/tensor_ptr/make.h defines DefaultBackend and
// the size types, then includes this header; include make.h, not this.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKE_FILLED_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKE_FILLED_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/ops.h"
#include "policies/tensor_ptr/make_internal.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::tensor_ptr {

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

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKE_FILLED_H_
