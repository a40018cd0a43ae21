// Copyright 2026 The custody Authors.

#include "core/host_allocator.h"

#include <bit>
#include <cstdlib>

#include "absl/strings/str_format.h"
#include "core/asan.h"

// Cached blocks are poisoned under AddressSanitizer (core/asan.h), so a use
// after free of a tensor's memory is still reported.

namespace custody {

size_t CachingHostAllocator::class_size(size_t bytes) {
  if (bytes <= kAlignment) return kAlignment;
  // 2^(lg-1) < bytes <= 2^lg: round up to a multiple of 2^(lg-3), four classes per power of two.
  const int lg = std::bit_width(bytes - 1);
  const size_t step = size_t{1} << (lg - 3);
  return (bytes + step - 1) & ~(step - 1);
}

// Index 0 is the 64-byte class; then, for each power of two 2^lg (lg >= 7), the
// four classes 2^(lg-1) + q * 2^(lg-3), q = 1..4.
int CachingHostAllocator::class_index(size_t class_bytes) {
  if (class_bytes <= kAlignment) return 0;
  const int lg = std::bit_width(class_bytes - 1);
  const int q = static_cast<int>((class_bytes - (size_t{1} << (lg - 1))) >> (lg - 3));  // 1..4
  return 4 * (lg - 7) + q;
}

size_t CachingHostAllocator::class_bytes(int index) {
  if (index == 0) return kAlignment;
  const int lg = (index - 1) / 4 + 7;
  const size_t q = static_cast<size_t>((index - 1) % 4 + 1);
  return (size_t{1} << (lg - 1)) + (q << (lg - 3));
}

// What a block of class `cls` really takes from the system: aligned_alloc wants
// a multiple of the alignment (ASan's refuses anything else).
size_t CachingHostAllocator::block_bytes(size_t cls) { return (cls + kAlignment - 1) & ~(kAlignment - 1); }

bool CachingHostAllocator::classes_consistent() {
  for (int i = 0; i < kClasses; ++i) {
    const size_t c = class_bytes(i);
    if (class_index(c) != i || class_size(c) != c) return false;
    if (i > 0 && class_size(class_bytes(i - 1) + 1) != c) return false;
  }
  return true;
}

absl::StatusOr<void*> CachingHostAllocator::allocate(size_t bytes) {
  if (bytes > (size_t{1} << 62)) {
    return absl::ResourceExhaustedError(absl::StrFormat("%d bytes is not allocatable", bytes));
  }
  const size_t cls = class_size(bytes);
  const int idx = class_index(cls);
  void* p = nullptr;
  {
    SpinLockHolder lock(&mu_);
    if (auto& list = free_[idx]; !list.empty()) {
      p = list.back();
      list.pop_back();
      cached_bytes_ -= static_cast<int64_t>(block_bytes(cls));
    }
  }
  if (p != nullptr) CUSTODY_UNPOISON(p, block_bytes(cls));
  if (p == nullptr) {
    p = std::aligned_alloc(kAlignment, block_bytes(cls));
    if (p == nullptr && reclaim() > 0) p = std::aligned_alloc(kAlignment, block_bytes(cls));
    if (p == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("out of host memory allocating %d bytes (%d in use, %d reserved)", bytes,
                          stats_->snapshot().bytes_in_use, stats_->snapshot().reserved_bytes));
    }
    stats_->add_reserved(static_cast<int64_t>(block_bytes(cls)));
  }
  stats_->on_alloc(static_cast<int64_t>(bytes), p);
  return p;
}

void CachingHostAllocator::deallocate(void* p, size_t bytes) {
  if (p == nullptr) return;
  const size_t cls = class_size(bytes);
  stats_->on_free(static_cast<int64_t>(bytes), p);
  {
    SpinLockHolder lock(&mu_);
    if (cached_bytes_ + static_cast<int64_t>(block_bytes(cls)) <= cache_limit_) {
      CUSTODY_POISON(p, block_bytes(cls));
      free_[class_index(cls)].push_back(p);
      cached_bytes_ += static_cast<int64_t>(block_bytes(cls));
      return;
    }
  }
  std::free(p);
  stats_->add_reserved(-static_cast<int64_t>(block_bytes(cls)));
}

int64_t CachingHostAllocator::reclaim() {
  std::array<std::vector<void*>, kClasses> taken;
  {
    SpinLockHolder lock(&mu_);
    taken.swap(free_);
    cached_bytes_ = 0;
  }
  int64_t returned = 0;
  for (int idx = 0; idx < kClasses; ++idx) {
    for (void* p : taken[idx]) {
      CUSTODY_UNPOISON(p, block_bytes(class_bytes(idx)));
      std::free(p);
    }
    returned += static_cast<int64_t>(block_bytes(class_bytes(idx)) * taken[idx].size());
  }
  stats_->add_reserved(-returned);
  return returned;
}

int64_t CachingHostAllocator::cached_bytes() const {
  SpinLockHolder lock(&mu_);
  return cached_bytes_;
}

int64_t CachingHostAllocator::cache_limit() const {
  SpinLockHolder lock(&mu_);
  return cache_limit_;
}

void CachingHostAllocator::set_cache_limit(int64_t bytes) {
  {
    SpinLockHolder lock(&mu_);
    cache_limit_ = bytes;
    if (cached_bytes_ <= cache_limit_) return;
  }
  reclaim();
}

}  // namespace custody
