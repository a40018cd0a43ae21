// Copyright 2026 The custody Authors.
//
// core/policy_idiom.h — `PolicyIdiom<Policy>`: everything generic code that
// runs a policy's idiom (workloads, the compare tool, benchmarks, the stress
// test, failure injection, tests) needs to know about an ownership policy
// beyond its handle (core/policy_traits.h has what library
// code needs), in one traits class with defaults, after Abseil's
// hash_policy_traits. Declared here; each policy defines it in its own
// `policies/<name>/testing.h`, deriving from DefaultPolicyIdiom and replacing
// only what differs. There is no primary definition: a test that forgets the
// policy's testing.h does not compile, instead of silently running without
// the policy's idiom.
//
//   template <>
//   struct PolicyIdiom<my::Policy> : DefaultPolicyIdiom {
//     struct Guard { ... };      // around every test body: gives back what the test created
//     static void settle() {}    // let the policy give back what it holds without handles
//   };
//
// Code run for every policy reads the traits instead of naming a policy:
//
//   for_each_type(AllPolicies{}, [&]<class P>() {
//     using Idiom = PolicyIdiom<P>;
//     typename Idiom::Region region;            // a dispose scope under scope
//     ...
//     if constexpr (Idiom::kCollects) ...       // gc
//   });

#ifndef CUSTODY_CORE_POLICY_IDIOM_H_
#define CUSTODY_CORE_POLICY_IDIOM_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

namespace custody {

template <class Policy>
struct PolicyIdiom;

// References the policies' Guards have given back so far, over every thread
// and every policy. A Guard that gives back anything adds it here, so a test
// that released everything itself can check that its guards (its own and its
// threads') had nothing left to give back: the guard must not hide a policy
// that keeps a reference it was told to release
// (ConformanceTest::expect_released_everything, testing/harness.h).
inline std::atomic<int64_t>& guard_gave_back() {
  static std::atomic<int64_t> n{0};
  return n;
}

// What a policy's PolicyIdiom derives from: the idiom of a policy whose
// handles own their references (tensor_ptr, counted): nothing around code,
// nothing to settle, nothing lost.
// What a collecting policy counts (DefaultPolicyIdiom::collector_counts).
struct CollectorCounts {
  int64_t collections = 0;  // collections run
  int64_t finalized = 0;    // references given back by finalizers
};

// Reap's tag for code whose threads have all ended when it ends.
struct AllThreads {};
inline constexpr AllThreads kAllThreads{};

struct DefaultPolicyIdiom {
  // RAII around every test body: gives back, at its end, every reference this
  // thread created during the test and still holds, so a failing test leaves
  // nothing to the next one, and adds their number to guard_gave_back() (so
  // that it cannot hide what a policy kept that it was told to release).
  struct Guard {};

  // After the handles are gone: lets the policy give back what it still holds
  // without them (gc: a collection).
  static void settle() {}

  // RAII around code that must leave nothing (a workload run, a failure
  // injection run): at its end, settle() and give back what the policy keeps
  // only through no fault of the code (gc: what the conservative scan of this
  // thread's stack still finds). Leaks of the code itself stay visible.
  // Reap(kAllThreads): what the body made on any thread (a server's workers,
  // every one ended by then), not only on this one.
  struct Reap {
    Reap() = default;
    explicit Reap(AllThreads) {}
  };
  // What the last Reap on this thread gave back after its collection, and the
  // most it may (gc: the measured bound of Note [Garbage the scan keeps],
  // tests/fuzz/lifetime_gc_fuzz_test.cc): code that reaches its Reap having
  // leaked more than that fails, even though the Reap cleaned it up.
  static int64_t last_reaped() { return 0; }
  static constexpr int64_t kScanKeeps = 0;

  // RAII: what the idiom needs open around a body of generic code that creates
  // tensors (a benchmark body, a stress iteration): a dispose scope under
  // scope; under gc, a collected heap before and after.
  struct Region {};

  // The policy gives memory back by collecting (gc): a reclaimer that collects
  // must recover an allocation failure, and the compare tool measures it with
  // and without collections (workloads::CollectMode). What generic code does
  // with a collector (workloads/generic.h, the compare tool) goes through the
  // hooks below, so it names no policy; a policy that collects defines them.
  static constexpr bool kCollects = false;
  // A collection now.
  static void collect() {}
  // RAII: collections whenever `bytes` were allocated since the last one.
  struct PressureTrigger {
    explicit PressureTrigger(int64_t /*bytes*/) {}
  };
  // RAII, made by a thread that holds handles before its first one (gc: the
  // thread's registration, so that collections scan its stack and stop it).
  struct ThreadRegistration {};
  // The allocator of a container that keeps handles where only it reaches them
  // (gc: memory the collector scans, so a queued handle keeps its tensor).
  template <class Item>
  using HandleAllocator = std::allocator<Item>;
  // Collections run and references given back by finalizers, so far.
  static CollectorCounts collector_counts() { return {}; }
  // What a conservative collector may keep alive of code that released
  // everything (the compare tool counts it as leaked, then gives it back so
  // the next run starts clean): a bound on the serials created from now on,
  // and the release of what any thread created since one.
  static uint64_t straggler_serial() { return 0; }
  static int64_t release_stragglers_since(uint64_t /*serial*/) { return 0; }

  // The model itself loses a temporary that an error skipped before its
  // owner gave it back (dispose without `using`, TH's golden rule under
  // manual): its leak report lists each such reference, and the test gives
  // them back with the functions below. False: nothing is ever lost.
  static constexpr bool kLosesOnError = false;
  static int64_t reported_leaks() { return 0; }     // references in the policy's leak report
  static int64_t live_references() { return 0; }    // references not yet given back
  static uint64_t next_serial() { return 0; }       // a bound on what this thread creates next
  static void release_since(uint64_t /*serial*/) {}  // gives back what this thread created since

  // The stress test
  // ---------------
  // tests/stress/stress_main.cc runs each thread in one policy's idiom on one backend, through
  // `StressThread<T>` (T: BasicTensor<Policy, B>), so that the test names no policy:
  //   * made when the thread starts, destroyed after its loop (RAII: what the idiom keeps open for
  //     the whole thread);
  //   * `iteration(thread_id, i, ops)` once per iteration, i = 0, 1, ...: calls `ops()` (the
  //     generic ops every policy accepts) inside what the idiom needs open around code, and beside
  //     it code in the policy's own idiom; returns false when a value read was wrong;
  //   * `ok()` once, when the loop has ended: false when the thread's end finds something wrong;
  //   * `StressThread<T>::end_of_run()` once, after every thread has ended: gives back what the
  //     threads of T shared.
  // The default: ops() inside the policy's Region, nothing of its own.
  struct StressThreadDefaults {
    bool ok() { return true; }
    static void end_of_run() {}
  };
  template <class T>
  struct StressThread : StressThreadDefaults {
    template <class Ops>
    bool iteration(int /*thread_id*/, int64_t /*i*/, Ops&& ops) {
      [[maybe_unused]] typename PolicyIdiom<typename T::policy_type>::Region region;
      ops();
      return true;
    }
  };

  // ---- Benchmarks --------------------------------------------------------
  //
  // What the benchmarks that run every policy (policies/policy_benchmark.cc,
  // tools/bench/mlp_benchmark.cc) run for a policy besides its plain
  // contender, which gives each tensor back with custody::release as soon as
  // it is done: the variants of its idiom that give tensors back in bulk, or
  // that release with something of the policy's set around the loop. Each is
  // registered as the contender "<policy>:<backend>:<name>" and run by
  // testing/bench/bench_util.h (run_variant); a collecting policy's
  // contenders report `collections` and `finalized` per iteration, from
  // collector_counts().

  // The benchmark loop a variant runs in.
  enum class BenchmarkLoop {
    kEachOp,  // one op per iteration (policy_benchmark), in every case
    kOneOp,   // one op per iteration, only in the case that samples the policy's
              // costlier variants (policy_benchmark's tiny_add)
    kStep,    // one training step per iteration (mlp_benchmark)
  };
  // Who gives back the tensors an iteration creates.
  enum class BenchmarkGiveBack {
    kRelease,  // the body: custody::release each, right away
    kLeave,    // what is open around the loop (a trigger's collections, the body's Region)
    kRegion,   // a fresh Region every `every` iterations: what closing it gives back
    kCollect,  // collect() every `every` iterations
  };
  struct BenchmarkVariant {
    const char* name;             // the contender's suffix
    BenchmarkLoop loop;
    BenchmarkGiveBack give_back;
    int64_t every = 0;            // kRegion, kCollect: iterations between bulk give-backs (>= 1)
    int64_t trigger_bytes = 0;    // > 0: a PressureTrigger(trigger_bytes) open around the loop
  };
  // The policy's variants, in the order they are registered.
  static std::span<const BenchmarkVariant> benchmark_variants() { return {}; }
};

// The Guard of a policy that tracks who created what (dispose, gc, manual):
// gives back, at the end of the test, every reference this thread created
// during it, through the two functions each such policy's `testing` namespace
// offers under the same names (the second returns how many it gave back).
template <uint64_t (*NextSerial)(), int64_t (*ReleaseSince)(uint64_t)>
struct ReleaseCreatedSince {
  uint64_t since = NextSerial();
  ReleaseCreatedSince() = default;
  ReleaseCreatedSince(const ReleaseCreatedSince&) = delete;
  ReleaseCreatedSince& operator=(const ReleaseCreatedSince&) = delete;
  ~ReleaseCreatedSince() { guard_gave_back().fetch_add(ReleaseSince(since)); }
};

// The idiom of a policy whose model loses a temporary an error skipped (no
// owner gives it back: dispose without `using`, manual's golden rule) and that
// tracks who created what: its Guard gives back what the test created, and its
// leak report (a `leak_report()` list and `live_references()`) says what was
// lost. Its arguments are the policy's functions of those names.
template <auto LeakReport, int64_t (*LiveReferences)(), uint64_t (*NextSerial)(),
          int64_t (*ReleaseSince)(uint64_t)>
struct LosesOnErrorIdiom : DefaultPolicyIdiom {
  using Guard = ReleaseCreatedSince<NextSerial, ReleaseSince>;
  static constexpr bool kLosesOnError = true;
  static int64_t reported_leaks() { return static_cast<int64_t>(LeakReport().size()); }
  static int64_t live_references() { return LiveReferences(); }
  static uint64_t next_serial() { return NextSerial(); }
  static void release_since(uint64_t serial) { ReleaseSince(serial); }
};

}  // namespace custody

#endif  // CUSTODY_CORE_POLICY_IDIOM_H_
