// Copyright 2026 The custody Authors.

#include "core/tensor_impl.h"

namespace custody {

Ref<TensorImpl> TensorImpl::Create(Ref<Storage> storage, int64_t storage_offset, IntSpan sizes,
                                   IntSpan strides, ScalarType dtype,
                                   TensorShapeDynamism dynamism, MemoryStats* stats) {
  auto* t = new TensorImpl();
  t->storage_ = std::move(storage);
  t->storage_offset_ = storage_offset;
  t->sizes_.assign(sizes.begin(), sizes.end());
  t->strides_.assign(strides.begin(), strides.end());
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  t->numel_ = n;
  t->capacity_ = n;
  t->dtype_ = dtype;
  t->dynamism_ = sizes.empty() ? TensorShapeDynamism::STATIC : dynamism;
  t->contiguous_ = custody::is_contiguous(sizes, strides);
  t->stats_ = stats;
  if (stats) stats->on_tensor_created();
  return Ref<TensorImpl>(kAdopt, t);
}

TensorImpl::~TensorImpl() {
  if (stats_) stats_->on_tensor_destroyed();
}

void TensorImpl::Destroy(TensorImpl* t) { delete t; }

void TensorImpl::set_sizes_contiguous(IntSpan sizes, int64_t numel) {
  sizes_.assign(sizes.begin(), sizes.end());
  strides_ = contiguous_strides(sizes);
  numel_ = numel;
  contiguous_ = true;
}

void TensorImpl::set_storage(Ref<Storage> storage, int64_t capacity) {
  storage_ = std::move(storage);
  storage_offset_ = 0;
  capacity_ = capacity;
}

}  // namespace custody
