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
// Contract (DESIGN §5.6, TH's golden rule):
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
//    `custody::release(t)` (DESIGN §5.1 G3) is the same free. Freeing a default
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
// in *slots* of a slab that is never returned to the system (the ledger is
// immortal), and a handle is (slot address, serial): the serial is a global,
// never-reused 64-bit number given to each entry when it is created. A slot's
// `live_serial` holds the serial of the entry living in it, or 0 once that
// entry's count reached zero. A handle is usable exactly when
// `slot->live_serial == handle.serial`:
//  * after the free, `live_serial` is 0: the handle is refused, and the slot
//    still has the freed entry's serial, creation and free sites, dtype and
//    shape for the error message;
//  * a freed slot goes to the back of a FIFO free queue, so it is reused as
//    late as possible; once reused it holds another serial, and the old
//    handle is still refused (the message then says the slot was reused and
//    its sites are gone). Serials are never reused, so no stale handle can
//    ever pass for a newer entry;
//  * the slab has as many slots as the peak number of live references
//    (rounded up to its 256-slot chunks), not the number ever created; a freed
//    slot keeps only its sites, dtype and shape until reuse, and a live one at
//    most `count - 1` retain sites.
// The check is one acquire load on the slot (no lock); creating, retaining and
// freeing take the ledger mutex. A slot's memory is always valid, so checking a
// stale handle is never undefined behaviour. What the check cannot make safe is
// a free of the last reference racing with a use on another thread (the
// TensorImpl may go between the check and the use): that is a data race in the
// caller's program, exactly as with raw THTensor pointers.

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
#include "core/sites.h"
#include "core/shape.h"
#include "core/tensor_impl.h"

namespace custody::manual {

namespace internal {

// One ledger slot (Note [Stale handles]). Fields after `impl` are guarded by
// the ledger mutex.
struct Slot {
  // Serial of the live entry in this slot; 0 while the slot is free.
  std::atomic<uint64_t> live_serial{0};
  // The entry's one reference on its TensorImpl (an adopted ImplRef) while
  // live; null while free. Written before `live_serial` is published.
  std::atomic<TensorImpl*> impl{nullptr};

  uint64_t serial = 0;          // the entry living here, or the last one that did
  int64_t count = 0;            // the manual refcount; 0 once freed
  uint64_t thread = 0;          // creating thread (for the per-thread test idiom)
  sites::Site created_at;       // creation site (empty unless tracking)
  std::vector<sites::Site> retained_at;  // sites of outstanding retains (<= count - 1)
  sites::Site freed_at;         // site of the free that reached zero
  ScalarType dtype = ScalarType::Float;  // recorded at that free, for messages
  Dims sizes;
  Slot* prev = nullptr;         // live list links; `next` also links the free queue
  Slot* next = nullptr;
};

// What a handle holds: a slot and the serial of its entry.
struct EntryId {
  Slot* slot = nullptr;
  uint64_t serial = 0;
};

EntryId new_entry(ImplRef ref);                    // count 1
void retain_entry(const EntryId& id, const char* op);
void free_entry(const EntryId& id, const char* op);
int64_t refcount(const EntryId& id);
[[noreturn]] void throw_unusable(const EntryId& id, const char* op);

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
// +1 reference either way, so the caller frees it unconditionally (the seed's
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

// A reference that has not been freed yet.
struct UnfreedReference {
  uint64_t id;                           // reference_id()
  std::string dtype;
  std::vector<int64_t> sizes;
  int64_t refcount;                      // frees still owed
  std::string site;                      // creation site; empty unless tracking
  std::vector<std::string> retained_at;  // outstanding retains' sites (when tracking)
  // (both symbolized by leak_report(), outside the ledger lock)
};

// Every reference not yet freed, oldest first. In a program that follows the
// golden rule this is empty at exit.
std::vector<UnfreedReference> leak_report();
// leak_report() as text: a line per reference, then its sites (or a hint to
// set CUSTODY_TRACK_SITES=1).
std::string leak_report_string();
// Number of references not yet freed.
int64_t live_references();

namespace testing {

// The manual count of `t`'s reference: frees still owed; 0 once freed (also
// for a default handle or a reference whose slot was reused).
template <ManualTensor T>
int64_t refcount(const T& t) {
  return internal::refcount(t.ledger_entry());
}

// The next reference id to be given out (references made from now on have ids >= it).
uint64_t next_reference_id();
// Frees, whatever their counts, the references created on the calling thread
// with id >= `since` (the per-test idiom: PolicyIdiom<manual::Policy>::Guard).
void free_created_on_this_thread_since(uint64_t since);
// Slots in the ledger's slab (live + free): the peak of live references, rounded
// up to the slab's chunk size. Stays flat under create/free churn.
size_t ledger_slots();
// Free slots waiting in the reuse queue.
size_t ledger_free_slots();

}  // namespace testing

}  // namespace custody::manual

#endif  // CUSTODY_POLICIES_MANUAL_MANUAL_H_
