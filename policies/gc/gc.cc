// Copyright 2026 The custody Authors.

#include "policies/gc/gc.h"

#include <gc/gc_mark.h>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "core/foreign_stack.h"
#include "core/reclaim.h"
#include "core/sites.h"
#include "core/spin_lock.h"
#include "core/stats.h"
#include "policies/internal/per_thread.h"

// Note [ThreadSanitizer] in gc.h.
#if defined(__SANITIZE_THREAD__)
#define CUSTODY_GC_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUSTODY_GC_UNDER_TSAN 1
#endif
#endif
#ifndef CUSTODY_GC_UNDER_TSAN
#define CUSTODY_GC_UNDER_TSAN 0
#endif

namespace custody::gc {
namespace internal {

// Note [Alias layout]: an alias is one 64-byte collector object (libgc adds a byte).
constexpr size_t kAliasBytes = 64;
static_assert(sizeof(Alias) + 1 <= kAliasBytes, "Note [Alias layout]: one 64-byte collector object");

namespace {

// ---- counters ------------------------------------------------------------------

// Native bytes allocated since the last collection, per device: each device's
// memory runs out on its own (Note [Pressure trigger]). A slot per (type,
// index); indices past kIndicesPerType share the type's last slot.
constexpr int kIndicesPerType = 16;
constexpr int kDeviceTypes = kNumDeviceTypes;
int device_slot(Device d) {
  const int type = std::min(static_cast<int>(d.type()), kDeviceTypes - 1);
  return type * kIndicesPerType + std::clamp(d.index(), 0, kIndicesPerType - 1);
}

struct Counters {
  std::atomic<int64_t> finalized{0}, collections{0},
      pressure_collections{0}, reclaim_collections{0}, budget_skips{0};
  // Bytes the threads added so far (Note [Bytes since the last collection]).
  std::array<std::atomic<int64_t>, kDeviceTypes * kIndicesPerType> bytes_since{};
  // Bumped by every reset: bytes a thread holds from an earlier epoch are dropped.
  std::atomic<uint64_t> bytes_epoch{0};

  void reset_bytes_since() {
    bytes_epoch.fetch_add(1, std::memory_order_acq_rel);
    for (auto& b : bytes_since) b.store(0, std::memory_order_relaxed);
  }
};
Counters& counters() {
  static Counters* c = new Counters;
  return *c;
}

// Per thread: the aliases it created (Note [Alias lists]) and its counts of
// aliases created and disposed, each written only by that thread (a load and
// a store, no locked instruction on the alias path) and summed by stats(). An
// exited thread's state goes to the next thread that adopts it (Note
// [Registries and thread exit]); states are immortal.
struct ThreadState {
  ThreadState();
  // The head of this thread's alias list, hidden (Note [Alias lists]).
  std::atomic<GC_hidden_pointer> aliases{GC_HIDE_POINTER(nullptr)};
  std::atomic<int64_t> created{0}, disposed{0};
  // Bytes allocated on this thread and not yet added to Counters::bytes_since:
  // on device slot `bytes_slot`, in epoch `bytes_epoch` (Note [Bytes since the
  // last collection]).
  std::atomic<int64_t> bytes_pending{0};
  std::atomic<uint64_t> bytes_epoch{0};
  std::atomic<int> bytes_slot{0};
  ThreadState* next_state = nullptr;  // every state ever made (all_states())
};
// Every ThreadState ever made, most recent first: walked without a lock (the
// pass of Note [Finalizers from mark bits] runs under libgc's allocation lock).
constinit std::atomic<ThreadState*> g_all_states{nullptr};
ThreadState::ThreadState() {
  ThreadState* head = g_all_states.load(std::memory_order_relaxed);
  do {
    next_state = head;
  } while (!g_all_states.compare_exchange_weak(head, this, std::memory_order_release,
                                               std::memory_order_relaxed));
}
policy_internal::RegistryList<ThreadState>& thread_states() {
  static auto* list = new policy_internal::RegistryList<ThreadState>;  // immortal
  return *list;
}
void set_fast_state(ThreadState*) {}
using StateOfThisThread =
    policy_internal::ThreadRegistry<ThreadState, thread_states, set_fast_state>;
// What threads count after their ThreadState left them (thread_local
// destructors); its alias list is pushed to by any thread (Note [Alias lists]).
ThreadState& late_state() {
  static auto* c = new ThreadState;
  return *c;
}

[[gnu::always_inline]] inline void count(std::atomic<int64_t> ThreadState::*which, int64_t n) {
  ThreadState* t = StateOfThisThread::mine();
  if (t == nullptr) [[unlikely]] {
    (late_state().*which).fetch_add(n, std::memory_order_relaxed);
    return;
  }
  std::atomic<int64_t>& c = t->*which;
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
int64_t sum_counts(std::atomic<int64_t> ThreadState::*which) {
  int64_t total = (late_state().*which).load(std::memory_order_relaxed);
  for (ThreadState* t : thread_states().snapshot()) {
    total += (t->*which).load(std::memory_order_relaxed);
  }
  return total;
}

// Note [Bytes since the last collection]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every tensor allocation adds its bytes to its device's count, which the
// pressure trigger compares with its threshold and every collection resets.
// One shared atomic per device was a locked add per allocation, and the count
// of Note [No trigger] another. A thread instead keeps what it allocated in
// its ThreadState (a load and a store) and adds it to the shared count when
// it reaches kFlushBytes, when the thread allocates on another device, or when
// the shared count plus its own reaches the trigger's threshold: on one thread
// the trigger becomes due at the same allocation as with a shared count; each
// other thread may hold back up to kFlushBytes. A reset bumps `bytes_epoch`; a
// thread that finds it changed drops what it held (allocated before the
// collection). Readers (bytes_since_collection(), stats(), the trigger's slow
// path) add every thread's bytes of the current epoch to the shared counts:
// exact when no other thread allocates meanwhile.
constexpr int64_t kFlushBytes = int64_t{256} << 10;

using DeviceBytes = std::array<int64_t, kDeviceTypes * kIndicesPerType>;

// The bytes allocated since the last collection, per device slot.
DeviceBytes bytes_since_all() {
  Counters& c = counters();
  DeviceBytes out;
  for (size_t i = 0; i < out.size(); ++i) out[i] = c.bytes_since[i].load(std::memory_order_relaxed);
  const uint64_t epoch = c.bytes_epoch.load(std::memory_order_acquire);
  for (ThreadState* t : thread_states().snapshot()) {
    if (t->bytes_epoch.load(std::memory_order_relaxed) != epoch) continue;
    out[static_cast<size_t>(t->bytes_slot.load(std::memory_order_relaxed))] +=
        t->bytes_pending.load(std::memory_order_relaxed);
  }
  return out;
}
// The most any one device has allocated since the last collection.
int64_t max_bytes_since() {
  const DeviceBytes b = bytes_since_all();
  return *std::max_element(b.begin(), b.end());
}
int64_t total_bytes_since() {
  int64_t total = 0;
  for (int64_t b : bytes_since_all()) total += b;
  return total;
}

// ---- the alias lists (Note [Alias lists]) -----------------------------------------

// Note [Alias lists]
// ~~~~~~~~~~~~~~~~~~
// Every alias that may still hold its reference is on the list of the thread
// that created it (ThreadState::aliases, linked through Alias::next, hidden
// from the collector), newest first. Only that thread pushes (a load and a
// release store: no locked instruction); a thread past its ThreadState's exit
// pushes to late_state()'s list with a CAS. Nothing is unlinked when an alias
// gives its reference back: dispose() takes `impl` with one exchange, the
// only locked instruction of its own (before: a registry spinlock taken to
// link and again to unlink, and the neighbours' links written). The walks
// unlink instead, holding `g_walk`: the pass of Note [Finalizers from mark
// bits] at every collection, stats() and the testing idioms. A walk reads a
// list's head once (acquire) and may unlink any alias after it, never the head
// itself: the owner's push writes only the head and the new alias's `next`, so
// the two never write the same word. Why no listed alias is ever swept: the
// pass runs at every collection before its sweep (GC_EVENT_RECLAIM_START) and
// leaves on the lists only aliases it has marked or that were marked: each
// unmarked alias after a head is unlinked (finalized first if it still held its
// reference), and an unmarked head gets its mark bit set, and its site's (one
// alias per list kept one more cycle). Aliases pushed after the mark phase
// come from batches the mark phase marked (Note [Alias batches]). A disposed
// alias stays listed until the next walk; the pass visits it once (its
// `impl`, no mark-bit lookup). In ThreadSanitizer builds the collector never
// runs (Note [ThreadSanitizer], gc.h): the lists shrink only at stats() and
// the idioms. Measured (callgrind, policy_benchmark's
// alias_release/gc:onednn:release_trigger_8MiB, libgc's collections
// included, the benchmark's own collect() calls not): 344 -> 272 instructions
// per alias() + dispose() with the two out-of-line slow paths of new_alias().
// gc_lists_test fails without the head's mark bit (the lists then lead into
// reused memory) or without the unlinking.

SpinLock g_walk;  // one walk at a time: Note [Why not absl::Mutex here] (core/spin_lock.h)

Alias* reveal(GC_hidden_pointer h) { return static_cast<Alias*>(GC_REVEAL_POINTER(h)); }

// Pushes a new alias onto the calling thread's list: `t` is its own ThreadState.
void push_own(ThreadState* t, Alias* a) {
  a->next = t->aliases.load(std::memory_order_relaxed);
  t->aliases.store(GC_HIDE_POINTER(a), std::memory_order_release);
}
// Pushes onto a list other threads may push to as well (late_state()).
void push_shared(ThreadState* t, Alias* a) {
  GC_hidden_pointer head = t->aliases.load(std::memory_order_relaxed);
  do {
    a->next = head;
  } while (!t->aliases.compare_exchange_weak(head, GC_HIDE_POINTER(a), std::memory_order_release,
                                             std::memory_order_relaxed));
}

// Calls `visit(a, is_head)` on every listed alias, holding `g_walk`; unlinks an
// alias after a head when `visit` returns true.
template <class Visit>
void walk_lists(Visit&& visit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_walk) {
  for (ThreadState* t = g_all_states.load(std::memory_order_acquire); t != nullptr;
       t = t->next_state) {
    Alias* const head = reveal(t->aliases.load(std::memory_order_acquire));
    if (head == nullptr) continue;
    visit(head, true);
    Alias* prev = head;
    for (Alias* a = reveal(head->next); a != nullptr;) {
      const GC_hidden_pointer next = a->next;
      if (visit(a, false)) {
        prev->next = next;
      } else {
        prev = a;
      }
      a = reveal(next);
    }
  }
}

// The aliases still holding their reference (pruning the others), holding `g_walk`.
template <class Visit>
void walk_holding(Visit&& visit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_walk) {
  walk_lists([&](Alias* a, bool /*is_head*/) {
    if (a->impl.load(std::memory_order_acquire) == nullptr) return true;
    visit(a);
    return a->impl.load(std::memory_order_relaxed) == nullptr;
  });
}

// The alias's creation site (Note [Alias layout]), for symbolizing.
sites::Site site_of(const Alias* a) {
  if (a->site == nullptr) return {};
  void* pcs[sites::Site::kMaxFrames];
  const int n = static_cast<int>(std::min<uintptr_t>(a->site[0], sites::Site::kMaxFrames));
  for (int i = 0; i < n; ++i) pcs[i] = reinterpret_cast<void*>(a->site[i + 1]);
  return sites::Site::from_frames(pcs, n);
}

// Takes the reference out of an alias and marks it `new_state`; null if it
// already gave it back (to another caller, who marks it).
TensorImpl* take_reference(Alias* a, AliasState new_state) {
  TensorImpl* p = a->impl.exchange(nullptr, std::memory_order_acq_rel);
  if (p != nullptr) a->state.store(new_state, std::memory_order_release);
  return p;
}

void give_back(TensorImpl* p) {
  if (p != nullptr) ImplRef(kAdopt, p).reset();
}

// ---- threads --------------------------------------------------------------------

constinit policy_internal::SerialClock g_serials(0);  // Note [Serials in blocks]
constinit thread_local policy_internal::ThreadSerials tls_serials;
thread_local bool tls_known_registered = false;
thread_local bool tls_in_finalizers = false;
thread_local int64_t tls_finalized = 0;  // references given back by finalizers run on this thread

// Registers the calling thread; returns true if this call registered it.
bool register_this_thread() {
  if (GC_thread_is_registered()) {
    tls_known_registered = true;
    return false;
  }
  GC_stack_base sb;
  if (GC_get_stack_base(&sb) != GC_SUCCESS) {
    throw DeviceError("gc: cannot find the stack of this thread to register it with the collector");
  }
  const int rc = GC_register_my_thread(&sb);
  tls_known_registered = true;
  return rc == GC_SUCCESS;
}

void unregister_this_thread() {
  tls_known_registered = false;
  GC_unregister_my_thread();
}

// The safety net of Note [Thread registration]: a thread registered on the spot
// is unregistered when it exits.
struct AutoRegistration {
  bool mine = false;
  ~AutoRegistration() {
    if (mine && GC_thread_is_registered()) unregister_this_thread();
  }
};
thread_local AutoRegistration tls_auto;

// ---- finalizers -------------------------------------------------------------------

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
// "finalized" (G4). That is what the table did (GC_finalize also decides by
// mark bit and keeps a finalized object one cycle), without its per-alias
// cost: registering and unregistering an entry was ~610 of the ~990
// instructions of alias() + dispose(). The pass costs one GC_is_marked per
// live listed alias per collection, as GC_finalize's walk of its table did.
// Aliases held by a dead gc::make object are finalized in the same pass as the
// object, as no-order table entries were (Note [Where handles may live], gc.h).
// Nothing here allocates from the collector or waits for a lock whose holder
// may wait for the allocation lock: the walk and queue spinlocks are held
// only around list and vector operations. If the queue cannot grow
// (bad_alloc), the alias stays listed and marked: the next collection
// tries again.
// Tried before, in round 3: an alias kind of its own whose disclaim procedure
// libgc's sweep runs. The sweep skips a block more than 7/8 marked
// (GC_reclaim_block: "not worth salvaging"), so an unreachable alias among
// reachable ones stayed unfinalized until its neighbours died (GcRootsTest.
// UnreachableHandlesAmongReachableOnesAreCollected: 54 of 64 left after a
// collection). Built with CUSTODY_GC_TABLE=1 (--config=gc_table), aliases use
// the finalizer table as before round 3, for comparison.
#ifndef CUSTODY_GC_TABLE
#define CUSTODY_GC_TABLE 0
#endif
constexpr bool kTable = CUSTODY_GC_TABLE != 0;

struct Pending {
  SpinLock mu;
  std::vector<TensorImpl*> refs;  // taken out of finalized aliases, to give back
  std::atomic<bool> any{false};
};
Pending& pending() {
  static Pending* p = new Pending;
  return *p;
}

// The table's finalizer (CUSTODY_GC_TABLE builds).
void finalize_alias(void* obj, void* /*client_data*/) {
  Alias* a = static_cast<Alias*>(obj);
  TensorImpl* p = take_reference(a, AliasState::kFinalized);
  if (p == nullptr) return;
  counters().finalized.fetch_add(1, std::memory_order_relaxed);
  ++tls_finalized;
  give_back(p);
}

// Keeps an unreachable alias and its site through this collection's sweep.
void keep_one_more_cycle(const Alias* a) {
  GC_set_mark_bit(a);
  if (a->site != nullptr) GC_set_mark_bit(a->site);
}

// Note [The collector's own schedule under a trigger]; allocation lock held.
void adapt_own_schedule(size_t finalized);

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

GC_on_collection_event_proc g_previous_event_proc = nullptr;  // set once, before any collection

void GC_CALLBACK on_collection_event(GC_EventType e) {
  if (e == GC_EVENT_RECLAIM_START) finalize_unmarked();
  if (g_previous_event_proc != nullptr) g_previous_event_proc(e);
}

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

bool finalizers_pending() {
  return GC_should_invoke_finalizers() != 0 || pending().any.load(std::memory_order_acquire);
}

// Runs queued finalizers on this thread (a safe point); returns the references they gave back.
int64_t run_pending() {
  if (tls_in_finalizers) return 0;  // a finalizer (e.g. a from_blob deleter) got here: no recursion
  const int64_t before = tls_finalized;
  tls_in_finalizers = true;
  custody::internal::in_collector = true;  // frees here are the collector's (core/stats.h)
  give_back_pending();
  while (GC_should_invoke_finalizers()) {
    if (GC_invoke_finalizers() == 0) break;
  }
  custody::internal::in_collector = false;
  tls_in_finalizers = false;
  return tls_finalized - before;
}

enum class Cause { kExplicit, kPressure, kReclaim };

// A collection and its finalizers, on a registered thread.
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

// ---- pressure trigger (Note [Pressure trigger]) -------------------------------------

using Clock = std::chrono::steady_clock;

struct Trigger {
  std::atomic<bool> enabled{false};
  std::atomic<int64_t> threshold{0};
  std::atomic<double> budget{0.05};
  std::atomic<bool> due{false};
  // One thread decides and collects at a time; `mu` is never held while
  // collecting (finalizers run user code that may set the trigger).
  std::atomic<bool> collecting{false};
  // Below: guarded by `mu`.
  absl::Mutex mu;
  Clock::time_point last_end;
  double smoothed_gc_s = 0;
};
Trigger& trigger() {
  static Trigger* t = new Trigger;
  return *t;
}

// Note [No trigger]
// ~~~~~~~~~~~~~~~~~
// Without a pressure trigger, collections come from libgc's own schedule,
// which follows its heap: the aliases, a few dozen bytes each, not the tensor
// memory they hold. Measured on the aten MLP: 67x the live-set bound and 2.8x
// libtorch's time (with the finalizer table). Without it (Note [Finalizers from
// mark bits]) an alias costs libgc 64 bytes instead of ~130 (its object and a
// table entry, and libgc counted a finalized object as allocated again), so
// its own collections come 3-6x less often: on onednn (compare, 2026-11-27)
// gc:no_collection's peak went from 31-40 to 99 MiB on mlp and from 100-128
// to 768 MiB on ops (GC_FREE_SPACE_DIVISOR=8 in the environment: 82 and 520
// MiB). That is this mode's known failure, not a way to run: set a trigger or
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

// Adds `bytes` to the shared count of `slot` (Note [Bytes since the last collection]).
void add_shared_bytes(int slot, int64_t bytes, bool triggered) {
  const int64_t since =
      counters().bytes_since[slot].fetch_add(bytes, std::memory_order_relaxed) + bytes;
  Trigger& t = trigger();
  if (!triggered) {
    note_untriggered(static_cast<size_t>(bytes));
  } else if (since >= t.threshold.load(std::memory_order_relaxed)) {
    t.due.store(true, std::memory_order_relaxed);
  }
}

void on_alloc(Device device, size_t size) {
  const int slot = device_slot(device);
  const int64_t bytes = static_cast<int64_t>(size);
  Counters& c = counters();
  Trigger& tr = trigger();
  const bool triggered = tr.enabled.load(std::memory_order_relaxed);
  ThreadState* t = StateOfThisThread::mine();
  if (t == nullptr) [[unlikely]] {  // a thread_local destructor
    add_shared_bytes(slot, bytes, triggered);
    return;
  }
  // Only this thread writes its counts: loads and stores, no RMW.
  const uint64_t epoch = c.bytes_epoch.load(std::memory_order_relaxed);
  int64_t pending = t->bytes_pending.load(std::memory_order_relaxed);
  if (t->bytes_epoch.load(std::memory_order_relaxed) != epoch) [[unlikely]] {
    t->bytes_epoch.store(epoch, std::memory_order_relaxed);
    pending = 0;  // allocated before the last collection
  } else if (const int held = t->bytes_slot.load(std::memory_order_relaxed); held != slot) {
    t->bytes_pending.store(0, std::memory_order_relaxed);
    if (pending != 0) add_shared_bytes(held, pending, triggered);
    pending = 0;
  }
  t->bytes_slot.store(slot, std::memory_order_relaxed);
  pending += bytes;
  if (pending < kFlushBytes &&
      !(triggered && c.bytes_since[slot].load(std::memory_order_relaxed) + pending >=
                         tr.threshold.load(std::memory_order_relaxed))) {
    t->bytes_pending.store(pending, std::memory_order_relaxed);
    return;
  }
  t->bytes_pending.store(0, std::memory_order_relaxed);
  add_shared_bytes(slot, pending, triggered);
}

}  // namespace
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
// tensor, took 3,147 instructions per op with the floor always on against
// 2,764 without it; callgrind). clear_pressure_trigger()
// restores the default. Without a trigger nothing changes: libgc's own
// collections are then the only ones that give tensors back (Note [No
// trigger]). At worst, a program that switches from disposing to dropping
// leaves 1 MiB of aliases to the collector before the next collection, which
// the trigger (counting their tensors' bytes) may start earlier. Under the
// floor libgc grows its heap rather than collect (~2 MiB in gc_schedule_test)
// and keeps it, so its collections stay further apart afterwards too.
constexpr size_t kOwnScheduleFloor = size_t{1} << 20;
size_t g_default_min_bytes_allocd = 1;  // libgc's, read by initialize()

// At GC_EVENT_RECLAIM_START (allocation lock held): `finalized` aliases just found unreachable.
void adapt_own_schedule(size_t finalized) {
  if (!trigger().enabled.load(std::memory_order_relaxed)) return;
  const size_t allocated = GC_get_bytes_since_gc();  // unsynchronized getter: the lock is held
  GC_set_min_bytes_allocd(finalized * kAliasBytes * 8 < allocated ? kOwnScheduleFloor
                                                                   : g_default_min_bytes_allocd);
}

// GC_set_min_bytes_allocd is not synchronized: set it under libgc's allocation lock.
void* GC_CALLBACK restore_own_schedule_locked(void*) {
  GC_set_min_bytes_allocd(g_default_min_bytes_allocd);
  return nullptr;
}

// The part of maybe_collect() past its check, out of line: inlined, its frame
// (bytes_since_all()'s array) cost every new_alias() a stack protector.
[[gnu::noinline]] void collect_if_due(Trigger& t);
// At a safe point (handle creation) on a registered thread.
void maybe_collect() {
  Trigger& t = trigger();
  if (!t.due.load(std::memory_order_relaxed) || tls_in_finalizers) return;
  collect_if_due(t);
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

// ---- static roots (Note [Static roots]) ----------------------------------------------

// -1: not decided yet (read CUSTODY_GC_SCAN_ALL_LIBRARIES at initialisation).
std::atomic<int> g_scan_all{-1};

bool scan_all_now() {
  int v = g_scan_all.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("CUSTODY_GC_SCAN_ALL_LIBRARIES");
    v = (env != nullptr && env[0] == '1') ? 1 : 0;
    int expected = -1;
    if (!g_scan_all.compare_exchange_strong(expected, v)) v = expected;
  }
  return v == 1;
}

// The paths (as the dynamic linker names them) of libgc's own library and of
// the library holding this file: kept wherever they are installed. Set once,
// before the filter is registered.
const char* g_libgc_path = nullptr;
const char* g_self_path = nullptr;

const char* object_path(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return nullptr;
  return info.dli_fname;
}

// Where distributions install shared libraries (and the CUDA toolkit): code
// built elsewhere than the program cannot hold its handles in its globals.
constexpr const char* kSystemLibraryDirs[] = {
    "/lib/",     "/lib32/",     "/lib64/",     "/libx32/",         "/usr/lib/",
    "/usr/lib32/", "/usr/lib64/", "/usr/libx32/", "/usr/local/cuda",
};

// More system folders, from CUSTODY_GC_SYSTEM_DIRS (colon-separated, each
// stored with a trailing '/'): where a launcher puts libraries it ships, e.g.
// tools/gpu's bundle lib/ (NVIDIA's cuBLAS alone has ~190 MB of writable
// segments) and a driver under /usr/local/nvidia. Read once, before the filter
// is registered; never changed after, so the filter reads it without a lock.
const std::vector<std::string>* g_extra_system_dirs = nullptr;

void read_extra_system_dirs() {
  auto* dirs = new std::vector<std::string>;  // immortal: the filter may run at exit
  if (const char* env = std::getenv("CUSTODY_GC_SYSTEM_DIRS"); env != nullptr) {
    for (absl::string_view dir : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      std::string d(dir);
      if (d.back() != '/') d.push_back('/');
      dirs->push_back(std::move(d));
    }
  }
  g_extra_system_dirs = dirs;
}

bool in_system_library_dir(const char* path) {
  for (const char* dir : kSystemLibraryDirs) {
    if (std::strncmp(path, dir, std::strlen(dir)) == 0) return true;
  }
  if (g_extra_system_dirs != nullptr) {
    for (const std::string& dir : *g_extra_system_dirs) {
      if (std::strncmp(path, dir.c_str(), dir.size()) == 0) return true;
    }
  }
  return false;
}

bool same_path(const char* a, const char* b) { return b != nullptr && std::strcmp(a, b) == 0; }

// What the last registration pass offered to the collector (Stats::root_*).
// Written and read only under libgc's allocation lock (the filter always runs
// under it; stats() reads through GC_call_with_alloc_lock).
struct RootsPass {
  const void* first_segment = nullptr;  // the main program's first writable segment
  const char* last_object = nullptr;    // the object of the previous segment
  int64_t objects_scanned = 0, objects_skipped = 0, bytes_scanned = 0, bytes_skipped = 0;
};
RootsPass g_roots_pass;

// Whether the writable data of the loaded object `path` is scanned as roots.
bool scans_object(const char* path) {
  if (path == nullptr || path[0] == '\0') return true;  // the main program (dl_iterate_phdr: "")
  if (!in_system_library_dir(path)) return true;         // ours and the user's libraries
  if (same_path(path, g_libgc_path)) return true;         // libgc's own tables (its thread table)
  if (same_path(path, g_self_path)) return true;          // this policy, however installed
  return scan_all_now();
}

// libgc's filter (GC_register_has_static_roots_callback): called for every
// writable segment of every loaded object, main program first, each time the
// collector re-registers the libraries (at every collection), with its
// allocation lock held: no allocation, no lock, nothing that can throw.
int GC_CALLBACK filter_static_roots(const char* path, void* start, size_t bytes) {
  RootsPass& p = g_roots_pass;
  if (p.first_segment == nullptr) p.first_segment = start;
  if (start == p.first_segment) p = RootsPass{start, nullptr, 0, 0, 0, 0};  // a new pass
  const bool scan = scans_object(path);
  const bool new_object = path != p.last_object;
  p.last_object = path;
  if (scan) {
    p.objects_scanned += new_object;
    p.bytes_scanned += static_cast<int64_t>(bytes);
  } else {
    p.objects_skipped += new_object;
    p.bytes_skipped += static_cast<int64_t>(bytes);
  }
  return scan ? 1 : 0;
}

void* read_roots_pass(void* out) {
  *static_cast<RootsPass*>(out) = g_roots_pass;
  return nullptr;
}

// ---- kernels off the thread's stack (Note [Kernels off the thread's stack]) -----------

// A registered thread runs such a kernel inside GC_do_blocking: libgc does not
// stop it with a signal (which could find rsp on the kernel's heap workspace)
// and scans its stack from the stack pointer it had on entry. The kernel
// touches no collector memory, as GC_do_blocking requires.
void run_off_stack_blocking(void (*fn)(void*), void* ctx) {
  if (!tls_known_registered && !GC_thread_is_registered()) {
    fn(ctx);  // the collector neither stops nor scans this thread
    return;
  }
  struct Call {
    void (*fn)(void*);
    void* ctx;
  } call{fn, ctx};
  GC_do_blocking(
      [](void* p) -> void* {
        Call* c = static_cast<Call*>(p);
        c->fn(c->ctx);
        return nullptr;
      },
      &call);
}

// ---- initialisation (Note [Thread registration]) ---------------------------------------

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_libgc_path = object_path(reinterpret_cast<const void*>(&GC_gcollect));
    g_self_path = object_path(reinterpret_cast<const void*>(&filter_static_roots));
    read_extra_system_dirs();
    GC_register_has_static_roots_callback(&filter_static_roots);  // before any collection
    GC_INIT();
    if (CUSTODY_GC_UNDER_TSAN) GC_disable();
    GC_set_finalize_on_demand(1);
    // Note [The collector's own schedule under a trigger]
    g_default_min_bytes_allocd = GC_get_min_bytes_allocd();
    GC_allow_register_threads();
    g_previous_event_proc = GC_get_on_collection_event();
    GC_set_on_collection_event(&on_collection_event);  // table builds too: Note [Alias lists]
    tls_known_registered = GC_thread_is_registered() != 0;  // GC_INIT registered this thread
    custody::internal::set_off_stack_runner(&run_off_stack_blocking);
    register_alloc_observer(&on_alloc);
    register_reclaimer(&on_alloc_failure);
  });
}

// GC_INIT must run on the main thread, before any other thread touches the
// collector: a static initializer of this library does it at load time.
const bool g_initialized = (initialize(), true);

}  // namespace

// ---- pinned operands (Note [Keep-alive]) -------------------------------------------

namespace {
struct PinPool {
  absl::Mutex mu;
  std::vector<const void**> free;
};
PinPool& pin_pool() {
  static auto* p = new PinPool;
  return *p;
}
}  // namespace

const void** acquire_pin_slots() {
  {
    PinPool& pool = pin_pool();
    absl::MutexLock lock(&pool.mu);
    if (!pool.free.empty()) {
      const void** slots = pool.free.back();
      pool.free.pop_back();
      return slots;
    }
  }
  // Uncollectable: scanned by the collector, never freed by it (threads come and
  // go; their slot arrays are pooled, not freed, so no GC call is needed at exit).
  void* mem = GC_MALLOC_UNCOLLECTABLE(kRootWords * sizeof(void*));
  if (mem == nullptr) throw OutOfMemoryError("gc: could not allocate the operand pin slots");
  return static_cast<const void**>(mem);
}

void clear_pins() {
  PinRing& r = tls_pins;
  if (r.slots == nullptr) return;
  for (unsigned i = 0; i < kPinSlots; ++i) r.slots[i] = nullptr;
}

PinRing::~PinRing() {
  exited = true;
  if (slots == nullptr) return;
  // The rest of the alias batch becomes garbage (Note [Alias batches]).
  for (unsigned i = 0; i < kRootWords; ++i) slots[i] = nullptr;
  PinPool& pool = pin_pool();
  absl::MutexLock lock(&pool.mu);
  pool.free.push_back(slots);
  slots = nullptr;  // a later pin() takes slots of its own, never these pooled ones
}

// Note [Alias batches]
// ~~~~~~~~~~~~~~~~~~~~
// GC_MALLOC's thread-local free list sits behind a call into libgc and its
// TLS lookup (~60 instructions per alias). A thread takes alias objects in
// batches instead (GC_malloc_many: a block's worth, 64 objects of 64 bytes,
// linked through their first word) and pops them inline. The batch's head is
// a root word next to the pin slots, so a collection marks the unused objects
// through it and reclaims none of them; an object popped after a collection's
// mark phase was marked with its batch, so the pass of Note [Finalizers from
// mark bits] never takes a new alias for an unreachable one. When the thread
// exits, the root words are cleared and the unused rest is garbage.
namespace {
void* allocate_alias() {
  PinRing& r = tls_pins;
  if (r.exited) [[unlikely]] return GC_MALLOC(sizeof(Alias));  // a thread_local destructor
  if (r.slots == nullptr) r.slots = acquire_pin_slots();
  const void*& head = r.slots[kAliasBatchWord];
  if (head == nullptr) [[unlikely]] {
    head = GC_malloc_many(sizeof(Alias));
    if (head == nullptr) return nullptr;
  }
  void* mem = const_cast<void*>(head);
  head = GC_NEXT(mem);
  return mem;
}

// The caller's frames (Note [Alias layout]: raw, symbolized on report), in
// collector memory; null if none. Out of line: its array stays off new_alias()'s frame.
[[gnu::noinline]] const uintptr_t* capture_site() {
  void* pcs[sites::Site::kMaxFrames];
  const int n = sites::capture_frames(pcs, sites::Site::kMaxFrames);
  if (n <= 0) return nullptr;
  auto* mem = static_cast<uintptr_t*>(GC_MALLOC_ATOMIC((n + 1) * sizeof(uintptr_t)));
  if (mem == nullptr) return nullptr;
  mem[0] = static_cast<uintptr_t>(n);
  for (int i = 0; i < n; ++i) mem[i + 1] = reinterpret_cast<uintptr_t>(pcs[i]);
  return mem;
}
}  // namespace

void ensure_thread_registered() {
  if (tls_known_registered) return;
  initialize();
  if (register_this_thread()) tls_auto.mine = true;
}

Alias* new_alias(ImplRef& ref) {
  custody::internal::maybe_fail_metadata("a gc alias");  // Note [Allocation-failure injection]
  ensure_thread_registered();
  // Safe point: the op that produced `ref` has finished (Note [Safe points]).
  maybe_collect();
  if (finalizers_pending()) run_pending();

  const uintptr_t* site = sites::tracking() ? capture_site() : nullptr;
  void* mem = allocate_alias();
  if (mem == nullptr) {
    throw OutOfMemoryError(absl::StrFormat(
        "gc: the collector's heap is exhausted (%d bytes); cannot create a tensor handle",
        GC_get_heap_size()));
  }
  Alias* a = ::new (mem) Alias;
  a->site = site;
  a->thread = policy_internal::this_thread_number();
  a->serial = g_serials.next(tls_serials);
  if constexpr (kTable) GC_REGISTER_FINALIZER_NO_ORDER(a, &finalize_alias, nullptr, nullptr, nullptr);
  TensorImpl* impl = ref.leak();
  // An alias made from a null reference holds nothing to take: it is born given back.
  if (impl == nullptr) a->state.store(AliasState::kDisposed, std::memory_order_relaxed);
  a->impl.store(impl, std::memory_order_release);
  ThreadState* t = StateOfThisThread::mine();
  if (t != nullptr) [[likely]] {
    push_own(t, a);
    t->created.store(t->created.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {  // a thread_local destructor, after this thread's state left it
    push_shared(&late_state(), a);
    late_state().created.fetch_add(1, std::memory_order_relaxed);
  }
  return a;
}

bool dispose(Alias* a) {
  // Inside a finalizer (a gc::make destructor), handles are copies shared with
  // code that may still be running: leave them to their own finalizers.
  if (tls_in_finalizers) return false;
  TensorImpl* p = take_reference(a, AliasState::kDisposed);
  if (p == nullptr) return false;
  count(&ThreadState::disposed, 1);
  // Nothing left to finalize: the alias is plain garbage once unreachable.
  // (The caller's handle keeps `a` reachable during this call.)
  if constexpr (kTable) GC_REGISTER_FINALIZER_NO_ORDER(a, nullptr, nullptr, nullptr, nullptr);
  give_back(p);
  return true;
}

void throw_unusable(const Alias* a, const char* op) {
  // Whoever took the reference marks the alias right after (take_reference): wait for it. The
  // wait is bounded (a second) only so that a broken invariant reports instead of hanging; a
  // bound in yields was too short on a loaded machine under a sanitizer.
  AliasState state = a->state.load(std::memory_order_acquire);
  if (state == AliasState::kLive) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while ((state = a->state.load(std::memory_order_acquire)) == AliasState::kLive &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  std::string msg;
  if (state == AliasState::kFinalized) {
    msg = absl::StrFormat(
        "%s: this handle's alias #%d was finalized by the collector while the handle was still "
        "held: the handle was kept where the collector cannot see it (std::vector, new/malloc'd "
        "memory). Keep gc handles on the stack, in gc::vector or in gc::make objects",
        op, a->serial);
  } else {
    msg = absl::StrFormat(
        "%s: this tensor was disposed (alias #%d); dispose() only after the last use, or use "
        "alias() to keep an independent reference",
        op, a->serial);
  }
  absl::StrAppend(&msg, "\n", sites::describe("created at", site_of(a)));
  throw LifetimeError(msg);
}

void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this handle refers to no tensor (default-constructed)", op));
}

}  // namespace internal

// ---- public API -----------------------------------------------------------------------

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
  internal::g_scan_all.store(on ? 1 : 0, std::memory_order_relaxed);
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

namespace testing {

bool scans_static_data_of(const char* path) {
  internal::initialize();  // the library paths are known after it
  return internal::scans_object(path);
}

bool uses_finalizer_table() { return internal::kTable; }

int64_t listed_aliases() {
  SpinLockHolder walk(&internal::g_walk);
  int64_t n = 0;
  internal::walk_lists([&](internal::Alias*, bool /*is_head*/) {
    ++n;
    return false;
  });
  return n;
}

uint64_t next_serial() { return internal::g_serials.fence(); }

namespace {

// Disposes, during one walk of the alias lists, every live alias `pick` selects; returns how many.
template <class Pick>
int64_t dispose_where(Pick&& pick) {
  std::vector<TensorImpl*> refs;
  {
    SpinLockHolder walk(&internal::g_walk);
    internal::walk_holding([&](internal::Alias* a) {
      if (!pick(*a)) return;
      refs.push_back(nullptr);  // before the take: a bad_alloc leaves the alias as it was
      refs.back() = internal::take_reference(a, internal::AliasState::kDisposed);
      if (refs.back() == nullptr) refs.pop_back();
    });
  }
  // The aliases may be unreachable already: nothing touches them outside the
  // walk (table builds leave their finalizers registered; they find nothing to do).
  internal::count(&internal::ThreadState::disposed, static_cast<int64_t>(refs.size()));
  for (TensorImpl* p : refs) internal::give_back(p);
  return static_cast<int64_t>(refs.size());
}

}  // namespace

int64_t release_created_on_this_thread_since(uint64_t since) {
  const uint64_t me = policy_internal::this_thread_number();
  return dispose_where([&](const internal::Alias& a) { return a.thread == me && a.serial >= since; });
}

int64_t release_created_since(uint64_t since) {
  return dispose_where([&](const internal::Alias& a) { return a.serial >= since; });
}

std::vector<uint64_t> still_holding(const std::vector<uint64_t>& serials) {
  std::vector<uint64_t> held;
  {
    SpinLockHolder walk(&internal::g_walk);
    internal::walk_holding([&](internal::Alias* a) { held.push_back(a->serial); });
  }
  std::sort(held.begin(), held.end());
  std::vector<uint64_t> out;
  for (uint64_t s : serials) {
    if (std::binary_search(held.begin(), held.end(), s)) out.push_back(s);
  }
  return out;
}

int64_t dispose_serials(const std::vector<uint64_t>& serials) {
  std::vector<uint64_t> sorted = serials;
  std::sort(sorted.begin(), sorted.end());
  return dispose_where(
      [&](const internal::Alias& a) { return std::binary_search(sorted.begin(), sorted.end(), a.serial); });
}

}  // namespace testing
}  // namespace custody::gc
