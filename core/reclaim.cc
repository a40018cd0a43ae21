// Copyright 2026 The custody Authors.

#include "core/reclaim.h"

#include <atomic>

#include "absl/synchronization/mutex.h"

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
    if (n == kMaxHooks) return;
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

void register_alloc_observer(AllocObserver fn) { observers().add(fn); }
void register_reclaimer(Reclaimer fn) { reclaimers().add(fn); }

namespace internal {

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
