// Copyright 2026 The custody Authors.
//
// policies/gc/internal.h — what the sources of the gc policy share: each
// concern's state (one struct, or one variable, per concern) and the parts of
// the handle's hot paths that must inline into their callers. A section per
// concern, naming the file that holds the rest of it:
//
//   counters.cc      per-thread counts; the bytes since the last collection
//   (this header)    the alias lists
//   threads.cc       registering threads with the collector
//   finalize.cc      the pass over mark bits, its queue, collections
//   schedule.cc      when collections run: the pressure trigger, the warning
//                    without one, libgc's own schedule, the reclaim hook
//   static_roots.cc  the filter of the static data the collector scans
//   off_stack.cc     the runner for kernels off the thread's stack
//   initialize.cc    the policy wired to libgc and core, at load time
//   pins.cc          the pooled slots of pinned operands
//   aliases.cc       gc.h's internal entry points: aliases made and given back
//   test_hooks.cc    gc::testing
//   gc.cc            the public API
//
// Every shared variable is constant-initialized (constinit): initialize() runs
// from a static initializer (initialize.cc) and writes some of them, so none
// may have a dynamic initializer of its own that could run after it.
//
// Not API: only the sources of //policies/gc:gc include it.
#ifndef CUSTODY_POLICIES_GC_INTERNAL_H_
#define CUSTODY_POLICIES_GC_INTERNAL_H_

#include "policies/gc/gc.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/spin_lock.h"
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

// Aliases use libgc's finalizer table instead of the pass over mark bits in
// builds with CUSTODY_GC_TABLE=1 (Note [Finalizers from mark bits],
// finalize.cc). --config=gc_table sets it for every source of //policies/gc:gc:
// they must all agree.
#ifndef CUSTODY_GC_TABLE
#define CUSTODY_GC_TABLE 0
#endif

namespace custody::gc::internal {

inline constexpr bool kTable = CUSTODY_GC_TABLE != 0;

// Note [Alias layout]: an alias is one 64-byte collector object (libgc adds a byte).
inline constexpr size_t kAliasBytes = 64;
static_assert(sizeof(Alias) + 1 <= kAliasBytes, "Note [Alias layout]: one 64-byte collector object");

// ---- counters (counters.cc) -----------------------------------------------------

// Native bytes allocated since the last collection, per device: each device's
// memory runs out on its own (Note [Pressure trigger]). A slot per (type,
// index); indices past kIndicesPerType share the type's last slot.
inline constexpr int kIndicesPerType = 16;
inline constexpr int kDeviceTypes = kNumDeviceTypes;
inline int device_slot(Device d) {
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
Counters& counters();

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
inline constinit std::atomic<ThreadState*> g_all_states{nullptr};
policy_internal::RegistryList<ThreadState>& thread_states();
inline void set_fast_state(ThreadState*) {}
using StateOfThisThread =
    policy_internal::ThreadRegistry<ThreadState, thread_states, set_fast_state>;
// What threads count after their ThreadState left them (thread_local
// destructors); its alias list is pushed to by any thread (Note [Alias lists]).
ThreadState& late_state();

[[gnu::always_inline]] inline void count(std::atomic<int64_t> ThreadState::*which, int64_t n) {
  ThreadState* t = StateOfThisThread::mine();
  if (t == nullptr) [[unlikely]] {
    (late_state().*which).fetch_add(n, std::memory_order_relaxed);
    return;
  }
  std::atomic<int64_t>& c = t->*which;
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
int64_t sum_counts(std::atomic<int64_t> ThreadState::*which);

using DeviceBytes = std::array<int64_t, kDeviceTypes * kIndicesPerType>;

// The bytes allocated since the last collection, per device slot.
DeviceBytes bytes_since_all();
// The most any one device has allocated since the last collection.
int64_t max_bytes_since();
int64_t total_bytes_since();

// core's allocation observer: counts `size` bytes on `device` (Note [Bytes
// since the last collection]).
void on_alloc(Device device, size_t size);

// ---- the alias lists ----------------------------------------------------------------

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
// the idioms. new_alias()'s two slow paths (the trigger, the site capture)
// are out of line, keeping its frame small (docs/decisions.md, policies/gc).
// gc_lists_test fails without the head's mark bit (the lists then lead into
// reused memory) or without the unlinking.

// one walk at a time: Note [Why not absl::Mutex here] (core/spin_lock.h)
inline constinit SpinLock g_walk;

inline Alias* reveal(GC_hidden_pointer h) { return static_cast<Alias*>(GC_REVEAL_POINTER(h)); }

// Pushes a new alias onto the calling thread's list: `t` is its own ThreadState.
inline void push_own(ThreadState* t, Alias* a) {
  a->next = t->aliases.load(std::memory_order_relaxed);
  t->aliases.store(GC_HIDE_POINTER(a), std::memory_order_release);
}
// Pushes onto a list other threads may push to as well (late_state()).
inline void push_shared(ThreadState* t, Alias* a) {
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

// Takes the reference out of an alias and marks it `new_state`; null if it
// already gave it back (to another caller, who marks it).
inline TensorImpl* take_reference(Alias* a, AliasState new_state) {
  TensorImpl* p = a->impl.exchange(nullptr, std::memory_order_acq_rel);
  if (p != nullptr) a->state.store(new_state, std::memory_order_release);
  return p;
}

inline void give_back(TensorImpl* p) {
  if (p != nullptr) ImplRef(kAdopt, p).reset();
}

// ---- threads (threads.cc) -------------------------------------------------------

// Whether this thread is known to be registered with the collector.
inline constinit thread_local bool tls_known_registered = false;

// Registers the calling thread; returns true if this call registered it.
bool register_this_thread();
void unregister_this_thread();

// ---- finalizers (finalize.cc) ---------------------------------------------------

// This thread is running queued finalizers (run_pending()).
inline constinit thread_local bool tls_in_finalizers = false;

struct Pending {
  SpinLock mu;
  std::vector<TensorImpl*> refs;  // taken out of finalized aliases, to give back
  std::atomic<bool> any{false};
};
Pending& pending();

// The table's finalizer (CUSTODY_GC_TABLE builds).
void finalize_alias(void* obj, void* /*client_data*/);

// libgc's collection-event callback (GC_set_on_collection_event); the one it
// replaced, if any, is chained: set once, before any collection.
void GC_CALLBACK on_collection_event(GC_EventType e);
inline constinit GC_on_collection_event_proc g_previous_event_proc = nullptr;

inline bool finalizers_pending() {
  return GC_should_invoke_finalizers() != 0 || pending().any.load(std::memory_order_acquire);
}

// Runs queued finalizers on this thread (a safe point); returns the references they gave back.
int64_t run_pending();

enum class Cause { kExplicit, kPressure, kReclaim };

// A collection and its finalizers, on a registered thread.
int64_t collect_now(Cause cause);

// ---- pressure trigger and schedule (schedule.cc; Note [Pressure trigger]) -------------

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
Trigger& trigger();

// Counts `bytes` toward the warning of Note [No trigger].
void note_untriggered(size_t bytes);

// Note [The collector's own schedule under a trigger]; allocation lock held.
void adapt_own_schedule(size_t finalized);
// libgc's default minimum (GC_get_min_bytes_allocd()), read by initialize().
inline constinit size_t g_default_min_bytes_allocd = 1;
// GC_set_min_bytes_allocd is not synchronized: set it under libgc's allocation lock.
void* GC_CALLBACK restore_own_schedule_locked(void*);

// The part of maybe_collect() past its check, out of line: inlined, its frame
// (bytes_since_all()'s array) cost every new_alias() a stack protector.
[[gnu::noinline]] void collect_if_due(Trigger& t);
// At a safe point (handle creation) on a registered thread.
inline void maybe_collect() {
  Trigger& t = trigger();
  if (!t.due.load(std::memory_order_relaxed) || tls_in_finalizers) return;
  collect_if_due(t);
}

// core's allocation-failure hook (Note [Reclaim and retry]).
bool on_alloc_failure(Device /*device*/, size_t /*bytes*/);

// ---- static roots (static_roots.cc; Note [Static roots]) -------------------------

// What the filter knows besides the path it is given.
struct RootsSettings {
  // -1: not decided yet (read CUSTODY_GC_SCAN_ALL_LIBRARIES at initialisation).
  std::atomic<int> scan_all{-1};
  // The paths (as the dynamic linker names them) of libgc's own library and of
  // the library holding this policy: kept wherever they are installed. Set
  // once, before the filter is registered.
  const char* libgc_path = nullptr;
  const char* self_path = nullptr;
  // More system folders, from CUSTODY_GC_SYSTEM_DIRS (colon-separated, each
  // stored with a trailing '/'): where a launcher puts libraries it ships, e.g.
  // tools/gpu's bundle lib/ (NVIDIA's cuBLAS alone has ~190 MB of writable
  // segments) and a driver under /usr/local/nvidia. Read once, before the filter
  // is registered; never changed after, so the filter reads it without a lock.
  const std::vector<std::string>* extra_system_dirs = nullptr;
};
inline constinit RootsSettings g_roots;

bool scan_all_now();
// The path of the loaded object holding `address`; null if none.
const char* object_path(const void* address);
void read_extra_system_dirs();
// Whether the writable data of the loaded object `path` is scanned as roots.
bool scans_object(const char* path);
// libgc's filter (GC_register_has_static_roots_callback).
int GC_CALLBACK filter_static_roots(const char* path, void* start, size_t bytes);

// What the last registration pass offered to the collector (Stats::root_*).
// Written and read only under libgc's allocation lock (the filter always runs
// under it; stats() reads through GC_call_with_alloc_lock).
struct RootsPass {
  const void* first_segment = nullptr;  // the main program's first writable segment
  const char* last_object = nullptr;    // the object of the previous segment
  int64_t objects_scanned = 0, objects_skipped = 0, bytes_scanned = 0, bytes_skipped = 0;
};
// Copies the last pass to `out` (a RootsPass*); under GC_call_with_alloc_lock.
void* read_roots_pass(void* out);

// ---- kernels off the thread's stack (off_stack.cc) ------------------------------------

// The runner of Note [Kernels off the thread's stack] (core/foreign_stack.h).
void run_off_stack_blocking(void (*fn)(void*), void* ctx);

// ---- initialisation (initialize.cc; Note [Thread registration]) -----------------------

// Sets the policy up with libgc and core, once (every call after the first returns at once).
void initialize();

// ---- serials (aliases.cc) -------------------------------------------------------------

inline constinit policy_internal::SerialClock g_serials(0);  // Note [Serials in blocks]

}  // namespace custody::gc::internal

#endif  // CUSTODY_POLICIES_GC_INTERNAL_H_
