// Copyright 2026 The custody Authors.
//
// policies/gc/gc.cc — the gc policy's public API (gc.h): collections and
// finalizers on demand, the pressure trigger, thread registration, the root
// filter's setting and the statistics. What they act on is in the files
// internal.h lists, one concern each.

#include "policies/gc/gc.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/spin_lock.h"
#include "policies/gc/internal.h"

namespace custody::gc {

int64_t collect() {
  ThreadRegistration reg;  // registers only if this thread is not yet
  internal::clear_pins();  // between ops: nothing of this thread is mid-kernel
  return internal::collect_now(internal::Cause::kExplicit);
}

int64_t run_finalizers() {
  ThreadRegistration reg;
  return internal::run_pending();
}

bool pending_finalizers() { return internal::finalizers_pending(); }

bool collector_enabled() { return !CUSTODY_GC_UNDER_TSAN; }

bool reclaim() {
  if (internal::tls_in_finalizers) return false;
  ThreadRegistration reg;
  // Another thread may run the finalizers this collection queued: count them all.
  const int64_t before = internal::counters().finalized.load(std::memory_order_acquire);
  const int64_t here = internal::collect_now(internal::Cause::kReclaim);
  return here > 0 || internal::counters().finalized.load(std::memory_order_acquire) > before;
}

void set_pressure_trigger(int64_t threshold_bytes, double time_budget) {
  if (threshold_bytes <= 0) {
    throw InvalidArgument(absl::StrFormat(
        "gc::set_pressure_trigger: threshold_bytes must be positive, got %d", threshold_bytes));
  }
  if (!(time_budget >= 0)) {
    throw InvalidArgument(absl::StrFormat(
        "gc::set_pressure_trigger: time_budget must be a fraction >= 0 (>= 1: no limit), got %f",
        time_budget));
  }
  internal::Trigger& t = internal::trigger();
  absl::MutexLock lock(&t.mu);
  t.threshold.store(threshold_bytes, std::memory_order_relaxed);
  t.budget.store(time_budget, std::memory_order_relaxed);
  t.last_end = internal::Clock::now();
  t.smoothed_gc_s = 0;
  t.due.store(internal::max_bytes_since() >= threshold_bytes,
              std::memory_order_relaxed);
  t.enabled.store(true, std::memory_order_release);
}

void clear_pressure_trigger() {
  internal::Trigger& t = internal::trigger();
  absl::MutexLock lock(&t.mu);
  t.enabled.store(false, std::memory_order_release);
  t.due.store(false, std::memory_order_relaxed);
  // Note [The collector's own schedule under a trigger]
  internal::initialize();
  GC_call_with_alloc_lock(&internal::restore_own_schedule_locked, nullptr);
}

std::optional<PressureTrigger> pressure_trigger() {
  internal::Trigger& t = internal::trigger();
  if (!t.enabled.load(std::memory_order_acquire)) return std::nullopt;
  PressureTrigger p;
  p.threshold_bytes = t.threshold.load(std::memory_order_relaxed);
  p.time_budget = t.budget.load(std::memory_order_relaxed);
  return p;
}

ThreadRegistration::ThreadRegistration() {
  if (internal::tls_known_registered) return;
  internal::initialize();
  registered_here_ = internal::register_this_thread();
}

ThreadRegistration::~ThreadRegistration() {
  if (registered_here_) internal::unregister_this_thread();
}

bool thread_registered() { return GC_thread_is_registered() != 0; }

void set_scan_all_libraries(bool on) {
  internal::g_roots.scan_all.store(on ? 1 : 0, std::memory_order_relaxed);
}

bool scan_all_libraries() { return internal::scan_all_now(); }

std::string Stats::to_string() const {
  return absl::StrFormat(
      "gc: live_references=%d aliases_created=%d disposed=%d finalized=%d collections=%d "
      "(pressure=%d reclaim=%d) budget_skips=%d bytes_since_collection=%d gc_heap_bytes=%d "
      "static_roots: objects scanned=%d skipped=%d, bytes scanned=%d skipped=%d",
      live_references, aliases_created, disposed, finalized, collections, pressure_collections,
      reclaim_collections, budget_skips, bytes_since_collection, gc_heap_bytes,
      root_objects_scanned, root_objects_skipped, root_bytes_scanned, root_bytes_skipped);
}

int64_t bytes_since_collection(Device device) {
  return internal::bytes_since_all()[static_cast<size_t>(internal::device_slot(device))];
}

Stats stats() {
  internal::Counters& c = internal::counters();
  Stats s;
  {
    SpinLockHolder walk(&internal::g_walk);
    internal::walk_holding([&](internal::Alias*) { ++s.live_references; });
  }
  s.aliases_created = internal::sum_counts(&internal::ThreadState::created);
  s.disposed = internal::sum_counts(&internal::ThreadState::disposed);
  s.finalized = c.finalized.load(std::memory_order_relaxed);
  s.collections = c.collections.load(std::memory_order_relaxed);
  s.pressure_collections = c.pressure_collections.load(std::memory_order_relaxed);
  s.reclaim_collections = c.reclaim_collections.load(std::memory_order_relaxed);
  s.budget_skips = c.budget_skips.load(std::memory_order_relaxed);
  s.bytes_since_collection = internal::total_bytes_since();
  s.gc_heap_bytes = static_cast<int64_t>(GC_get_heap_size());
  internal::RootsPass roots;
  GC_call_with_alloc_lock(&internal::read_roots_pass, &roots);
  s.root_objects_scanned = roots.objects_scanned;
  s.root_objects_skipped = roots.objects_skipped;
  s.root_bytes_scanned = roots.bytes_scanned;
  s.root_bytes_skipped = roots.bytes_skipped;
  return s;
}

}  // namespace custody::gc
