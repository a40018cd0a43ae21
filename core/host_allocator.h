// Copyright 2026 The custody Authors.
//
// core/host_allocator.h — `CachingHostAllocator`, the size-classed caching
// allocator of the CPU backends.
//
//   static CachingHostAllocator alloc(&MyBackend::stats());
//   absl::StatusOr<void*> p = alloc.allocate(bytes);   // 64-byte aligned, never null
//   alloc.deallocate(*p, bytes);                        // back to its size class, pages kept
//   alloc.reclaim();                                    // cached blocks back to the OS
//
// Note [Why a host cache]
// ~~~~~~~~~~~~~~~~~~~~~~~
// A training step allocates the same sizes every iteration. From glibc, a
// block past its mmap threshold is a fresh mapping each time, so every
// iteration pays a page fault per 4 KiB it touches: a 16M-element add spends
// ~45 of ~57 ms paging in its 64 MiB result. Here a freed block goes back to a
// free list of its size class and the next request of that class reuses it,
// pages already mapped. Size classes are four per power of two (a request is
// rounded up by at most 25%), so near sizes share blocks.
//
// Note [Reserved vs in use]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// `MemoryStats::bytes_in_use` counts the bytes callers asked for and have not
// given back (exact, as before the cache); `reserved_bytes` counts what is held
// from the system: blocks in use at their class size (rounded up to the 64-byte
// alignment) plus cached blocks. A free
// that would take the cache past `cache_limit()` returns the block to the
// system instead, and `reclaim()` returns every cached block (it is also
// registered as a reclaimer, so an allocation that fails empties the cache and
// is retried: core/reclaim.h).
//
// Note [Per-thread blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Taking the free lists' lock is a locked instruction on each allocate and on
// each deallocate: on a one-element op, two of the handful a tensor costs. An
// allocator made with `Options::thread_cache` also keeps, per thread, up to
// kThreadBlocksPerClass freed blocks of each class up to kThreadCacheMaxBytes
// (at most ~100 KiB a thread), reused by that thread with no lock. What
// a thread holds is reserved (reserved_bytes) but not in cached_bytes(); it
// goes back to the shared lists when the thread exits, and the calling
// thread's goes back on reclaim() and on destruction. A cache limit under kThreadCacheMinLimit
// turns the per-thread blocks off (what is held stays until its thread exits
// or reclaims). Only for an allocator that outlives every thread that uses it
// (the backends' immortal ones): a thread's exit gives its blocks back to it.
//
// Thread safety: every member may be called from any thread; one SpinLock
// (core/spin_lock.h) guards the free lists, held for a vector push or pop only,
// never across a system call.

#ifndef CUSTODY_CORE_HOST_ALLOCATOR_H_
#define CUSTODY_CORE_HOST_ALLOCATOR_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "core/spin_lock.h"
#include "core/stats.h"

namespace custody {

class CachingHostAllocator {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr int64_t kDefaultCacheLimit = int64_t{4} << 30;

  // Note [Per-thread blocks].
  static constexpr size_t kThreadCacheMaxBytes = 4096;
  static constexpr int kThreadBlocksPerClass = 8;
  static constexpr int64_t kThreadCacheMinLimit = int64_t{64} << 20;

  struct Options {
    // Per-thread blocks (Note [Per-thread blocks]): the allocator must outlive
    // every thread that uses it.
    bool thread_cache = false;
  };

  // `stats` (not owned) receives every allocation, free and reserved change.
  explicit CachingHostAllocator(MemoryStats* stats) : CachingHostAllocator(stats, Options()) {}
  CachingHostAllocator(MemoryStats* stats, Options options)
      : stats_(stats), thread_cache_(options.thread_cache) {}
  // Returns its cached blocks (and the calling thread's) to the system.
  ~CachingHostAllocator();
  CachingHostAllocator(const CachingHostAllocator&) = delete;
  CachingHostAllocator& operator=(const CachingHostAllocator&) = delete;

  // A 64-byte aligned block of at least `bytes` (a 0-byte request gets a
  // distinct non-null block). ResourceExhausted when the system has no memory.
  absl::StatusOr<void*> allocate(size_t bytes);
  // Gives back a block from allocate(bytes), with the same `bytes`.
  void deallocate(void* p, size_t bytes);
  // Returns every cached block (the shared lists' and the calling thread's) to
  // the system; the bytes returned.
  int64_t reclaim();

  int64_t cached_bytes() const;
  int64_t cache_limit() const;
  void set_cache_limit(int64_t bytes);

  // The size class a request of `bytes` is served from (exposed for tests).
  static size_t class_size(size_t bytes);
  // Whether `class_index` and `class_bytes` are inverse over every class (tests).
  static bool classes_consistent();

 private:
  static constexpr int kClasses = 4 * 56 + 1;
  static int class_index(size_t class_bytes);
  static size_t class_bytes(int index);
  static size_t block_bytes(size_t class_bytes);
  // Note [Per-thread blocks]: the shared-list halves of allocate/deallocate,
  // and the blocks a thread gives back (its exit, reclaim()).
  void* take_shared(int idx, size_t block);
  void put_shared(void* p, int idx, size_t block);
  friend struct ThreadBlocks;

  MemoryStats* const stats_;
  const bool thread_cache_;
  std::atomic<bool> thread_cache_on_{true};  // false under kThreadCacheMinLimit
  mutable SpinLock mu_;  // Note [Why not absl::Mutex here] (core/spin_lock.h)
  std::array<std::vector<void*>, kClasses> free_ ABSL_GUARDED_BY(mu_);
  int64_t cached_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t cache_limit_ ABSL_GUARDED_BY(mu_) = kDefaultCacheLimit;
};

}  // namespace custody

#endif  // CUSTODY_CORE_HOST_ALLOCATOR_H_
