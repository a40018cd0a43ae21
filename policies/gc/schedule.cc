// Copyright 2026 The custody Authors.
//
// policies/gc/schedule.cc — when the gc policy collects: the pressure trigger
// (Note [Pressure trigger] in gc.h), the warning a program without one gets,
// libgc's own schedule while a trigger is set, and the allocation-failure hook
// (Note [Reclaim and retry] in gc.h).

#include "policies/gc/internal.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/synchronization/mutex.h"

namespace custody::gc::internal {

Trigger& trigger() {
  static Trigger* t = new Trigger;
  return *t;
}

namespace {

// Note [No trigger]
// ~~~~~~~~~~~~~~~~~
// Without a pressure trigger, collections come from libgc's own schedule,
// which follows its heap: the aliases, a few dozen bytes each, not the tensor
// memory they hold. An alias costs libgc 64 bytes (Note [Finalizers from mark
// bits]: no finalizer-table entry), so libgc collects rarely for the memory
// its aliases hold: the compare tool's gc:no_collection peaks at 99 MiB on mlp
// and 768 MiB on ops (onednn), tens of times the live-set bound
// (docs/decisions.md, policies/gc, has the measurements). That is this mode's known failure, not a way to run: set a trigger or
// collect. So when no trigger is set and the tensor bytes allocated
// since the collector last ran (any collection: libgc's count moves) pass
// kNoTriggerRatio times its heap, a warning says so, once per process. The
// heap size takes the collector's lock: it is read only when those bytes have
// doubled since the last look. The bytes come as threads add theirs to the
// shared counts (Note [Bytes since the last collection]), kFlushBytes at a time.
constexpr int64_t kNoTriggerRatio = 64;
constexpr int64_t kNoTriggerFirstLook = int64_t{1} << 20;

struct NoTrigger {
  std::atomic<uint64_t> gc_no{0};         // the collection count the bytes below are counted from
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> next_look{kNoTriggerFirstLook};
  std::atomic<bool> warned{false};
};
NoTrigger& no_trigger() {
  static NoTrigger* n = new NoTrigger;
  return *n;
}

}  // namespace

void note_untriggered(size_t bytes) {
  NoTrigger& n = no_trigger();
  if (CUSTODY_GC_UNDER_TSAN || n.warned.load(std::memory_order_relaxed)) return;
  const uint64_t gc_no = GC_get_gc_no();
  if (n.gc_no.load(std::memory_order_relaxed) != gc_no) {  // a collection ran: count afresh
    n.gc_no.store(gc_no, std::memory_order_relaxed);
    n.bytes.store(0, std::memory_order_relaxed);
    n.next_look.store(kNoTriggerFirstLook, std::memory_order_relaxed);
  }
  const int64_t since =
      n.bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) + static_cast<int64_t>(bytes);
  if (since < n.next_look.load(std::memory_order_relaxed)) return;
  n.next_look.store(2 * since, std::memory_order_relaxed);
  const int64_t heap = static_cast<int64_t>(GC_get_heap_size());
  if (since < kNoTriggerRatio * heap || n.warned.exchange(true)) return;
  std::fprintf(stderr,
               "custody::gc: %lld MiB of tensor memory allocated since the collector last ran, over "
               "%lld times its own heap (%lld KiB), and no pressure trigger is set: libgc schedules "
               "collections by its heap, not by tensor memory, so tensors stay held long past their "
               "last use. Set gc::set_pressure_trigger(bytes) (or a gc::ScopedPressureTrigger), or "
               "call gc::collect() at points of your choosing (Note [No trigger]; printed once)\n",
               static_cast<long long>(since >> 20), static_cast<long long>(kNoTriggerRatio),
               static_cast<long long>(heap >> 10));
}

bool no_trigger_warning_printed() { return no_trigger().warned.load(std::memory_order_relaxed); }

namespace {

// Note [The collector's own schedule under a trigger]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// libgc starts a collection of its own once the bytes allocated from it since
// the last one pass min_bytes_allocd(): its live heap and roots over the free
// space divisor. Here both are small (aliases of 64 bytes; the static roots
// filtered, Note [Static roots]), so with libtorch loaded it collects every
// ~1,600 aliases (~100 KB), and a collection has a fixed cost besides its
// marking (stopping the world, walking the loaded objects for roots, the
// finalizer pass), 45-60 us. A program that disposes its tensors pays that
// for nothing: the garbage is husks of 64 bytes, holding no tensor. In
// policy_benchmark's alias_release/gc, ~180 of the ~550 instructions of each
// alias() + dispose() were libgc's collections (callgrind).
// So, while a pressure trigger is set (tensor memory is then the trigger's
// job), the pass of Note [Finalizers from mark bits] looks at what the
// collection just found: if the aliases it finalized are under an eighth of
// the bytes allocated from the collector since the last collection (the
// program disposes, or holds, what it creates), libgc's minimum is raised to
// kOwnScheduleFloor (1 MiB: ~16,000 aliases, ~10x fewer collections);
// otherwise (the program drops handles for the collector to finalize) it is
// libgc's default again, the next collection being as early as before: there
// frequent small collections keep the garbage tensors few and their memory in
// cache (tiny_add/gc:*:trigger_8MiB, whose collections give back every
// tensor, takes more instructions per op with the floor always on;
// docs/decisions.md). clear_pressure_trigger()
// restores the default. Without a trigger nothing changes: libgc's own
// collections are then the only ones that give tensors back (Note [No
// trigger]). At worst, a program that switches from disposing to dropping
// leaves 1 MiB of aliases to the collector before the next collection, which
// the trigger (counting their tensors' bytes) may start earlier. Under the
// floor libgc grows its heap rather than collect (~2 MiB in gc_schedule_test)
// and keeps it, so its collections stay further apart afterwards too.
constexpr size_t kOwnScheduleFloor = size_t{1} << 20;

}  // namespace

// At GC_EVENT_RECLAIM_START (allocation lock held): `finalized` aliases just found unreachable.
void adapt_own_schedule(size_t finalized) {
  if (!trigger().enabled.load(std::memory_order_relaxed)) return;
  const size_t allocated = GC_get_bytes_since_gc();  // unsynchronized getter: the lock is held
  GC_set_min_bytes_allocd(finalized * kAliasBytes * 8 < allocated ? kOwnScheduleFloor
                                                                   : g_default_min_bytes_allocd);
}

void* GC_CALLBACK restore_own_schedule_locked(void*) {
  GC_set_min_bytes_allocd(g_default_min_bytes_allocd);
  return nullptr;
}

void collect_if_due(Trigger& t) {
  if (t.collecting.exchange(true, std::memory_order_acq_rel)) return;  // another thread is on it
  Clock::time_point now;
  {
    absl::MutexLock lock(&t.mu);
    const int64_t threshold = t.threshold.load(std::memory_order_relaxed);
    const int64_t since = max_bytes_since();
    if (!t.enabled.load(std::memory_order_relaxed) || since < threshold) {
      t.due.store(false, std::memory_order_relaxed);
      t.collecting.store(false, std::memory_order_release);
      return;
    }
    now = Clock::now();
    double budget = t.budget.load(std::memory_order_relaxed);
    if (since >= 2 * threshold) budget *= 2;  // more pressure, more tolerance (CUDA.jl)
    const double elapsed_s = std::chrono::duration<double>(now - t.last_end).count();
    const double rate = elapsed_s > 0 ? t.smoothed_gc_s / elapsed_s
                                      : (t.smoothed_gc_s > 0 ? HUGE_VAL : 0.0);
    const bool hard = since >= PressureTrigger::kHardFactor * threshold;
    if (budget < 1.0 && rate > budget && !hard) {
      counters().budget_skips.fetch_add(1, std::memory_order_relaxed);
      t.collecting.store(false, std::memory_order_release);
      return;  // stays due: the next handle creation asks again
    }
    t.due.store(false, std::memory_order_relaxed);
  }
  collect_now(Cause::kPressure);  // no lock held: finalizers may call set_pressure_trigger
  const Clock::time_point end = Clock::now();
  const double gc_s = std::chrono::duration<double>(end - now).count();
  {
    absl::MutexLock lock(&t.mu);
    t.smoothed_gc_s = t.smoothed_gc_s == 0 ? gc_s : 0.75 * t.smoothed_gc_s + 0.25 * gc_s;
    t.last_end = end;
  }
  t.collecting.store(false, std::memory_order_release);
}

// ---- reclaim hook (Note [Reclaim and retry]) ------------------------------------------

bool on_alloc_failure(Device /*device*/, size_t /*bytes*/) { return reclaim(); }

}  // namespace custody::gc::internal
