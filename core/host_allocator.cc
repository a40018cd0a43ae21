// Copyright 2026 The custody Authors.

#include "core/host_allocator.h"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "absl/strings/str_format.h"
#include "core/asan.h"

// Cached blocks are poisoned under AddressSanitizer (core/asan.h), so a use
// after free of a tensor's memory is still reported.

namespace custody {

// The classes kept per thread: up to kThreadCacheMaxBytes (Note [Per-thread blocks]).
constexpr int kThreadClasses = 25;

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
  if (class_index(class_size(kThreadCacheMaxBytes)) != kThreadClasses - 1) return false;
  for (int i = 0; i < kClasses; ++i) {
    const size_t c = class_bytes(i);
    if (class_index(c) != i || class_size(c) != c) return false;
    if (i > 0 && class_size(class_bytes(i - 1) + 1) != c) return false;
  }
  return true;
}

// Note [Per-thread blocks] (host_allocator.h): a thread's blocks, for up to
// kAllocators allocators. constinit and trivially destructible, so reading it
// costs no TLS initialisation check; the exit hook (a thread_local with a
// destructor) is armed when a thread first keeps a block.
struct ThreadBlocks {
  static constexpr int kAllocators = 2;
  static constexpr int kClasses = kThreadClasses;  // checked by classes_consistent()
  static constexpr int kPerClass = CachingHostAllocator::kThreadBlocksPerClass;
  struct Slot {
    CachingHostAllocator* owner;
    uint8_t count[kClasses];
    void* blocks[kClasses][kPerClass];
  };
  Slot slots[kAllocators];
  bool exited;  // the exit hook ran: this thread keeps nothing any more

  // This thread's slot of `a`, or null.
  Slot* find(const CachingHostAllocator* a) {
    for (Slot& s : slots) {
      if (s.owner == a) return &s;
    }
    return nullptr;
  }
  // This thread's slot of `a`, claimed if need be; null if none is free.
  Slot* claim(CachingHostAllocator* a);
  // Gives every block of `s` back to its allocator's shared lists.
  static void give_back(Slot& s);
  // give_back(), and the slot is free for another allocator.
  static void release(Slot& s) {
    give_back(s);
    s.owner = nullptr;
  }
};

static constinit thread_local ThreadBlocks tls_blocks{};

struct ThreadBlocksExit {
  ~ThreadBlocksExit() {
    ThreadBlocks& t = tls_blocks;
    t.exited = true;  // frees from later thread_local destructors go to the shared lists
    for (ThreadBlocks::Slot& s : t.slots) {
      if (s.owner != nullptr) ThreadBlocks::give_back(s);
    }
  }
};

ThreadBlocks::Slot* ThreadBlocks::claim(CachingHostAllocator* a) {
  if (Slot* s = find(a); s != nullptr) return s;
  if (exited) return nullptr;
  for (Slot& s : slots) {
    if (s.owner == nullptr) {
      static_assert(kClasses * kPerClass * sizeof(void*) <= 2048);
      static thread_local ThreadBlocksExit hook;  // armed on first use
      (void)&hook;
      s.owner = a;
      return &s;
    }
  }
  return nullptr;  // more allocators than slots: this one uses its shared lists
}

void ThreadBlocks::give_back(Slot& s) {
  for (int idx = 0; idx < kClasses; ++idx) {
    const size_t block = CachingHostAllocator::block_bytes(CachingHostAllocator::class_bytes(idx));
    for (int i = 0; i < s.count[idx]; ++i) {
      CUSTODY_UNPOISON(s.blocks[idx][i], block);
      s.owner->put_shared(s.blocks[idx][i], idx, block);
    }
    s.count[idx] = 0;
  }
}

void* CachingHostAllocator::take_shared(int idx, size_t block) {
  void* p = nullptr;
  {
    SpinLockHolder lock(&mu_);
    if (auto& list = free_[idx]; !list.empty()) {
      p = list.back();
      list.pop_back();
      cached_bytes_ -= static_cast<int64_t>(block);
    }
  }
  if (p != nullptr) CUSTODY_UNPOISON(p, block);
  return p;
}

void CachingHostAllocator::put_shared(void* p, int idx, size_t block) {
  {
    SpinLockHolder lock(&mu_);
    if (cached_bytes_ + static_cast<int64_t>(block) <= cache_limit_) {
      try {
        free_[idx].push_back(p);
        CUSTODY_POISON(p, block);
        cached_bytes_ += static_cast<int64_t>(block);
        return;
      } catch (const std::bad_alloc&) {
        // The list cannot grow: the block goes back to the system (a thread's
        // exit gives its blocks back here, where nothing may throw).
      }
    }
  }
  std::free(p);
  stats_->add_reserved(-static_cast<int64_t>(block));
}

absl::StatusOr<void*> CachingHostAllocator::allocate(size_t bytes) {
  if (bytes > (size_t{1} << 62)) {
    return absl::ResourceExhaustedError(absl::StrFormat("%d bytes is not allocatable", bytes));
  }
  const size_t cls = class_size(bytes);
  const int idx = class_index(cls);
  const size_t block = block_bytes(cls);
  void* p = nullptr;
  if (thread_cache_ && idx < ThreadBlocks::kClasses) {
    if (ThreadBlocks::Slot* s = tls_blocks.find(this); s != nullptr && s->count[idx] > 0) {
      p = s->blocks[idx][--s->count[idx]];
      CUSTODY_UNPOISON(p, block);
    }
  }
  if (p == nullptr) p = take_shared(idx, block);
  if (p == nullptr) {
    p = std::aligned_alloc(kAlignment, block);
    if (p == nullptr && reclaim() > 0) p = std::aligned_alloc(kAlignment, block);
    if (p == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("out of host memory allocating %d bytes (%d in use, %d reserved)", bytes,
                          stats_->snapshot().bytes_in_use, stats_->snapshot().reserved_bytes));
    }
    stats_->add_reserved(static_cast<int64_t>(block));
  }
  stats_->on_alloc(static_cast<int64_t>(bytes), p);
  return p;
}

void CachingHostAllocator::deallocate(void* p, size_t bytes) {
  if (p == nullptr) return;
  const size_t cls = class_size(bytes);
  const int idx = class_index(cls);
  const size_t block = block_bytes(cls);
  stats_->on_free(static_cast<int64_t>(bytes), p);
  if (thread_cache_ && idx < ThreadBlocks::kClasses &&
      thread_cache_on_.load(std::memory_order_relaxed)) {
    if (ThreadBlocks::Slot* s = tls_blocks.claim(this);
        s != nullptr && s->count[idx] < ThreadBlocks::kPerClass) {
      CUSTODY_POISON(p, block);
      s->blocks[idx][s->count[idx]++] = p;
      return;
    }
  }
  put_shared(p, idx, block);
}

CachingHostAllocator::~CachingHostAllocator() { reclaim(); }

int64_t CachingHostAllocator::reclaim() {
  if (ThreadBlocks::Slot* s = tls_blocks.find(this); s != nullptr) ThreadBlocks::release(*s);
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
  const bool on = bytes >= kThreadCacheMinLimit;
  thread_cache_on_.store(on, std::memory_order_relaxed);
  if (!on) {
    if (ThreadBlocks::Slot* s = tls_blocks.find(this); s != nullptr) ThreadBlocks::release(*s);
  }
  {
    SpinLockHolder lock(&mu_);
    cache_limit_ = bytes;
    if (cached_bytes_ <= cache_limit_) return;
  }
  reclaim();
}

}  // namespace custody
