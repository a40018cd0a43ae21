// Copyright 2026 The custody Authors.
//
// policies/gc/finalize.cc — how unreachable aliases give their references
// back: the pass over the alias lists at every collection that finalizes the
// unmarked ones, the queue it fills, the safe points that empty it, and a
// collection with its finalizers.

#include "policies/gc/internal.h"

#include <gc/gc_mark.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "core/spin_lock.h"
#include "core/stats.h"

namespace custody::gc::internal {

namespace {
thread_local int64_t tls_finalized = 0;  // references given back by finalizers run on this thread
}  // namespace

// Note [Finalizers from mark bits]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An alias is a plain collector object (from a per-thread batch, Note [Alias
// batches]) with no entry in libgc's finalizer table. The alias lists already
// hold every alias that still holds its reference (Note [Alias lists]), and libgc calls
// on_collection_event at GC_EVENT_RECLAIM_START of every collection (its own
// and collect()'s) on the collecting thread, with its allocation lock held and
// the world running: the mark bits are final, nothing is swept yet, GC_finalize
// has not run. Then a listed alias that is not marked is
// unreachable. None created since the mark phase can be unmarked: an
// allocation after it either takes the allocation lock, held here, or comes
// from a thread's alias batch or libgc's thread-local free lists, whose
// objects the mark phase marked.
// finalize_unmarked() takes the reference out of each such alias, queues it
// for the next safe point (Note [Safe points]), and sets the mark bits of the
// alias and of its site array, so the sweep keeps both one more cycle: a
// stale handle (kept where the collector cannot see it) still reads
// "finalized" (G4). That is what libgc's finalizer table does (GC_finalize
// also decides by mark bit and keeps a finalized object one cycle), without
// its per-alias cost: an entry registered at alias() and unregistered at
// dispose() (the larger part of an alias's cost with the table; numbers in
// docs/decisions.md). The pass costs one GC_is_marked per
// live listed alias per collection, as GC_finalize's walk of its table did.
// Aliases held by a dead gc::make object are finalized in the same pass as the
// object, as no-order table entries were (Note [Where handles may live], gc.h).
// Nothing here allocates from the collector or waits for a lock whose holder
// may wait for the allocation lock: the walk and queue spinlocks are held
// only around list and vector operations. If the queue cannot grow
// (bad_alloc), the alias stays listed and marked: the next collection
// tries again.
// Finalizing from libgc's sweep (a disclaim procedure) would not do: the sweep
// skips a block more than 7/8 marked (GC_reclaim_block: "not worth
// salvaging"), so an unreachable alias among reachable ones would stay
// unfinalized until its neighbours died (GcRootsTest.
// UnreachableHandlesAmongReachableOnesAreCollected). Built with
// CUSTODY_GC_TABLE=1 (--config=gc_table), aliases use libgc's finalizer table
// instead, for comparison (kTable, internal.h).

Pending& pending() {
  static Pending* p = new Pending;
  return *p;
}

void finalize_alias(void* obj, void* /*client_data*/) {
  Alias* a = static_cast<Alias*>(obj);
  TensorImpl* p = take_reference(a, AliasState::kFinalized);
  if (p == nullptr) return;
  counters().finalized.fetch_add(1, std::memory_order_relaxed);
  ++tls_finalized;
  give_back(p);
}

namespace {

// Keeps an unreachable alias and its site through this collection's sweep.
void keep_one_more_cycle(const Alias* a) {
  GC_set_mark_bit(a);
  if (a->site != nullptr) GC_set_mark_bit(a->site);
}

// At GC_EVENT_RECLAIM_START: allocation lock held (Note [Finalizers from mark
// bits]); leaves no unmarked alias on a list (Note [Alias lists]).
void finalize_unmarked() {
  Pending& q = pending();
  SpinLockHolder walk(&g_walk);
  SpinLockHolder queue(&q.mu);
  const size_t queued = q.refs.size();
  walk_lists([&](Alias* a, bool is_head) {
    if (a->impl.load(std::memory_order_acquire) == nullptr) {  // disposed or finalized
      if (is_head && !GC_is_marked(a)) keep_one_more_cycle(a);  // and its site, for a stale handle
      return true;
    }
    // In table builds GC_finalize, after this pass, keeps and queues unmarked aliases.
    if (kTable || GC_is_marked(a)) return false;
    keep_one_more_cycle(a);
    try {
      q.refs.push_back(nullptr);
    } catch (const std::bad_alloc&) {
      return false;  // still listed, and marked: the next collection tries again
    }
    q.refs.back() = take_reference(a, AliasState::kFinalized);
    if (q.refs.back() == nullptr) q.refs.pop_back();  // disposed meanwhile, by a stale handle
    return true;
  });
  if (q.refs.size() > queued) q.any.store(true, std::memory_order_release);
  if constexpr (!kTable) adapt_own_schedule(q.refs.size() - queued);
}

}  // namespace

void GC_CALLBACK on_collection_event(GC_EventType e) {
  if (e == GC_EVENT_RECLAIM_START) finalize_unmarked();
  if (g_previous_event_proc != nullptr) g_previous_event_proc(e);
}

namespace {

// Gives back the references the last collections queued.
void give_back_pending() {
  Pending& q = pending();
  if (!q.any.load(std::memory_order_acquire)) return;
  std::vector<TensorImpl*> refs;
  {
    SpinLockHolder lock(&q.mu);
    refs.swap(q.refs);
    q.any.store(false, std::memory_order_release);
  }
  counters().finalized.fetch_add(static_cast<int64_t>(refs.size()), std::memory_order_relaxed);
  tls_finalized += static_cast<int64_t>(refs.size());
  for (TensorImpl* p : refs) give_back(p);
}

}  // namespace

int64_t run_pending() {
  if (tls_in_finalizers) return 0;  // a finalizer (e.g. a from_blob deleter) got here: no recursion
  const int64_t before = tls_finalized;
  tls_in_finalizers = true;
  {
    const CollectorFrees frees;  // frees here are the collector's (core/stats.h)
    const HeldBy held("its gc alias");  // Note [Held by], core/stats.h
    give_back_pending();
    while (GC_should_invoke_finalizers()) {
      if (GC_invoke_finalizers() == 0) break;
    }
  }
  tls_in_finalizers = false;
  return tls_finalized - before;
}

int64_t collect_now(Cause cause) {
  Counters& c = counters();
  c.reset_bytes_since();
  custody::record_collection();  // a memory history tells held memory from garbage (core/stats.h)
  GC_gcollect();
  c.collections.fetch_add(1, std::memory_order_relaxed);
  if (cause == Cause::kPressure) c.pressure_collections.fetch_add(1, std::memory_order_relaxed);
  if (cause == Cause::kReclaim) c.reclaim_collections.fetch_add(1, std::memory_order_relaxed);
  return run_pending();
}

}  // namespace custody::gc::internal
