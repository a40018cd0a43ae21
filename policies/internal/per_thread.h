// Copyright 2026 The custody Authors.
//
// policies/internal/per_thread.h — the bookkeeping the policies share (one
// copy of each mechanism; names as in every policy's `testing` namespace:
// next_serial(), release_created_on_this_thread_since()):
//
//   new_thread_number()  a number per thread that is never reused (dispose,
//                    gc, manual, scope: a handle's creating or owning thread)
//   SerialClock      never-reused 64-bit serials, handed out in per-thread
//                    blocks (dispose aliases, gc aliases, manual references;
//                    testing::next_serial() is SerialClock::fence())
//   MpscStack        a lock-free multi-producer stack that one consumer empties
//                    at once (dispose, manual: releases from other threads)
//   RegistryList<R>  every registry ever made; an exited thread's registry is
//                    handed to the next thread that needs one (dispose, manual)
//
// Nothing here frees memory. Registries, and the slabs a policy keeps in them,
// are immortal: a handle may outlive the thread that made its alias (and
// static destruction), so a pointer into a registry must stay valid for the
// life of the process. Not API: only policies/ may depend on it.

#ifndef CUSTODY_POLICIES_INTERNAL_PER_THREAD_H_
#define CUSTODY_POLICIES_INTERNAL_PER_THREAD_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace custody::policy_internal {

// A number for the calling thread's use, unique for the life of the process
// (std::thread::id values are reused once a thread has been joined). Callers
// cache it in a constinit thread_local.
inline uint64_t new_thread_number() {
  static constinit std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Note [Serials in blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Every alias (dispose) and ledger entry (manual) gets a 64-bit serial that is
// never reused. One global counter bumped by every creation would be a cache
// line written by every creating thread; instead a thread takes kBlock serials
// at a time (one relaxed fetch_add on `next_block_` per block) and hands them
// out with a plain increment. Serials are therefore unique and increase along
// each thread, but across threads they are not creation order.
//
// What the policies promise across threads is `fence()` (their
// testing::next_serial()): a creation that happens after
// fence() returns, on any thread, gets a serial >= its result, and one that
// happens before the call got a serial below it. fence() first reads
// `next_block_`, then bumps `epoch_` (acq_rel). Every creation loads `epoch_`
// (acquire) and, if it changed since the thread took its block, takes a new
// block. Why that is enough:
//  * A creation C that happens after fence() returns: the bump happens before
//    C's load of `epoch_`, so (write-read coherence) the load reads the bump or
//    a later value. If the thread's cached epoch differs, it takes a block now;
//    if it equals, the thread took its block after an earlier load of that same
//    value. Either way that load read the bump or a value after it (every change
//    of `epoch_` is an RMW, so in the bump's release sequence): it synchronizes
//    with the bump, so fence()'s read of `next_block_` happens before the
//    block's fetch_add and (read-write coherence) read a value no later than it:
//    the block starts at or above fence()'s result.
//  * A creation that happens before the call took its serial from a block whose
//    fetch_add happens before fence()'s read, which therefore reads the block's
//    end or more.
// The per-thread test idioms (a thread's next_serial(), then "what this thread
// made since") are exact; concurrent creations on other threads may fall on
// either side, as any concurrent event may. The cost on the fast path is one
// load of a line that only fence() writes, and a thread-local increment.
struct ThreadSerials {
  uint64_t next = 0;
  uint64_t end = 0;
  uint64_t epoch = 0;
};

class SerialClock {
 public:
  static constexpr uint64_t kBlock = 1024;

  explicit constexpr SerialClock(uint64_t first) : next_block_(first) {}

  // A fresh serial for the thread whose block state is `t`.
  uint64_t next(ThreadSerials& t) {
    const uint64_t e = epoch_.load(std::memory_order_acquire);
    if (t.next == t.end || e != t.epoch) [[unlikely]] {
      t.epoch = e;
      t.next = next_block_.fetch_add(kBlock, std::memory_order_relaxed);
      t.end = t.next + kBlock;
    }
    return t.next++;
  }

  // next(), unless that needs a new block: then false (for fast paths that
  // leave the rare case to a slower one).
  bool try_next(ThreadSerials& t, uint64_t* serial) {
    if (t.next == t.end || epoch_.load(std::memory_order_acquire) != t.epoch) return false;
    *serial = t.next++;
    return true;
  }

  // A bound: creations that happen after this call get serials >= the result,
  // creations that happen before it got serials below it (Note [Serials in blocks]).
  uint64_t fence() {
    const uint64_t bound = next_block_.load(std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    return bound;
  }

 private:
  std::atomic<uint64_t> next_block_;
  std::atomic<uint64_t> epoch_{0};
};

// Note [MPSC stack]
// ~~~~~~~~~~~~~~~~~
// How a slot freed on one thread goes back to the registry that owns it: any
// thread pushes (a CAS loop, release on success, so everything the pusher did
// with the node happens before the consumer's reuse), and the owner takes the
// whole stack at once (exchange with null, acquire). No node is ever popped
// one at a time, so there is no ABA: a pusher reads only the head pointer,
// never a node another thread could be recycling. `Next` is the node's link
// field; the pusher owns the node while it writes it.
template <class T, T* T::*Next>
class MpscStack {
 public:
  void push(T* node) {
    T* head = head_.load(std::memory_order_relaxed);
    do {
      node->*Next = head;
    } while (!head_.compare_exchange_weak(head, node, std::memory_order_release,
                                          std::memory_order_relaxed));
  }
  // Everything pushed so far, most recent first (null when empty).
  T* take_all() { return head_.exchange(nullptr, std::memory_order_acquire); }

 private:
  std::atomic<T*> head_{nullptr};
};

// Note [Registries and thread exit]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A thread gets its registry from acquire() the first time it needs one and
// gives it back with release() when it exits (a thread_local's destructor in
// the policy). A released registry is an orphan: its slabs stay where they are
// — handles made on the exited thread keep pointing into them — and the next
// thread that needs a registry adopts it (its free slots, its pending remote
// frees, its counters), so thread churn does not grow memory. Both calls take
// `mu_`; the hand-over through it orders everything the old owner did with the
// registry before everything the new owner does. Registries are never freed.
// Lock order: `mu_` may be held while nothing else is taken; snapshot() copies
// the list so callers lock each registry without holding `mu_`.
template <class R>
class RegistryList {
 public:
  R* acquire() {
    absl::MutexLock lock(&mu_);
    if (!orphans_.empty()) {
      R* r = orphans_.back();
      orphans_.pop_back();
      return r;
    }
    all_.reserve(all_.size() + 1);
    orphans_.reserve(all_.size() + 1);  // release() never allocates
    R* r = new R;                        // immortal
    all_.push_back(r);
    return r;
  }

  void release(R* r) {
    absl::MutexLock lock(&mu_);
    orphans_.push_back(r);
  }

  // Every registry ever made, orphans included.
  std::vector<R*> snapshot() {
    absl::MutexLock lock(&mu_);
    return all_;
  }

 private:
  absl::Mutex mu_;
  std::vector<R*> all_ ABSL_GUARDED_BY(mu_);
  std::vector<R*> orphans_ ABSL_GUARDED_BY(mu_);
};

// The calling thread's number (new_thread_number(), taken on first use).
inline uint64_t this_thread_number() {
  static constinit thread_local uint64_t n = 0;
  if (n == 0) [[unlikely]] n = new_thread_number();
  return n;
}

// Note [Thread registries]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Each thread works on its own registry `R` (slabs only it allocates from),
// taken from `List()` on first use: an orphan left by an exited thread, or a
// new one. When the thread exits, its registry goes back to the orphan list
// for the next thread to adopt (registries are immortal, so slots they hold
// stay valid). `SetFast(r)` mirrors the registry into the policy's own
// thread_local that its inline header paths read (SetFast(nullptr) at exit).
// After exit, mine() is null: handles destroyed by later thread_local
// destructors take the policy's remote paths.
template <class R, RegistryList<R>& (*List)(), void (*SetFast)(R*)>
class ThreadRegistry {
 public:
  // The calling thread's registry, or null before its first use and after exit.
  static R* current() { return registry_; }
  // The calling thread's registry, taken on first use; null once the thread is exiting.
  static R* mine() {
    if (R* r = registry_) [[likely]] return r;
    return attach();
  }

 private:
  [[gnu::noinline]] static R* attach() {
    if (exited_) return nullptr;
    R* r = List().acquire();
    exit_.registry = r;  // first touch: its destructor runs at thread exit
    registry_ = r;
    SetFast(r);
    return r;
  }
  struct Exit {
    R* registry = nullptr;
    ~Exit() {
      SetFast(nullptr);
      registry_ = nullptr;
      exited_ = true;
      if (registry != nullptr) List().release(registry);
    }
  };
  static constinit inline thread_local R* registry_ = nullptr;
  static constinit inline thread_local bool exited_ = false;
  static inline thread_local Exit exit_;
};

}  // namespace custody::policy_internal

#endif  // CUSTODY_POLICIES_INTERNAL_PER_THREAD_H_
