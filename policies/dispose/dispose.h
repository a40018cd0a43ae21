// Copyright 2026 The custody Authors.
//
// policies/dispose/dispose.h — the `dispose` ownership policy: TorchSharp's
// technique 2, explicit disposal.
//
//   using T = custody::BasicTensor<custody::dispose::Policy, custody::Onednn>;
//   T a = T::ones({2, 2});
//   T b = a;                       // copies the *reference*: a and b are one alias
//   {
//     auto c = disposing(a.add(1)); // `using var c = ...`: disposed at the end of the block
//   }
//   a.dispose();                   // gives the reference back; b is disposed too (same alias)
//   b.dispose();                   // idempotent, as TorchSharp
//   T d = b;  d.dim();             // LifetimeError: the alias was disposed
//
// Contract (docs/design.md §5.3):
//  * A handle refers to an *alias*, which owns one reference on the tensor.
//    Copying a handle copies the reference to the same alias (C# reference
//    semantics); the handle's C++ destructor does nothing to the tensor.
//  * `dispose()` gives the alias's reference back; it is idempotent. `alias()`
//    makes a new alias (a new reference) to the same tensor.
//  * What is never disposed leaks: `leak_report()` lists each undisposed alias
//    that no handle refers to any more, with its creation site when site
//    tracking is on (CUSTODY_TRACK_SITES=1).
//  * Using a disposed alias is a LifetimeError naming the op.
//  * Handles may be copied, used, disposed and destroyed on any thread, and
//    copies of one handle may be disposed on several threads at once (one of
//    them gives the reference back). As with std::shared_ptr, one handle
//    *object* must not be disposed, assigned or destroyed while another
//    thread copies it. A thread that exits leaves its aliases valid. Copying
//    a handle is one atomic increment; creating an alias, disposing it and
//    dropping its last handle take no lock (dispose.cc, Note [Alias slabs];
//    Note [Owner fast paths] below).

// Note [Autograd under dispose]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The graph holds references of its own to what it saved (Note [The graph
// holds core references], core/autograd/meta.h): disposing your alias of an
// input after the forward does not break backward. The graph lives while an
// undisposed alias of one of its outputs does: dispose the loss and every
// output you made, and the graph gives back everything it saved at once. An
// output never disposed keeps its graph, and leak_report() lists the output.
// `grad()` is a new alias on each call: dispose it.

#ifndef CUSTODY_POLICIES_DISPOSE_DISPOSE_H_
#define CUSTODY_POLICIES_DISPOSE_DISPOSE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/policy_traits.h"
#include "core/sites.h"
#include "core/stats.h"
#include "core/tensor_impl.h"
#include "policies/internal/counted_slot.h"

namespace custody::dispose {

namespace internal {

struct Alias;

// The part of a thread's registry (dispose.cc, Note [Alias slabs]) that the
// inline fast paths below touch: the owner thread's list of free slots.
struct SlotOwner {
  Alias* free_list = nullptr;  // owner thread only
};

// The calling thread's registry; null until the thread makes its first alias,
// and again once the thread exits.
extern constinit thread_local SlotOwner* tl_owner;

// One alias: a reference on a TensorImpl, shared by every handle copied from it.
//
// Note [Alias state]
// ~~~~~~~~~~~~~~~~~~
// Aliases live in slots of slabs owned by per-thread registries (dispose.cc,
// Note [Alias slabs]); a slot is never returned to the system. `state` is an
// alias's whole life in one word, `handles * kHandle | kDisposed?`:
//
//   kHandle                a new alias: one handle (the creator's), not disposed
//   n * kHandle            n handles; copying a handle adds kHandle, destroying
//                          one subtracts it
//   n * kHandle|kDisposed  dispose() set kDisposed — the first to set it (on any
//                          thread) gave `impl` back, exactly once
//   0                      no handle, not disposed: a leak. No handle can ever
//                          reach the alias again; it stays until the process
//                          ends (what leak_report() lists), unless the test
//                          idiom (testing::release_created_on_this_thread_since)
//                          disposes it
//
// Only a handle can dispose, so a disposed alias is freed by its last handle
// going: the slot goes back to its registry. A free slot has kDisposed set
// (and whatever handle count it was left with: the owner fast path does not
// bother to clear it), so it is neither live nor a leak to a scan.
//
// Orderings, as c10's intrusive_ptr: a copy is a relaxed increment (the copier
// holds a handle, so the alias cannot go away); dropping a handle and disposing
// are acq_rel RMWs, so everything done through any handle happens before the
// slot's reuse, and of concurrent dispose() calls through copies of a handle
// exactly one sees kDisposed clear. When the owner thread holds the only
// handle, it skips the RMWs (Note [Owner fast paths]).
//
// `impl`, `owner`, `serial`, `thread` and `site` are written by the creating
// thread before `state` is published (release) and do not change while the
// slot is in use, so a handle holder, or a leak report that has read the
// state, reads them without a lock.
struct Alias {
  static constexpr uint64_t kDisposed = 1;
  static constexpr uint64_t kHandle = 2;

  std::atomic<uint64_t> state{kDisposed};
  TensorImpl* impl = nullptr;   // the alias's reference; given back by dispose()
  SlotOwner* owner = nullptr;   // registry whose slab holds this slot (fixed)
  Alias* next = nullptr;        // free-list link while the slot is free
  uint64_t serial = 0;          // creation order along each thread
  uint64_t thread = 0;          // creating thread (for per-thread test cleanup)
  sites::Site site;            // creation site, when tracking is on (symbolized on report)
};

Alias* new_alias(ImplRef ref);               // one handle, not disposed
bool dispose_slow(Alias* a);
void drop_handle_slow(Alias* a);
[[noreturn, gnu::cold]] void throw_disposed(const Alias* a, const char* op);
[[noreturn, gnu::cold]] void throw_null(const char* op);

inline void add_handle(Alias* a) {
  a->state.fetch_add(Alias::kHandle, std::memory_order_relaxed);
}

// Note [Owner fast paths]
// ~~~~~~~~~~~~~~~~~~~~~~~
// dispose() and drop_handle() skip the atomic RMW when the calling thread owns
// the alias's registry and the state shows exactly one handle — the caller's.
// Then nothing else can change the state concurrently: every other change
// needs another handle (there is none, and no thread may copy the caller's
// handle object while the caller is using it), except the test idiom, which
// runs on the creating thread — this thread, or one that has exited if this
// thread adopted its registry. So a load and a plain store do what the RMW
// would:
//  * dispose(): kHandle -> kHandle|kDisposed, then `impl` goes back. The load
//    is acquire: a handle another thread dropped (release) before ours left
//    ours the last one, and its uses of the tensor must happen before the
//    reference is released.
//  * drop_handle(): kHandle|kDisposed -> the slot goes onto the owner's free
//    list (its state stays: Note [Alias state]). Acquire for the same reason:
//    a remote dispose or handle drop happens before the slot's reuse.
// Any other state, or any other thread, takes the RMW path (dispose.cc).

// Gives the alias's reference back unless it was already; true if this call did.
inline bool dispose(Alias* a) {
  const HeldBy held("the reference", &a->site);  // for a memory history (Note [Held by], core/stats.h)
  if (a->owner == tl_owner &&
      a->state.load(std::memory_order_acquire) == Alias::kHandle) [[likely]] {
    a->state.store(Alias::kHandle | Alias::kDisposed, std::memory_order_relaxed);
    ImplRef(kAdopt, a->impl).reset();  // may free memory and run a from_blob deleter
    return true;
  }
  return dispose_slow(a);
}

// Drops one handle; the last handle of a disposed alias frees its slot.
inline void drop_handle(Alias* a) {
  SlotOwner* me = tl_owner;
  if (a->owner == me &&
      a->state.load(std::memory_order_acquire) == (Alias::kHandle | Alias::kDisposed)) [[likely]] {
    a->next = me->free_list;
    me->free_list = a;
    return;
  }
  drop_handle_slow(a);
}

}  // namespace internal

struct Policy {
  static constexpr const char* name = "dispose";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(AdoptTag, ImplRef ref) : alias_(internal::new_alias(std::move(ref))) {}
    // Copies add a handle to the alias, destruction drops one (policy_internal::CountedSlot) and
    // does not dispose: like a C# reference going out of scope.

    // Gives the alias's reference back (TorchSharp's Dispose()); idempotent,
    // and safe to call through copies of the handle on several threads at once.
    void dispose() {
      if (alias_) internal::dispose(alias_.get());
    }
    bool is_disposed() const {
      return !alias_ ||
             (alias_->state.load(std::memory_order_acquire) & internal::Alias::kDisposed) != 0;
    }

    const TensorImpl& checked_impl(const char* op) const {
      if (!alias_) internal::throw_null(op);
      // Relaxed: this handle already orders the alias's creation before us.
      // Using the tensor while another thread disposes the same alias is a
      // user error the policy does not make safe (as in TorchSharp).
      if (alias_->state.load(std::memory_order_relaxed) & internal::Alias::kDisposed) [[unlikely]] {
        internal::throw_disposed(alias_.get(), op);
      }
      return *alias_->impl;
    }
    void release_reference() { dispose(); }

   private:
    policy_internal::CountedSlot<internal::Alias> alias_;
  };
};
static_assert(OwnershipPolicy<Policy>);

// `auto t = disposing(expr);` — the `using var` of C++: a handle that disposes
// its alias at the end of the enclosing block.
template <class T>
class Disposing : public T {
 public:
  explicit Disposing(T t) : T(std::move(t)) {}
  Disposing(const Disposing&) = delete;
  Disposing& operator=(const Disposing&) = delete;
  ~Disposing() { this->dispose(); }
};

template <class T>
Disposing<T> disposing(T t) {
  return Disposing<T>(std::move(t));
}

// An alias's reference that was never given back (the same name as manual's
// report entry; gc's collector finds its own).
struct LeakedReference {
  uint64_t serial;     // creation order along its thread
  std::string dtype;
  std::vector<int64_t> sizes;
  std::string site;    // empty unless site tracking is on (symbolized by leak_report())
};

// Undisposed aliases that no handle refers to any more (they can never be
// disposed: their memory is lost until the process ends), by serial.
std::vector<LeakedReference> leak_report();
// leak_report() as text, one alias per line.
std::string leak_report_string();
// Number of aliases not yet disposed (referenced or not): a sum of per-thread
// counters, exact whenever no other thread is creating or disposing meanwhile.
int64_t live_references();

// Turns creation-site recording on or off (default: CUSTODY_TRACK_SITES=1 in the environment).
void set_track_sites(bool on);

namespace testing {
// Disposes every alias created on this thread since `since_serial` (the test idiom).
// Returns how many references it gave back.
int64_t release_created_on_this_thread_since(uint64_t since_serial);
// A bound on serials: every alias created after this call (on this thread, or
// on any thread that happens after it) has a serial >= the result, every alias
// created before it a smaller one. Serials grow along each thread; across
// threads they are not creation order (policies/internal/per_thread.h).
uint64_t next_serial();
}  // namespace testing

}  // namespace custody::dispose

#endif  // CUSTODY_POLICIES_DISPOSE_DISPOSE_H_
