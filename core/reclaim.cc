// Copyright 2026 The custody Authors.

#include "core/reclaim.h"

#include <atomic>
#include <stdexcept>

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/error.h"

namespace custody {
namespace {

// Small fixed tables: hooks are few (one per policy) and never removed, so
// readers walk them without a lock.
constexpr int kMaxHooks = 8;

template <class Fn>
struct HookTable {
  std::atomic<Fn> fns[kMaxHooks] = {};
  std::atomic<int> count{0};
  absl::Mutex mu;  // serialises registration

  void add(Fn fn) {
    absl::MutexLock lock(&mu);
    const int n = count.load(std::memory_order_relaxed);
    for (int i = 0; i < n; ++i) {
      if (fns[i].load(std::memory_order_relaxed) == fn) return;  // idempotent
    }
    if (n == kMaxHooks) {
      // A hook dropped here would be a policy whose memory is never reclaimed
      // (or observed) before an OutOfMemoryError: refuse it loudly instead.
      throw std::logic_error(
          "custody: more than 8 reclaim/allocation hooks registered; raise kMaxHooks in "
          "core/reclaim.cc");
    }
    fns[n].store(fn, std::memory_order_relaxed);
    count.store(n + 1, std::memory_order_release);
  }
};

HookTable<AllocObserver>& observers() {
  static auto* t = new HookTable<AllocObserver>;
  return *t;
}
HookTable<Reclaimer>& reclaimers() {
  static auto* t = new HookTable<Reclaimer>;
  return *t;
}

}  // namespace

// Note [Allocation-failure injection]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A test switch in front of every backend's allocate (core's
// allocate_with_retry asks it first): armed, it counts attempts and fails the
// k-th with ResourceExhausted; the attempts before and after it reach the
// backend. What a failure at allocation k must leave is the same on every
// path: the OutOfMemoryError reaches the caller (unless a reclaimer frees
// memory and the retry succeeds), and once the caller's handles are gone
// nothing is left (tests/failure/failure_injection_test.cc tries every k of each
// workload under each policy). Disarmed, an allocation pays one relaxed load.
// Metadata has a switch of its own (inject_metadata_failure), in front of
// every TensorImpl and every policy record of a reference: the same promise
// holds when the data was allocated and its TensorImpl is not (the data goes
// back to the backend), or the TensorImpl is made and the policy's handle is
// not (the reference goes back).
struct Injection {
  std::atomic<bool> counting{false};
  std::atomic<int64_t> attempts{0};
  std::atomic<int64_t> fail_at{0};  // 0: none
  std::atomic<int64_t> fired{0};

  void arm(int64_t k) {
    attempts.store(0, std::memory_order_relaxed);
    fired.store(0, std::memory_order_relaxed);
    fail_at.store(k > 0 ? k : 0, std::memory_order_relaxed);
    counting.store(true, std::memory_order_release);
  }
  // Counts an attempt; true when it is the one to fail.
  bool fails_now() {
    const int64_t n = attempts.fetch_add(1, std::memory_order_relaxed) + 1;
    if (n != fail_at.load(std::memory_order_relaxed)) return false;
    fired.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
};
Injection& injection() {
  static auto* i = new Injection;
  return *i;
}

void inject_allocation_failure(int64_t k) { injection().arm(k); }
int64_t allocation_attempts() { return injection().attempts.load(std::memory_order_relaxed); }
int64_t injected_failures() { return injection().fired.load(std::memory_order_relaxed); }

// Metadata: its own counters, armed through internal::metadata_injection_armed.
Injection& metadata_injection() {
  static auto* i = new Injection;
  return *i;
}
void inject_metadata_failure(int64_t k) {
  metadata_injection().arm(k);
  internal::metadata_injection_armed.store(true, std::memory_order_release);
}
int64_t metadata_attempts() { return metadata_injection().attempts.load(std::memory_order_relaxed); }
int64_t injected_metadata_failures() {
  return metadata_injection().fired.load(std::memory_order_relaxed);
}

void register_alloc_observer(AllocObserver fn) { observers().add(fn); }
void register_reclaimer(Reclaimer fn) { reclaimers().add(fn); }

namespace internal {

void maybe_fail_metadata_slow(const char* what) {
  if (!metadata_injection().fails_now()) return;
  throw OutOfMemoryError(absl::StrFormat(
      "out of memory for tensor metadata (%s): injected metadata allocation failure "
      "(custody::inject_metadata_failure, a test switch)", what));
}

bool injected_allocation_failure() {
  Injection& i = injection();
  return i.counting.load(std::memory_order_relaxed) && i.fails_now();
}

void notify_alloc(Device device, size_t bytes) {
  auto& t = observers();
  const int n = t.count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) t.fns[i].load(std::memory_order_relaxed)(device, bytes);
}

bool run_reclaimers(Device device, size_t bytes) {
  auto& t = reclaimers();
  const int n = t.count.load(std::memory_order_acquire);
  bool any = false;
  for (int i = 0; i < n; ++i) any |= t.fns[i].load(std::memory_order_relaxed)(device, bytes);
  return any;
}

}  // namespace internal
}  // namespace custody
