// Copyright 2026 The custody Authors.
//
// policies/manual/manual.h — the `manual` ownership policy: the golden rule of
// reference counting of PyTorch's TH libraries (new / retain / free).
//
//   using T = custody::BasicTensor<custody::manual::Policy, custody::Onednn>;
//   namespace manual = custody::manual;     // free(t)/retain(t) are found by ADL
//
//   // Returns a +1 reference, so its name begins with `new_`.
//   T new_normalized(const T& x) {
//     T total = x.sum();                     // +1: ours to free
//     T out = x.div(total);                  // +1: returned, so not freed here
//     free(total);
//     return out;
//   }
//
//   T x = T::randn({4, 4});                  // +1
//   T xt = x.t();                            // +1 (a view; every op result is +1)
//   T kernel = manual::new_contiguous(xt);   // +1: a contiguous copy, or xt retained
//   T y = new_normalized(kernel);            // +1 handed to us
//   free(y);  free(kernel);  free(xt);  free(x);
//   free(x);                                 // LifetimeError: free past zero, naming where
//                                            // x was created and where it was freed before
//   std::cout << manual::leak_report_string();   // every reference not yet freed
//
// Contract (docs/design.md §5.6, TH's golden rule):
//  * A handle is a plain value, like a `THTensor*`: copying it copies the
//    pointer (no count changes) and its destructor does nothing. It names one
//    *reference entry* in the policy's ledger (Note [References and entries]).
//  * Every op result (factories, views, `alias()`, in-place ops, conversions)
//    is a fresh +1 reference that the caller must `free(t)` or return.
//    Functions that return +1 references are named `new_*`.
//  * `retain(t)` adds one to the count of `t`'s reference and returns a handle
//    to the same reference; each retain takes one more `free`.
//  * `new_contiguous(t)` returns `t` retained when it is already contiguous,
//    else a fresh contiguous copy — either way a +1 reference to free.
//  * `free(t)` takes one from the count; at zero the tensor reference is given
//    back to core (memory returns when no other reference or view remains).
//    `custody::release(t)` (docs/design.md §5.1 G3) is the same free. Freeing a default
//    (null) handle does nothing, as `THTensor_(free)(NULL)`.
//  * A free past zero is a LifetimeError naming the reference, where it was
//    created and where it was freed before (with CUSTODY_TRACK_SITES=1 or
//    sites::set_tracking(true); a hint to turn tracking on otherwise).
//  * Using a reference whose count reached zero — as an op's receiver or
//    operand, or in retain/new_contiguous — is a LifetimeError naming the op,
//    never undefined behaviour, however many copies of the handle exist and
//    however long after the free (Note [Stale handles]).
//  * Passing a handle to a function does not pass the reference on: a callee
//    that keeps the tensor retains it itself, and the caller still frees its
//    own. Handing a +1 over without retaining (TH's "move": storing it in an
//    owner, returning it) makes the receiver the one to free it.
//  * An op that throws (bad shapes, out of memory, a freed operand) creates no
//    reference and changes no count. Code between a `new_*` call and its
//    `free` must free on every exit, exceptions included.
//  * `leak_report()` lists every reference not yet freed, with dtype, shape,
//    count, creation site and the sites of outstanding retains.
//  * Refcounts and the ledger are thread-safe; handles may be copied to,
//    used on and freed by any thread. Freeing the last reference on one thread
//    while another thread is still using it is a data race in the caller's
//    program, as it is in TH (Note [Stale handles]).
//
// Note [References and entries]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Core hands every op result to the policy as one ImplRef (one count on a
// TensorImpl). The policy files it as an *entry* in the ledger: the entry owns
// that ImplRef and has a manual count, born 1. `retain` increments the
// entry's count and returns the same handle (as `THTensor_(retain)` keeps the
// pointer); `free` decrements it, and the decrement to zero releases the
// ImplRef. So `refcount(t)` is "how many frees this handle still needs". Two
// op results on one TensorImpl (`a.alias()`, `a.add_(1)`) are two entries,
// freed separately; they share the tensor the way two TH pointers that each
// retained it would. One entry per result, not per TensorImpl, gives each +1
// its own creation site, creating thread and leak-report line, and catches a
// free of the wrong handle (freeing `a` twice when `a.alias()` was the one to
// free) instead of silently balancing the count.
//
// Note [Stale handles]
// ~~~~~~~~~~~~~~~~~~~~
// Handles are copied freely and never tell the ledger when they die, so the
// ledger cannot know when a freed entry is unreachable. Entries therefore live
// in *slots* of slabs that are never returned to the system (the ledger is
// immortal), and a handle is (slot address, serial): the serial is a
// never-reused 64-bit number given to each entry when it is created. A slot's
// `live_serial` holds the serial of the entry living in it, and keeps it with
// its top bit set once that entry's count reached zero. A handle is usable
// exactly when `slot->live_serial == handle.serial`:
//  * after the free, the top bit is set: the handle is refused, and the slot
//    still has the freed entry's serial, creation and free sites, dtype and
//    shape for the error message;
//  * a freed slot is reused as late as its owner can manage: it waits in a
//    queue of freed slots that is taken up only when the slots already queued
//    for reuse run out (manual.cc, Note [Ledger slabs]). Once reused it holds
//    another serial, and the old handle is still refused (the message then
//    says the slot was reused and its sites are gone). Serials are never
//    reused, so no stale handle can ever pass for a newer entry;
//  * each thread's slabs hold about the peak number of references that thread
//    had live at once (in 64-slot chunks), not the number ever created; a
//    freed slot keeps only its sites, dtype and shape until reuse, and a live
//    one at most `count - 1` retain sites.
// The check is one acquire load on the slot. Creating, retaining and freeing
// take no lock either: the count is a CAS on a word tagged with the entry's
// serial (Note [Counts and tags]), and slots come from and go back to per-thread
// lists. A slot's memory is always valid, so checking a stale handle is never
// undefined behaviour, and concurrent frees of one reference are counted
// exactly (a racing double free is a LifetimeError, once). What the check
// cannot make safe is a free of the last reference racing with a use on
// another thread (the TensorImpl may go between the check and the use): that
// is a data race in the caller's program, exactly as with raw THTensor
// pointers.
//
// Note [Counts and tags]
// ~~~~~~~~~~~~~~~~~~~~~~
// `count` is (low 32 bits of the entry's serial) << 32 | the manual count.
// retain and free first check `live_serial` (exact, 64 bits), then change the
// count with a CAS that also requires the tag to match and the count to be
// non-zero. So a free that loses a race with the last free (count already 0),
// or with the slot's reuse by a new entry (another tag), fails its CAS check
// and throws instead of touching the new tenant's count: only ~2^32 entries
// made in that slot between the check and the CAS could fool it. Increments
// are relaxed (the retainer holds a count); decrements acq_rel, so every use
// through any reference happens before the last free gives the TensorImpl
// back (as c10's intrusive_ptr).

// Note [Autograd under manual]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The graph holds +1s of its own on what it saved (Note [The graph holds core
// references], core/autograd/meta.h), given back as backward passes each
// node (unless retain_graph) or when the last reference to the outputs is
// freed: freeing every output you made (the golden rule) frees the graph. An
// output never freed keeps its graph, and the leak report names the op that
// made the output. `grad()` is a +1 you free.

#ifndef CUSTODY_POLICIES_MANUAL_MANUAL_H_
#define CUSTODY_POLICIES_MANUAL_MANUAL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/policy_traits.h"
#include "core/sites.h"
#include "core/shape.h"
#include "core/tensor_impl.h"

namespace custody::manual {

namespace internal {

struct Slot;

// Slot::live_serial of a freed entry: its serial with this bit set (serials
// stay far below 2^63).
inline constexpr uint64_t kFreedBit = uint64_t{1} << 63;

// The part of a thread's registry (manual.cc, Note [Ledger slabs]) that the
// inline free below touches.
struct SlotQueues {
  std::atomic<uint64_t> rounds{0};  // refills so far (changed only by the owner's refill)
  Slot* retired_head = nullptr;     // freed on the owner thread, oldest first (owner only)
  Slot* retired_tail = nullptr;
  size_t retired_count = 0;
};

// The calling thread's registry; null until the thread makes its first
// reference, and again once the thread exits.
extern constinit thread_local SlotQueues* tl_queues;

// One ledger slot (Note [Stale handles]). The atomics are read without a lock;
// the other fields are written by the thread that fills the slot, before
// `live_serial` is published, and by the thread whose free takes the count to
// zero, before `live_serial` goes to 0 (manual.cc, Note [Ledger slabs]).
struct Slot {
  // Serial of the live entry in this slot; once its count reached zero, that
  // serial | kFreedBit; 0 before the slot's first entry.
  std::atomic<uint64_t> live_serial{0};
  // The entry's one reference on its TensorImpl (an adopted ImplRef) while
  // live. Written before `live_serial` is published.
  std::atomic<TensorImpl*> impl{nullptr};
  // The entry's serial's low 32 bits << 32 | the manual refcount, 0 once
  // freed (Note [Counts and tags]).
  std::atomic<uint64_t> count{0};
  // The owner's refill count when the entry was freed (manual.cc, Note
  // [Ledger slabs]): a later refill may have queued the slot for reuse.
  std::atomic<uint64_t> freed_in_round{0};
  SlotQueues* owner = nullptr;  // registry whose chunk holds this slot (fixed)
  Slot* next = nullptr;         // link in the owner's queues while free
  uint64_t thread = 0;          // creating thread (for the per-thread test idiom)
  std::atomic<uint32_t> retained_sites{0};  // retained_at.size(), read without the lock
  ScalarType dtype = ScalarType::Float;  // recorded at creation, for messages and reports
  bool has_sites = false;       // created_at or freed_at may be set (saves touching them)
  Dims sizes;
  sites::Site created_at;       // creation site (empty unless tracking)
  std::vector<sites::Site> retained_at;  // sites of outstanding retains (<= count - 1)
  sites::Site freed_at;         // site of the free that reached zero
};

// What a handle holds: a slot and the serial of its entry.
struct EntryId {
  Slot* slot = nullptr;
  uint64_t serial = 0;
};

EntryId new_entry(ImplRef ref);                    // count 1
void retain_entry(const EntryId& id, const char* op);
void free_entry_slow(const EntryId& id, const char* op);

// Takes one from the count of `id`'s entry. Inline: the owner thread's free of
// a count of 1 with site tracking off, the common case — free_entry_slow()'s
// path for it, spelled out (manual.cc, Note [Ledger slabs]). The CAS is what
// makes a racing second free fail (Note [Counts and tags]); the reference
// goes back before the slot is queued, so fewer stores wait for its RMW.
inline void free_entry(const EntryId& id, const char* op) {
  Slot* s = id.slot;
  if (s == nullptr) return;  // as THTensor_(free)(NULL)
  SlotQueues* me = tl_queues;
  uint64_t one = (id.serial << 32) | 1;  // Note [Counts and tags]
  if (s->owner == me && s->live_serial.load(std::memory_order_acquire) == id.serial &&
      !sites::tracking() &&
      s->count.compare_exchange_strong(one, id.serial << 32, std::memory_order_acq_rel,
                                       std::memory_order_relaxed)) [[likely]] {
    TensorImpl* impl = s->impl.load(std::memory_order_relaxed);
    s->freed_in_round.store(me->rounds.load(std::memory_order_relaxed), std::memory_order_relaxed);
    s->live_serial.store(id.serial | kFreedBit, std::memory_order_release);
    ImplRef(kAdopt, impl).reset();  // may free memory and run a from_blob deleter
    if (me->retired_tail != nullptr) {  // (the tail's `next` is set when a refill splices)
      me->retired_tail->next = s;
    } else {
      me->retired_head = s;
    }
    me->retired_tail = s;
    ++me->retired_count;
    return;
  }
  free_entry_slow(id, op);
}
int64_t refcount(const EntryId& id);
[[noreturn, gnu::cold]] void throw_unusable(const EntryId& id, const char* op);

}  // namespace internal

struct Policy {
  static constexpr const char* name = "manual";

  // A trivially copyable, trivially destructible value (Note [Stale handles]).
  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    // Files core's fresh +1 reference as a new ledger entry with count 1.
    Handle(AdoptTag, ImplRef ref) : id_(internal::new_entry(std::move(ref))) {}

    const TensorImpl& checked_impl(const char* op) const {
      if (id_.slot != nullptr &&
          id_.slot->live_serial.load(std::memory_order_acquire) == id_.serial) [[likely]] {
        return *id_.slot->impl.load(std::memory_order_relaxed);
      }
      internal::throw_unusable(id_, op);
    }
    // G3: custody::release(t) is a free (a LifetimeError past zero).
    void release_reference() { internal::free_entry(id_, "release"); }

    // The entry's number, as leak reports and LifetimeErrors print it ("#12");
    // 0 for a default handle. Equal for copies and for retain()'s result.
    uint64_t reference_id() const { return id_.serial; }
    // The ledger entry (for manual::free/retain and tests).
    const internal::EntryId& ledger_entry() const { return id_; }

   private:
    internal::EntryId id_;
  };
};
static_assert(OwnershipPolicy<Policy>);

// A BasicTensor<manual::Policy, B> for any backend B.
template <class T>
concept ManualTensor = std::is_same_v<typename T::policy_type, Policy> &&
                       std::is_base_of_v<Policy::Handle<T>, T>;

// Takes one from the count of `t`'s reference; the last free gives the tensor
// reference back. A free past zero (or of a reference freed long ago) is a
// LifetimeError naming the creation and earlier free sites. `t` keeps naming
// the freed reference, so any later use is refused too. Freeing a default
// handle does nothing.
template <ManualTensor T>
void free(const T& t) {
  internal::free_entry(t.ledger_entry(), "free");
}

// Adds one to the count of `t`'s reference and returns a handle to the same
// reference (+1: the result takes its own free). LifetimeError if `t` was freed.
template <ManualTensor T>
T retain(const T& t) {
  internal::retain_entry(t.ledger_entry(), "retain");
  return t;
}

// `t` retained when it is already contiguous, else a fresh contiguous copy; a
// +1 reference either way, so the caller frees it unconditionally (TH's
// `newContiguous` idiom).
template <ManualTensor T>
T new_contiguous(const T& t) {
  if (t.checked_impl("new_contiguous").is_contiguous()) {
    internal::retain_entry(t.ledger_entry(), "new_contiguous");
    return t;
  }
  return t.contiguous();
}

// True when both handles name the same reference (TH's pointer equality).
template <ManualTensor T>
bool same_reference(const T& a, const T& b) {
  return a.ledger_entry().slot == b.ledger_entry().slot &&
         a.ledger_entry().serial == b.ledger_entry().serial;
}

// A reference that has not been freed yet (the same name as dispose's report entry).
struct LeakedReference {
  uint64_t id;                           // reference_id()
  std::string dtype;
  std::vector<int64_t> sizes;
  int64_t refcount;                      // frees still owed
  std::string site;                      // creation site; empty unless tracking
  std::vector<std::string> retained_at;  // outstanding retains' sites (when tracking)
  // (both symbolized by leak_report(), outside the ledger lock)
};

// Every reference not yet freed, by id (ids grow along each thread: oldest
// first per thread). In a program that follows the golden rule this is empty
// at exit.
std::vector<LeakedReference> leak_report();
// leak_report() as text: a line per reference, then its sites (or a hint to
// set CUSTODY_TRACK_SITES=1).
std::string leak_report_string();
// Number of references not yet freed (a scan of every thread's slots: exact
// whenever no other thread is creating or freeing meanwhile).
int64_t live_references();

namespace testing {

// The manual count of `t`'s reference: frees still owed; 0 once freed (also
// for a default handle or a reference whose slot was reused).
template <ManualTensor T>
int64_t refcount(const T& t) {
  return internal::refcount(t.ledger_entry());
}

// A bound on reference ids: references made from now on (on this thread, or on
// any thread that happens after this call) have ids >= it, references made
// before have smaller ones. Ids grow along each thread; across threads they
// are not creation order (policies/internal/per_thread.h).
uint64_t next_serial();
// Frees, whatever their counts, the references created on the calling thread
// with id >= `since` (the per-test idiom: PolicyIdiom<manual::Policy>::Guard).
// Returns how many references it freed.
int64_t release_created_on_this_thread_since(uint64_t since);
// Slots in the ledger's slabs (live + free), over all threads: about each
// thread's peak of live references, in whole chunks. Stays flat under
// create/free churn.
size_t ledger_slots();
// Free slots, over all threads: queued for reuse, or never used yet. A thread
// hands out every slot freed on it (or freed elsewhere and returned to it)
// before any slot of a chunk added later.
size_t ledger_free_slots();

}  // namespace testing

}  // namespace custody::manual

#endif  // CUSTODY_POLICIES_MANUAL_MANUAL_H_
