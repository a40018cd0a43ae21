// Copyright 2026 The custody Authors.
//
// policies/gc/testing.h — the gc policy's test idiom, `PolicyIdiom<gc::Policy>`
// (core/policy_idiom.h): what surrounds every test body of this
// policy, in the conformance matrix and in any other test.

#ifndef CUSTODY_POLICIES_GC_TESTING_H_
#define CUSTODY_POLICIES_GC_TESTING_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>

#include "policies/gc/gc.h"
#include "core/policy_idiom.h"

// AddressSanitizer: gcc defines __SANITIZE_ADDRESS__, clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define CUSTODY_GC_TESTING_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUSTODY_GC_TESTING_UNDER_ASAN 1
#endif
#endif

namespace custody::testing {

// Overwrites the stack below the caller, so dead frames hold no stale pointers
// for the collector's conservative scan to find.
__attribute__((noinline)) inline void clobber_stack() {
  volatile char buf[64 * 1024];
  for (auto& c : buf) c = 0;
}

// A collection after clobbering the stack (what a test calls to find its garbage).
inline int64_t collect_clean() {
  clobber_stack();
  return gc::collect();
}

}  // namespace custody::testing

namespace custody {

// The idiom: the thread is registered with the collector for the body (a
// no-op on the main thread), and when the body ends every alias it created on
// this thread that still holds a reference is disposed — conservative scanning
// may keep a stray alias alive past any number of collections, and the G6
// check must be deterministic. settle() is a collection.
template <>
struct PolicyIdiom<gc::Policy> : DefaultPolicyIdiom {
  struct Guard {
    gc::ThreadRegistration registration;  // first member: unregisters after the cleanup below
    ReleaseCreatedSince<&gc::testing::next_serial,
                        &gc::testing::release_created_on_this_thread_since>
        release;
  };
  static void settle() { gc::collect(); }

  // A collection, then the aliases created since that the conservative scan of
  // this thread's stack still keeps (dead to the code, found by the scan), or
  // that the code leaked: last_reaped() says how many, kScanKeeps how many the
  // scan alone may keep.
  struct Reap {
    uint64_t since = gc::testing::next_serial();
    bool all_threads = false;
    Reap() = default;
    explicit Reap(AllThreads) : all_threads(true) {}
    Reap(const Reap&) = delete;
    Reap& operator=(const Reap&) = delete;
    ~Reap() {
      gc::collect();
      reaped = all_threads ? gc::testing::release_created_since(since)
                           : gc::testing::release_created_on_this_thread_since(since);
    }
    static inline thread_local int64_t reaped = 0;
  };
  static int64_t last_reaped() { return Reap::reaped; }
  // Note [Garbage the scan keeps]: measured at most 2 in one collection (and,
  // before Note [Kernels off the thread's stack] was understood, 1 made by
  // another thread: a server's 4 workers, one run in three, kept through any
  // number of collections — libgc scanned from a worker's gemm workspace up
  // to its stack, hundreds of MiB of stale words); under
  // AddressSanitizer, whose frames are larger, the ops workload leaves 5 (onednn,
  // opaque) to 9 (aten) to its Reap on every run.
#if defined(CUSTODY_GC_TESTING_UNDER_ASAN)
  static constexpr int64_t kScanKeeps = 16;
#else
  static constexpr int64_t kScanKeeps = 3;
#endif

  // Start from a collected heap and leave no garbage to the next body.
  struct Region {
    Region() { gc::collect(); }
    ~Region() { gc::collect(); }
    Region(const Region&) = delete;
    Region& operator=(const Region&) = delete;
  };

  static constexpr bool kCollects = true;
  static void collect() { gc::collect(); }
  struct PressureTrigger {
    explicit PressureTrigger(int64_t bytes) : trigger(bytes) {}
    gc::ScopedPressureTrigger trigger;
  };
  using ThreadRegistration = gc::ThreadRegistration;
  template <class Item>
  using HandleAllocator = gc::TracedAllocator<Item>;
  static CollectorCounts collector_counts() {
    const gc::Stats s = gc::stats();
    return {s.collections, s.finalized};
  }
  static uint64_t straggler_serial() { return gc::testing::next_serial(); }
  static int64_t release_stragglers_since(uint64_t serial) {
    return gc::testing::release_created_since(serial);
  }

  // The stress test: each iteration leaves garbage to the finalizers, and every 64th collects.
  // At the thread's end, a collection, then what the conservative scan still keeps of this
  // thread's aliases (a stale word may hold one or two past any number of collections) is
  // disposed (the Reap), so the final balance is exact. That the collector did the rest is
  // checked by ok(): finalizers must have run.
  template <class T>
  struct StressThread : StressThreadDefaults {
    Reap stragglers;  // first: ends last, after ok()'s collection
    int64_t finalized_before = gc::stats().finalized;

    StressThread() = default;
    StressThread(const StressThread&) = delete;
    StressThread& operator=(const StressThread&) = delete;

    template <class Ops>
    bool iteration(int /*thread_id*/, int64_t i, Ops&& ops) {
      ops();
      bool right = true;
      {
        // Under ThreadSanitizer the collector never runs (Note [ThreadSanitizer], policies/gc/gc.h):
        // a Reap gives back what the iteration left instead.
        std::optional<Reap> no_collector;
        if (!gc::collector_enabled()) no_collector.emplace();
        T garbage = T::ones({64, 64}).mul(2.0f);  // left to the finalizers
        right = garbage.sum().template item<float>() == 8192.0f;
      }
      if (i % 64 == 0) gc::collect();
      return right;
    }
    bool ok() {
      gc::collect();
      if (gc::collector_enabled() && gc::stats().finalized == finalized_before) {
        std::printf("gc: no finalizer ran; the garbage was never given back\n");
        return false;
      }
      return true;
    }
  };

  // Benchmarks. release_trigger_8MiB: release right away with the pressure
  // trigger (8 MiB) set, the configuration gc programs run in (Note [No
  // trigger]), under which libgc's own collections come less often (Note [The
  // collector's own schedule under a trigger], gc/schedule.cc).
  // collect_every_1000 / collect_every_step: no release, gc::collect() every
  // 1000 iterations / after each step. trigger_8MiB: no release, the pressure
  // trigger (8 MiB) collects.
  static std::span<const BenchmarkVariant> benchmark_variants() {
    static constexpr int64_t kTrigger = int64_t{8} << 20;
    static constexpr BenchmarkVariant kVariants[] = {
        {.name = "release_trigger_8MiB",
         .loop = BenchmarkLoop::kEachOp,
         .give_back = BenchmarkGiveBack::kRelease,
         .trigger_bytes = kTrigger},
        {.name = "collect_every_1000",
         .loop = BenchmarkLoop::kOneOp,
         .give_back = BenchmarkGiveBack::kCollect,
         .every = 1000},
        {.name = "trigger_8MiB",
         .loop = BenchmarkLoop::kOneOp,
         .give_back = BenchmarkGiveBack::kLeave,
         .trigger_bytes = kTrigger},
        {.name = "trigger_8MiB",
         .loop = BenchmarkLoop::kStep,
         .give_back = BenchmarkGiveBack::kLeave,
         .trigger_bytes = kTrigger},
        {.name = "collect_every_step",
         .loop = BenchmarkLoop::kStep,
         .give_back = BenchmarkGiveBack::kCollect,
         .every = 1},
    };
    return kVariants;
  }
};

}  // namespace custody

#endif  // CUSTODY_POLICIES_GC_TESTING_H_
