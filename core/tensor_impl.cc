// Copyright 2026 The custody Authors.

#include "core/tensor_impl.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>
#include <utility>

#include "core/autograd/meta.h"
#include "core/object_cache.h"
#include "core/reclaim.h"

namespace custody {

namespace internal {

struct TensorBlock {
  // Constructed with placement new into the two slots; destroyed part by part.
  alignas(TensorImpl) unsigned char impl[sizeof(TensorImpl)];
  alignas(Storage) unsigned char storage[sizeof(Storage)];
  std::atomic<int> live_parts{2};

  static TensorBlock* make();
  static void release_part(TensorBlock* b);
  // Destroys `b` (both parts already destroyed) and caches its memory.
  static void free(TensorBlock* b);
};

// Up to 1024 freed blocks per thread (~250 KiB): a scope's end, or a gc
// collection, frees its tensors' blocks at once, and the next step takes them
// back from here instead of from malloc (policy_benchmark's
// inner_scope_every_1000 cases measure it; docs/decisions.md).
using BlockCache = ThreadObjectCache<TensorBlock, 1024>;

TensorBlock* TensorBlock::make() {
  return ::new (BlockCache::allocate()) TensorBlock;
}

void TensorBlock::release_part(TensorBlock* b) {
  // The other part gone, this one is the last: no RMW (Note [A tensor's death
  // without RMWs]).
  if (b->live_parts.load(std::memory_order_acquire) != 1 &&
      b->live_parts.fetch_sub(1, std::memory_order_acq_rel) != 1) {
    return;
  }
  free(b);
}

void TensorBlock::free(TensorBlock* b) {
  b->~TensorBlock();
  BlockCache::deallocate(b);  // Note [Thread object cache]
}

}  // namespace internal

void TensorImpl::init(int64_t storage_offset, IntSpan sizes, IntSpan strides, ScalarType dtype,
                      TensorShapeDynamism dynamism, MemoryStats* stats) {
  storage_offset_ = storage_offset;
  dims_.assign(sizes, strides);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  numel_ = n;
  capacity_ = n;
  dtype_ = dtype;
  dynamism_ = sizes.empty() ? TensorShapeDynamism::STATIC : dynamism;
  contiguous_ = custody::is_contiguous(sizes, strides);
  stats_ = stats;
  if (stats) stats->on_tensor_created();
}

Ref<TensorImpl> TensorImpl::Create(Ref<Storage> storage, int64_t storage_offset, IntSpan sizes,
                                   IntSpan strides, ScalarType dtype,
                                   TensorShapeDynamism dynamism, MemoryStats* stats) {
  internal::maybe_fail_metadata("a TensorImpl");  // Note [Allocation-failure injection]
  auto* t = new TensorImpl();
  t->storage_ = std::move(storage);
  t->init(storage_offset, sizes, strides, dtype, dynamism, stats);
  return Ref<TensorImpl>(kAdopt, t);
}

TensorImpl* TensorImpl::MakeOwning(void* data, size_t nbytes, Device device, Storage::FreeFn free_fn,
                                   MemoryStats* stats) {
  internal::TensorBlock* b;
  try {
    internal::maybe_fail_metadata("the block of a TensorImpl and its Storage");
    b = internal::TensorBlock::make();
  } catch (...) {
    free_fn(data, nbytes);  // the data is ours from the call on: give it back
    throw;
  }
  auto* s = ::new (b->storage) Storage(data, nbytes, device, stats, free_fn);
  s->block_ = b;
  auto* t = ::new (b->impl) TensorImpl();
  t->block_ = b;
  t->storage_ = Ref<Storage>(kAdopt, s);
  return t;
}

Ref<TensorImpl> TensorImpl::CreateOwning(void* data, size_t nbytes, Device device,
                                         Storage::FreeFn free_fn, IntSpan sizes, IntSpan strides,
                                         ScalarType dtype, TensorShapeDynamism dynamism,
                                         MemoryStats* stats) {
  TensorImpl* t = MakeOwning(data, nbytes, device, free_fn, stats);
  t->init(0, sizes, strides, dtype, dynamism, stats);
  return Ref<TensorImpl>(kAdopt, t);
}

Ref<TensorImpl> TensorImpl::CreateOwningContiguous(void* data, size_t nbytes, Device device,
                                                   Storage::FreeFn free_fn, IntSpan sizes,
                                                   int64_t numel, ScalarType dtype,
                                                   TensorShapeDynamism dynamism,
                                                   MemoryStats* stats) {
  TensorImpl* t = MakeOwning(data, nbytes, device, free_fn, stats);
  t->set_contiguous(sizes);
  t->numel_ = numel;
  t->capacity_ = numel;
  t->dtype_ = dtype;
  t->dynamism_ = sizes.empty() ? TensorShapeDynamism::STATIC : dynamism;
  t->contiguous_ = true;
  t->stats_ = stats;
  if (stats) stats->on_tensor_created();
  return Ref<TensorImpl>(kAdopt, t);
}

void TensorImpl::set_contiguous(IntSpan sizes) {
  dims_.resize(sizes.size());
  int64_t* sz = dims_.sizes_data();
  int64_t* st = dims_.strides_data();
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    sz[i] = sizes[i];
    st[i] = s;
    // Saturate as contiguous_strides does (sizes with a 0 may overflow the rest).
    if (__builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s)) s = INT64_MAX;
  }
}

TensorImpl::~TensorImpl() {
  if (autograd_meta_ != nullptr) [[unlikely]] reset_autograd_meta();
  if (stats_) stats_->on_tensor_destroyed();
}

autograd::internal::AutogradMeta& TensorImpl::ensure_autograd_meta() const {
  if (autograd_meta_ == nullptr) autograd_meta_ = new autograd::internal::AutogradMeta();
  return *autograd_meta_;
}

void TensorImpl::reset_autograd_meta() const {
  // The meta may hold the last reference on a graph whose nodes hold tensors:
  // unlink it first, so that nothing reached from here sees a half-dead meta.
  autograd::internal::AutogradMeta* m = std::exchange(autograd_meta_, nullptr);
  // Edges to this leaf deliver nothing from now on (GradAccumulator).
  if (m->accumulator) m->accumulator->forget(this);
  delete m;
}

void TensorImpl::Destroy(TensorImpl* t) {
  internal::TensorBlock* b = t->block_;
  if (b == nullptr) {
    delete t;
    return;
  }
  // Note [A tensor's death without RMWs]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // Its Storage in the same block and referenced by it alone (an acquire load
  // reads 1: every other reference was given back by a release decrement, and
  // none can be made, as a reference is only copied from one its copier
  // holds): both parts die here and nothing else can reach either, so the
  // Storage's count and the block's part count are not decremented. A
  // short-lived tensor's death costs one locked instruction, its TensorImpl's
  // count, instead of four (that count, its Storage's, the block's two parts).
  // RefCounted::release_ref() keeps its decrement: the same load there would
  // slow every release that is not the last, and alias + dispose, the
  // policies' hottest path, is such a release (docs/decisions.md).
  if (Storage* s = t->storage_.get();
      s != nullptr && s->block_ == b && s->use_count() == 1) {
    Storage* storage = t->storage_.leak();
    t->~TensorImpl();
    storage->~Storage();
    internal::TensorBlock::free(b);
    return;
  }
  t->~TensorImpl();  // drops the Storage reference: may destroy the other part first
  internal::TensorBlock::release_part(b);
}

void Storage::Destroy(Storage* s) {
  internal::TensorBlock* b = s->block_;
  if (b == nullptr) {
    delete s;
    return;
  }
  s->~Storage();
  internal::TensorBlock::release_part(b);
}

void TensorImpl::set_sizes_contiguous(IntSpan sizes, int64_t numel) {
  set_contiguous(sizes);
  numel_ = numel;
  contiguous_ = true;
}

void TensorImpl::set_data(void* data) {
  if (reinterpret_cast<uintptr_t>(data) % element_size() != 0) {
    throw InvalidArgument(absl::StrFormat(
        "set_data: data pointer %p is not aligned to %d bytes, as a %s tensor needs", data,
        element_size(), dtype_name(dtype_)));
  }
  const int64_t extent = ValueOrThrow(storage_extent(sizes(), strides(), "set_data"));
  const size_t nbytes = static_cast<size_t>(std::max(extent, capacity_)) * element_size();
  storage_ = Storage::Borrowed(data, nbytes, storage_->device(), stats_, nullptr);
  storage_offset_ = 0;
}

void TensorImpl::set_storage(Ref<Storage> storage, int64_t capacity) {
  storage_ = std::move(storage);
  storage_offset_ = 0;
  capacity_ = capacity;
}

}  // namespace custody
