// Copyright 2026 The custody Authors.
//
// policies/gc/gc.h — the `gc` ownership policy: TorchSharp's technique 1
// (tensors are given back by garbage-collector finalizers), made safe.
//
//   using T = custody::BasicTensor<custody::gc::Policy, custody::Onednn>;
//   T x = T::randn({64, 128});
//   for (int step = 0; step < 1000; ++step) {
//     T y = x.matmul(w).relu();          // temporaries are never disposed by hand
//     ...
//     if (step % 10 == 0) custody::gc::collect();   // GC.Collect + WaitForPendingFinalizers
//   }
//   custody::gc::set_pressure_trigger(256 << 20);  // or: collect by itself every 256 MiB
//   x.dispose();                                   // still allowed: gives the reference back now
//
//   custody::gc::vector<T> params;      // handles on the heap: ONLY in gc::vector / gc::make
//   auto* layer = custody::gc::make<Layer>(...);   // (see Note [Where handles may live])
//
//   std::thread([&] {
//     custody::gc::ThreadRegistration reg;       // threads that touch handles register first
//     T z = x.add(1);
//   }).join();
//
// Contract (docs/design.md §5.5):
//  * A handle is one pointer to an *alias*: a small object allocated by the
//    Boehm–Demers–Weiser collector (libgc) that owns one reference on the
//    TensorImpl. Copying a handle copies the pointer (C# reference semantics:
//    both copies are the same alias). The handle's destructor gives nothing
//    back (see Note [Keep-alive] for the one thing it does).
//  * When no handle (and no other pointer the collector can see) refers to an
//    alias any more, a collection finds it unreachable and its finalizer gives
//    the reference back. Memory returns when the collector runs:
//    `gc::collect()` collects and then runs the pending finalizers
//    (GC.Collect(); GC.WaitForPendingFinalizers()).
//  * The known failure of technique 1 is real here too: an alias is a few dozen
//    bytes of collector heap standing for megabytes of native memory, so the
//    collector never feels the pressure (a loop of 1 MiB temporaries grows
//    native memory without bound while the collector's heap stays tiny). Two
//    remedies, both off the user's back:
//      - `set_pressure_trigger(threshold, time_budget)`: collect when native
//        bytes allocated since the last collection pass `threshold`, spending at
//        most `time_budget` of wall time in such collections (CUDA.jl's
//        `maybe_collect`), with a hard bound — see Note [Pressure trigger].
//        A program with no trigger gets a warning on stderr, once, when the
//        tensor bytes allocated since the collector last ran pass 64 times
//        its heap (Note [No trigger]);
//      - collect-then-retry: when a tensor allocation fails, the collector runs,
//        finalizers give their references back, and the allocation is retried
//        once (CUDA.jl's `retry_reclaim`; counted in the backend's
//        `num_alloc_retries`) — see Note [Reclaim and retry].
//  * `t.dispose()` / `custody::release(t)` give the alias's reference back now
//    (idempotent, G3); every copy of the handle sees it disposed.
//  * Using a disposed handle (or a default-constructed one) is a LifetimeError
//    naming the op (G4) — see Note [G4 without undefined behaviour].
//  * Finalizers run only at safe points, on the thread that reaches them:
//    `collect()`, `run_finalizers()`, handle creation, and the allocation-failure
//    reclaimer — never concurrently with a kernel using the tensor (Note [Safe points]).
//  * Threads that create or hold handles are registered with the collector:
//    `ThreadRegistration` (RAII), or automatically when a thread creates its
//    first tensor (Note [Thread registration]).
//  * Creation sites are recorded when site tracking is on (core/sites.h,
//    CUSTODY_TRACK_SITES=1) and printed in LifetimeErrors.
//  * `stats()`: live aliases, disposed and finalized counts, collections run,
//    and the static data the collector scans (Note [Static roots]).
//
// Note [Where handles may live]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// libgc finds an alias reachable only through pointers in memory it scans:
// the stacks and registers of registered threads, static data, and the
// collector's own heap. It does NOT scan memory from malloc/new — so a handle
// stored only in a `std::vector<T>`, a `std::map`, a `new`-ed struct or a
// `std::shared_ptr<Model>` is invisible: the collector decides its alias is
// garbage, finalizes it and reuses its memory while the vector still holds the
// pointer. Using that handle afterwards is a use-after-free (the one hazard
// this policy cannot turn into an error: the pointer now points into memory
// that may hold another object). The rule:
//
//    Keep handles on the stack, in static data, in `gc::vector<T>`, or inside
//    objects made with `gc::make<T>(...)` (and in gc::vector / gc::make objects
//    nested in those). Never in std:: containers or malloc'd/new'd objects.
//
// `gc::vector<T>` is a std::vector whose buffer is allocated by the collector
// as *uncollectable but traced* memory (GC_MALLOC_UNCOLLECTABLE, as libgc's
// traceable_allocator): the collector scans it wherever the vector object
// itself lives (stack, member of a malloc'd struct, static), and the vector
// frees it as usual. `gc::make<T>(args...)` constructs a T in collectable,
// traced memory and returns a plain `T*`: it lives while a visible pointer
// refers to it; its destructor runs from a finalizer at a safe point after it
// becomes unreachable. A gc::make object must not rely on the handles it holds
// in its destructor: their aliases may be finalized in the same pass, and
// copies of them may still be in use elsewhere, so dispose() called from a
// finalizer does nothing (each alias is given back by its own finalizer).
//
// Calling an op on a handle reached only through a pointer (a member of a
// gc::make object, `T*`, `T&`) keeps nothing reachable by itself while the op
// runs: keep the owning object (or a stack copy of the handle) alive until
// the op returns, e.g. `T w = layer->w; T y = w.matmul(x);`.
//
// Note [Static roots]
// ~~~~~~~~~~~~~~~~~~~
// Besides stacks and its own heap, libgc scans the writable static data
// (.data/.bss) of every loaded object at each collection. A process that loads
// libtorch has ~330 of them (libtorch_cpu, libc10, libdnnl, OpenBLAS, LLVM,
// protobuf, CUDA stubs, ...) with tens of MiB of such data (48 MB of writable
// segments measured, relro parts included): scanning it made one
// gc::collect() cost 5-7 ms however little garbage there was. None of it can
// hold a handle (those libraries never see one), so this policy installs a
// filter (GC_register_has_static_roots_callback) that scans:
//
//   * the main program's data and bss (handles in the program's globals and
//     statics, including code linked statically into it);
//   * every shared library that is NOT under a system library directory
//     (/lib, /lib32, /lib64, /libx32, /usr/lib, /usr/lib32, /usr/lib64,
//     /usr/libx32, /usr/local/cuda*): custody's own libraries and the
//     user's, wherever they are built or installed (Bazel's _solib_* and
//     bazel-out paths, /usr/local/lib, /opt/..., a build tree);
//   * libgc's own library (its thread table is a root it does not push by
//     itself) and the library holding this policy, wherever installed;
//
// and skips the rest: shared libraries installed by the system (libc,
// libstdc++, libtorch*, libc10, libdnnl, libopenblas, libLLVM, libprotobuf,
// absl, CUDA, ...). With libtorch loaded, what stays is well under 1 MiB
// (0.3 MB for a test binary and its five Bazel-built libraries), and a
// collection with little garbage takes tens of microseconds again
// (//policies/gc:gc_collect_benchmark).
//
// Unaffected by the filter: thread stacks and registers, the collector's
// heap, gc::vector buffers and the operand pin slots (uncollectable: always
// marked, and traced), gc::make objects, and thread_local storage (not
// static data: the filter changes nothing about whether it is seen).
//
// A launcher that ships its own copies of such libraries (tools/gpu's bundle
// lib/, a driver under /usr/local/nvidia) names their folders in
// CUSTODY_GC_SYSTEM_DIRS (colon-separated, read once at initialisation): a
// library under one of them is skipped like one under /usr/lib.
//
// The one placement this gives up: a handle whose only copy lives in a global
// or static variable of a shared library installed under a system directory
// (e.g. a plugin packaged into /usr/lib). Programs that do that call
// `gc::set_scan_all_libraries(true)` (or run with
// CUSTODY_GC_SCAN_ALL_LIBRARIES=1) to scan every library, as libgc does by
// default. The filter is process-wide (libgc has one): a process in which
// another component uses libgc too — an embedded Guile, say, with collector
// pointers in the static data of its system-installed library — must turn
// the filter off the same way. `stats()` reports what the last registration
// offered the collector (objects and bytes scanned and skipped, counted before
// libgc drops the read-only-after-relocation parts).
//
// Note [G4 without undefined behaviour]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A disposed alias stays allocated for as long as any visible handle refers to
// it (the handle keeps it reachable), with its reference pointer null: using
// the handle reads that null and throws LifetimeError naming the op. An alias
// is finalized only when the collector proved that no visible pointer to it
// exists, so in the documented use (Note [Where handles may live]) no handle
// can ever observe a finalized alias. For the misuse (a handle kept in a
// std::vector), finalization marks the alias `finalized` before giving the
// reference back, and the collector keeps finalized objects until its next
// cycle: a stale handle used in that window gets a LifetimeError that says
// where handles must live. Past that window nothing can be promised.
//
// Note [Keep-alive]
// ~~~~~~~~~~~~~~~~~
// An op runs on the TensorImpl its handle resolved (`checked_impl`); ops do not
// take a reference of their own. What keeps the tensor alive while the kernel
// runs is the handle: the handle's destructor does nothing but
// `GC_reachable_here(alias)` (an empty asm statement), which forces the alias
// pointer to stay in a register or stack slot — where the collector sees it —
// until the handle's lifetime ends. Every handle an op is called on, including
// temporaries (`T::ones({4}).exp()`), is destroyed only after the op returns,
// so while any kernel uses a tensor through a handle, that handle's alias is
// reachable and cannot be finalized, on any thread. Without this the compiler
// could drop the pointer right after loading the TensorImpl and a collection
// on another thread could free the tensor under the kernel (the reason .NET
// has GC.KeepAlive).
//
// A handle reached through a pointer (a member of a gc::make object, `T&`,
// `T*`) is not destroyed by the calling frame, so `checked_impl` also writes
// the alias into a small per-thread ring of slots the collector scans
// (`internal::pin`): the last kPinSlots operands this thread resolved stay
// reachable until `gc::collect()` on this thread, which runs between ops and
// clears the ring. An op resolves its operands just before its kernel, so a
// collection during the op (the reclaimer after a failed output allocation,
// another thread's collect) cannot finalize them.
//
// Note [Safe points]
// ~~~~~~~~~~~~~~~~~~
// libgc is put in finalize-on-demand mode: a collection (ours or one libgc
// starts by itself) only *queues* the finalizers of unreachable aliases.
// They run when a thread reaches a safe point: `collect()`,
// `run_finalizers()`, the creation of a handle (after the op that produced it
// has finished), the pressure trigger (which also runs at handle creation),
// and the allocation-failure reclaimer (inside an op — safe by Note
// [Keep-alive]: every tensor the op uses is held by a live handle or by the
// op's own references). A finalizer only gives one reference back, which may
// free the tensor and run a from_blob deleter on that thread.
//
// Note [Thread registration]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// The collector stops and scans only registered threads. GC_INIT runs on the
// main thread from this library's static initializer (the main thread is
// registered by it). A std::thread that creates, copies or receives handles
// registers with `gc::ThreadRegistration reg;` declared before any handle
// (it unregisters at scope end, after the handles of that scope are gone).
// As a safety net, a thread that creates a tensor without having registered is
// registered on the spot and unregistered at thread exit; a thread that only
// *receives* handles (and never creates one) must register itself.
//
// Note [ThreadSanitizer]
// ~~~~~~~~~~~~~~~~~~~~~~
// libgc stops the world by signalling every registered thread and waiting for
// each to acknowledge. ThreadSanitizer defers a signal until its target
// reaches an intercepted call, so a thread blocked on the collector's own lock
// never acknowledges and libgc aborts ("Signals delivery fails constantly").
// In a -fsanitize=thread build the collector is therefore disabled
// (GC_disable; `collector_enabled()` is false): nothing is ever finalized,
// memory returns only through dispose()/release(), and the contract tests that
// need collections skip with this explanation. Everything else (handles,
// dispose, the alias lists, threads) still runs under TSan.
//
// Thread safety: handles may be copied to and used from registered threads
// (G7). As with TorchSharp, disposing a tensor on one thread while another
// thread is still using it is a user error the policy does not make safe.

// Note [Autograd under gc]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A graph lives while a gc alias of one of its outputs does: the collection
// that finalizes the last one gives the graph back, and what it saved with
// it. Saved bytes are tensor bytes, so they count toward the pressure
// trigger. The graph's own references are outside the collected heap (Note
// [The graph holds core references], core/autograd/meta.h), and none of them
// keeps a tensor that has meta alive (Note [The graph never holds a tensor
// that has meta]), so a graph has no cycle for the collector to miss: the
// gradient backward(create_graph=true) stores in a leaf, and its graph, go
// with the collection that finalizes the leaf's last alias.

#ifndef CUSTODY_POLICIES_GC_GC_H_
#define CUSTODY_POLICIES_GC_GC_H_

// Keep libgc's pthread_create/pthread_join/dlopen macros out of code that includes this header.
#ifndef GC_NO_THREAD_REDIRECTS
#define GC_NO_THREAD_REDIRECTS 1
#endif
#include <gc/gc.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/policy_traits.h"
#include "core/refcount.h"
#include "core/tensor_impl.h"

namespace custody::gc {

namespace internal {

enum class AliasState : uint8_t { kLive = 0, kDisposed = 1, kFinalized = 2 };

// Note [Alias layout]
// ~~~~~~~~~~~~~~~~~~~
// One alias = one collector-heap object (48 bytes, from GC_malloc_many; libgc adds a
// byte for interior pointers and rounds up to whole 16-byte granules, so 64,
// 64 per 4 KiB block), with no finalizer of its own: a pass over the alias
// lists at every collection finalizes the unmarked ones (Note [Finalizers from
// mark bits], finalize.cc; built with --config=gc_table, a no-order finalizer per alias).
// `impl` is the alias's +1 reference (null once disposed or finalized); it
// points into malloc memory, which the collector ignores. Whoever takes it
// (dispose() or the pass; an exchange, so exactly once) then sets `state`.
// `next` links the alias into its creating thread's list (Note [Alias lists],
// internal.h: for finalizing, live counts and the test idiom); it is stored hidden
// (GC_HIDE_POINTER) so the lists do not make aliases reachable. `site` is the
// creation site as raw program counters (`site[0]` frames in `site[1..]`,
// core/sites.h Note [Raw frames]) in collector-allocated pointer-free memory
// (GC_MALLOC_ATOMIC: code addresses are nothing the collector must follow),
// kept alive by the alias and symbolized only when a LifetimeError prints it.
struct Alias {
  std::atomic<TensorImpl*> impl{nullptr};
  std::atomic<AliasState> state{AliasState::kLive};
  uint64_t serial = 0;       // never reused; increasing along its thread (Note [Serials in blocks])
  uint64_t thread = 0;       // creating thread (custody-local id), for the test idiom
  GC_hidden_pointer next = 0;
  const uintptr_t* site = nullptr;
};

// A new alias owning `ref`, on a registered thread; runs the safe-point work
// (pressure trigger, pending finalizers) first. Throws OutOfMemoryError if the
// collector heap is exhausted (then `ref` is released by the caller).
Alias* new_alias(ImplRef& ref);
// Gives the alias's reference back if it still has one; true if this call did.
bool dispose(Alias* a);
[[noreturn, gnu::cold]] void throw_unusable(const Alias* a, const char* op);
[[noreturn, gnu::cold]] void throw_null(const char* op);

// Registers the calling thread with the collector if it is not (Note [Thread registration]).
void ensure_thread_registered();

// GC_reachable_here: the pointer stays visible to the collector up to this point.
inline void keep_alive(const void* p) { GC_reachable_here(p); }

// The per-thread ring of recently resolved aliases (Note [Keep-alive]). Its
// slots live in memory the collector scans (uncollectable, pooled across
// threads); a thread's slots are cleared and pooled again when it exits. One
// more root word holds the head of the thread's batch of unused alias objects
// (Note [Alias batches], aliases.cc).
inline constexpr unsigned kPinSlots = 8;
inline constexpr unsigned kAliasBatchWord = kPinSlots;
inline constexpr unsigned kRootWords = kPinSlots + 1;
struct PinRing {
  const void** slots = nullptr;  // kRootWords words
  unsigned next = 0;
  bool exited = false;  // the destructor ran (a later thread_local destructor may still make handles)
  ~PinRing();
};
inline thread_local PinRing tls_pins;
const void** acquire_pin_slots();
inline void pin(const void* alias) {
  PinRing& r = tls_pins;
  if (r.slots == nullptr) r.slots = acquire_pin_slots();
  r.slots[r.next++ % kPinSlots] = alias;
}
void clear_pins();

// Whether the warning of Note [No trigger] (schedule.cc) has been printed in this process.
bool no_trigger_warning_printed();

}  // namespace internal

namespace testing {
struct Access;
}  // namespace testing

struct Policy {
  static constexpr const char* name = "gc";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(AdoptTag, ImplRef ref) : alias_(internal::new_alias(ref)) {}
    Handle(const Handle&) = default;             // copies the reference to the same alias
    Handle& operator=(const Handle&) = default;  // (no move: a move is a copy)
    // Gives nothing back; keeps the alias reachable until here (Note [Keep-alive]).
    ~Handle() { internal::keep_alive(alias_); }

    // Gives the alias's reference back now (TorchSharp's Dispose()); idempotent.
    void dispose() {
      if (alias_) internal::dispose(alias_);
      internal::keep_alive(alias_);
    }
    // True once disposed or finalized (or for a default-constructed handle).
    bool is_disposed() const {
      return alias_ == nullptr || alias_->impl.load(std::memory_order_acquire) == nullptr;
    }

    const TensorImpl& checked_impl(const char* op) const {
      if (alias_ == nullptr) internal::throw_null(op);
      internal::pin(alias_);  // reachable while the op runs (Note [Keep-alive])
      const TensorImpl* p = alias_->impl.load(std::memory_order_acquire);
      if (p == nullptr) internal::throw_unusable(alias_, op);
      return *p;
    }
    void release_reference() { dispose(); }

   private:
    friend struct testing::Access;
    internal::Alias* alias_ = nullptr;
  };
};
static_assert(OwnershipPolicy<Policy>);

// ---- collection --------------------------------------------------------------

// GC.Collect(); GC.WaitForPendingFinalizers(): a full collection, then the
// finalizers it queued run on this thread. Returns the number of tensor
// references finalizers gave back during this call. Objects that become
// unreachable only because a finalizer ran (aliases held by a dead gc::make
// object's gc::vector) are found by the next collect().
int64_t collect();
// Runs the finalizers already queued (WaitForPendingFinalizers alone).
int64_t run_finalizers();
// Whether finalizers are queued and waiting for a safe point.
bool pending_finalizers();
// False only in ThreadSanitizer builds, where the collector never runs (Note [ThreadSanitizer]).
bool collector_enabled();
// What the allocation-failure hook runs (Note [Reclaim and retry]): collect()
// on this thread (registering it for the call if needed); true if finalizers
// gave references back, i.e. the failed allocation is worth retrying.
bool reclaim();

// Note [Pressure trigger]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Off by default (the known failure, reproduced by the contract suite). When
// on, every tensor allocation on any backend adds its size to its device's
// count of bytes allocated since the last collection (core's alloc observer,
// core/reclaim.h; bytes_since_collection(device)); once one device's count
// reaches `threshold_bytes` a collection is *due*. Counted per device because
// each device's memory runs out on its own: 6 GiB on the host and 6 GiB on a
// GPU are not 12 GiB of pressure on either. It runs at the next handle
// creation (a safe point, right after the op that allocated), unless the
// trigger's time budget is spent: like CUDA.jl's maybe_collect, the smoothed
// duration of a triggered collection divided by the time since the previous
// one must not exceed `time_budget` (0.05 = at most 5% of wall time in
// triggered collections; the budget doubles once 2x the threshold has
// accumulated; >= 1 means no limit). At kHardFactor x the threshold the
// collection runs whatever the budget says, so native memory held by garbage
// stays below about kHardFactor x threshold plus one op's allocations.
// While a trigger is set, libgc's own collections (by its heap of handles)
// come at most every 1 MiB of handles when the collections find the program
// disposing what it creates, and on libgc's own schedule when they find it
// dropping handles: Note [The collector's own schedule under a trigger], schedule.cc.
struct PressureTrigger {
  static constexpr int kHardFactor = 4;
  int64_t threshold_bytes = 0;
  double time_budget = 0.05;
};
// Throws InvalidArgument for threshold_bytes <= 0 or a negative/NaN time_budget.
void set_pressure_trigger(int64_t threshold_bytes, double time_budget = 0.05);
void clear_pressure_trigger();
std::optional<PressureTrigger> pressure_trigger();

// RAII: sets a trigger for a scope, restoring the previous setting (tests, phases).
class ScopedPressureTrigger {
 public:
  explicit ScopedPressureTrigger(int64_t threshold_bytes, double time_budget = 0.05)
      : old_(pressure_trigger()) {
    set_pressure_trigger(threshold_bytes, time_budget);
  }
  ~ScopedPressureTrigger() {
    if (old_) {
      set_pressure_trigger(old_->threshold_bytes, old_->time_budget);
    } else {
      clear_pressure_trigger();
    }
  }
  ScopedPressureTrigger(const ScopedPressureTrigger&) = delete;
  ScopedPressureTrigger& operator=(const ScopedPressureTrigger&) = delete;

 private:
  std::optional<PressureTrigger> old_;
};

// Note [Reclaim and retry]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// This library registers `reclaim()` with core/reclaim.h: when a tensor
// allocation of any backend fails, core calls it, and if it returns true the
// allocation is retried once; a retry that succeeds is counted in the
// backend's MemoryStats::num_alloc_retries, one that fails is an
// OutOfMemoryError as before.

// ---- threads -------------------------------------------------------------------

// RAII: registers the calling thread with the collector (GC_register_my_thread)
// unless it already is, and unregisters it at the end of the scope if this
// object registered it. Declare it before the thread's first handle. Not
// copyable or movable; create and destroy it on the same thread.
class ThreadRegistration {
 public:
  ThreadRegistration();
  ~ThreadRegistration();
  ThreadRegistration(const ThreadRegistration&) = delete;
  ThreadRegistration& operator=(const ThreadRegistration&) = delete;
  // True if this object registered the thread (false if it already was).
  bool registered_here() const { return registered_here_; }

 private:
  bool registered_here_ = false;
};

// Whether the calling thread is registered with the collector.
bool thread_registered();

// ---- static roots (Note [Static roots]) ------------------------------------------

// true: the collector scans the static data of every loaded library (libgc's
// own default; slow with libtorch loaded). false (the default, unless the
// environment has CUSTODY_GC_SCAN_ALL_LIBRARIES=1): libraries installed under
// system library directories are skipped. Takes effect at the next collection.
void set_scan_all_libraries(bool on);
bool scan_all_libraries();

// ---- GC-visible storage for handles (Note [Where handles may live]) -----------

// A std::allocator replacement whose memory the collector scans but never
// frees by itself (GC_MALLOC_UNCOLLECTABLE / GC_FREE, like libgc's
// traceable_allocator), registering the calling thread first.
template <class T>
class TracedAllocator {
 public:
  using value_type = T;
  TracedAllocator() noexcept = default;
  template <class U>
  TracedAllocator(const TracedAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > std::numeric_limits<size_t>::max() / sizeof(T)) throw std::bad_alloc();
    internal::ensure_thread_registered();
    void* p = GC_MALLOC_UNCOLLECTABLE(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) noexcept { GC_FREE(p); }
  // Destroys *p and clears its bytes. A vector's buffer outlives the
  // handles destroyed in it (clear, pop_back, erase, a smaller resize) and the
  // collector scans all of it: the alias pointer a destroyed handle left there
  // would keep its tensor alive until the slot is written again.
  template <class U>
  void destroy(U* p) noexcept {
    p->~U();
    std::memset(static_cast<void*>(p), 0, sizeof(U));
  }

  template <class U>
  friend bool operator==(const TracedAllocator&, const TracedAllocator<U>&) noexcept {
    return true;
  }
};

// A std::vector the collector sees into, wherever the vector object lives.
template <class T>
using vector = std::vector<T, TracedAllocator<T>>;

namespace internal {
template <class T>
void destroy_boxed(void* obj, void* /*client_data*/) {
  static_cast<T*>(obj)->~T();
}
}  // namespace internal

// Constructs a T in collectable memory that the collector scans, and returns
// it. It lives while a visible pointer refers to it (Note [Where handles may
// live]); then its destructor, if any, runs from a finalizer at a safe point.
// Never `delete` the result.
template <class T, class... Args>
T* make(Args&&... args) {
  static_assert(alignof(T) <= 2 * sizeof(void*), "gc::make: over-aligned types are not supported");
  internal::ensure_thread_registered();
  void* mem = GC_MALLOC(sizeof(T));
  if (mem == nullptr) throw OutOfMemoryError("gc::make: the collector's heap is exhausted");
  T* obj;
  try {
    obj = ::new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    GC_FREE(mem);
    throw;
  }
  if constexpr (!std::is_trivially_destructible_v<T>) {
    GC_REGISTER_FINALIZER_NO_ORDER(obj, &internal::destroy_boxed<T>, nullptr, nullptr, nullptr);
  }
  return obj;
}

// ---- statistics ----------------------------------------------------------------

struct Stats {
  int64_t live_references = 0;         // aliases still holding a reference
  int64_t aliases_created = 0;
  int64_t disposed = 0;                // references given back by dispose()/release()/test idiom
  int64_t finalized = 0;               // references given back by finalizers
  int64_t collections = 0;             // collections this policy ran (all causes)
  int64_t pressure_collections = 0;    // ... of which by the pressure trigger
  int64_t reclaim_collections = 0;     // ... of which after a failed allocation
  int64_t budget_skips = 0;            // due trigger collections the time budget put off
  int64_t bytes_since_collection = 0;  // native bytes allocated since our last collection,
                                       // all devices together
  int64_t gc_heap_bytes = 0;           // the collector's own heap (GC_get_heap_size)
  // Static data the collector's last root registration (every collection)
  // scanned and skipped (Note [Static roots]); 0 before the first collection.
  int64_t root_objects_scanned = 0;    // loaded objects, the main program included
  int64_t root_objects_skipped = 0;
  int64_t root_bytes_scanned = 0;      // bytes of their writable segments
  int64_t root_bytes_skipped = 0;
  std::string to_string() const;
};
Stats stats();
// Native bytes allocated on `device` since our last collection: what the
// pressure trigger compares with its threshold (Note [Pressure trigger]).
int64_t bytes_since_collection(Device device);

namespace testing {
// Whether the root filter scans the writable static data of the loaded object
// named `path` as dl_iterate_phdr names it ("" is the main program), under the
// current setting (Note [Static roots]).
bool scans_static_data_of(const char* path);
// Whether this build's aliases use libgc's finalizer table (--config=gc_table,
// Note [Finalizers from mark bits]) instead of the pass over mark bits.
bool uses_finalizer_table();
// Every alias on the alias lists (Note [Alias lists], internal.h), disposed and
// finalized ones not yet unlinked included; prunes nothing.
int64_t listed_aliases();
// The test idiom (PolicyIdiom<gc::Policy>): disposes every alias created on
// this thread since `since_serial` that still holds a reference. Returns how
// many references it gave back.
int64_t release_created_on_this_thread_since(uint64_t since_serial);
// ... and on any thread: for code whose threads have all ended (a server's
// workers, joined by its finish()).
int64_t release_created_since(uint64_t since_serial);
uint64_t next_serial();

// For tests that follow particular aliases through collections (the lifetime
// fuzzer's garbage mode): the serial of the alias a handle refers to (0 for a
// default handle), ...
struct Access {
  template <class Handle>
  static uint64_t serial_of(const Handle& h) {
    return h.alias_ == nullptr ? 0 : h.alias_->serial;
  }
};
template <class Handle>
uint64_t serial_of(const Handle& h) {
  return Access::serial_of(h);
}
// ... which of the aliases with these serials still hold their reference
// (neither disposed nor finalized), in the order given, ...
std::vector<uint64_t> still_holding(const std::vector<uint64_t>& serials);
// ... and disposes those of them that still do; returns how many it disposed.
int64_t dispose_serials(const std::vector<uint64_t>& serials);
}  // namespace testing

}  // namespace custody::gc

namespace custody {
// Handles kept on the heap live in gc::vector (core/policy_traits.h).
template <>
struct PolicyTraits<gc::Policy> : DefaultPolicyTraits {
  template <class T>
  using vector = gc::vector<T>;
};
}  // namespace custody

#endif  // CUSTODY_POLICIES_GC_GC_H_
