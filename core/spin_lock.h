// Copyright 2026 The custody Authors.
//
// core/spin_lock.h — `SpinLock`, a test-and-test-and-set lock for critical
// sections of a few instructions on paths that run at op rate (the host
// cache's free lists, the gc policy's alias registry).
//
//   SpinLock mu;
//   { SpinLockHolder hold(&mu); list.push_back(p); }
//
// Note [Why not absl::Mutex here]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Debian's Abseil is built with Mutex deadlock detection on: every Lock()
// records the lock in a global graph (GraphCycles::GetId), which cost a fifth
// of a one-element op when the host cache used an absl::Mutex. A SpinLock has
// no bookkeeping. Use it only where the section is short, never blocks, never
// allocates for long and never calls user code; everything else keeps
// absl::Mutex. Taking it is an acquire, giving it back a release, so what one
// holder wrote happens-before what the next holder reads.

#ifndef CUSTODY_CORE_SPIN_LOCK_H_
#define CUSTODY_CORE_SPIN_LOCK_H_

#include <atomic>

#include "absl/base/thread_annotations.h"

namespace custody {

class ABSL_LOCKABLE SpinLock {
 public:
  void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
    }
  }
  void unlock() ABSL_UNLOCK_FUNCTION() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

class ABSL_SCOPED_LOCKABLE SpinLockHolder {
 public:
  explicit SpinLockHolder(SpinLock* l) ABSL_EXCLUSIVE_LOCK_FUNCTION(l) : l_(l) { l_->lock(); }
  ~SpinLockHolder() ABSL_UNLOCK_FUNCTION() { l_->unlock(); }
  SpinLockHolder(const SpinLockHolder&) = delete;
  SpinLockHolder& operator=(const SpinLockHolder&) = delete;

 private:
  SpinLock* l_;
};

}  // namespace custody

#endif  // CUSTODY_CORE_SPIN_LOCK_H_
