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
//
// Note [Spinning, then yielding]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A section of a few instructions is over long before a waiter's first spins
// end, unless its holder was preempted mid-section: then it resumes only when
// the scheduler gives it a core back, and a waiter spinning meanwhile keeps
// that core from it. With more runnable threads than cores (the serve
// workload: 4 workers, a submitter and a responder on 2 cores) that cost the
// unlucky requests a time slice each. So a waiter spins kSpinsBeforeYield
// times, then yields its core between looks.

#ifndef CUSTODY_CORE_SPIN_LOCK_H_
#define CUSTODY_CORE_SPIN_LOCK_H_

#include <atomic>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace custody {

class ABSL_LOCKABLE SpinLock {
 public:
  void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      // A holder that lost its core (more threads than cores: a server's
      // workers) holds the lock for a whole time slice: after a short spin,
      // give the core away instead of burning it (Note [Spinning, then yielding]).
      for (int spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
        if (spins < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() ABSL_UNLOCK_FUNCTION() { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 64;
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
