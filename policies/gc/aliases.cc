// Copyright 2026 The custody Authors.
//
// policies/gc/aliases.cc — gc.h's internal entry points, what a handle calls:
// new_alias() (the safe-point work, an alias object from the thread's batch,
// its serial, its place on the alias lists), dispose(), the errors of a
// handle that can no longer be used, and ensure_thread_registered(), here
// beside new_alias(), whose fast path inlines it.

#include "policies/gc/internal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <new>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/reclaim.h"
#include "core/sites.h"
#include "core/stats.h"
#include "policies/internal/per_thread.h"

namespace custody::gc::internal {

namespace {

constinit thread_local policy_internal::ThreadSerials tls_serials;

// The safety net of Note [Thread registration]: a thread registered on the spot
// is unregistered when it exits.
struct AutoRegistration {
  bool mine = false;
  ~AutoRegistration() {
    if (mine && GC_thread_is_registered()) unregister_this_thread();
  }
};
thread_local AutoRegistration tls_auto;

// The alias's creation site (Note [Alias layout]), for symbolizing.
sites::Site site_of(const Alias* a) {
  if (a->site == nullptr) return {};
  void* pcs[sites::Site::kMaxFrames];
  const int n = static_cast<int>(std::min<uintptr_t>(a->site[0], sites::Site::kMaxFrames));
  for (int i = 0; i < n; ++i) pcs[i] = reinterpret_cast<void*>(a->site[i + 1]);
  return sites::Site::from_frames(pcs, n);
}

}  // namespace

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
  const sites::Site site = site_of(a);
  const HeldBy held("the reference", &site);  // for a memory history (Note [Held by], core/stats.h)
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

}  // namespace custody::gc::internal
