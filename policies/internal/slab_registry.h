// Copyright 2026 The custody Authors.
//
// policies/internal/slab_registry.h — the per-thread slab registry of the
// policies whose references live in slots of immortal slabs (dispose's
// aliases, manual's ledger entries), one copy of its mechanism:
//
//   SlabRegistry<Slot, kSlots, Owner>
//       one thread's registry: slabs of kSlots slots, the stack where other
//       threads put the slots they free, and `mu`; `Owner` is the part the
//       policy's inline header paths see (its owner-thread free lists)
//   SlabRegistries<R, SetFast, kFirstSerial>
//       every registry of one policy (`R` derives from SlabRegistry), the
//       calling thread's, the policy's serial clock, and what reads them all:
//       scans, leak-report skeleton, slot counts, the per-thread test idiom
//
// What differs between the policies stays in each: the slot type and its
// state word, how a slot is filled, how a thread refills its free list, how a
// reader of slot fields excludes the owner (a plain lock for dispose, manual's
// readers count), what a leak report holds and how an entry is released.
// Everything here is a template over those, inlined where the policy calls it:
// the hot paths (filling a slot, taking a serial) compile as if written in the
// policy. Not API: only policies/ may depend on it.
//
//   struct Registry : policy_internal::SlabRegistry<Alias, 256, SlotOwner> {};
//   void set_fast(Registry* r) { tl_owner = r; }  // internal linkage
//   using Slabs = policy_internal::SlabRegistries<Registry, set_fast, 0>;
//   Registry* r = Slabs::mine();  // null only on an exiting thread
//   Alias* a = Slabs::take_slot<&SlotOwner::free_list, refill>(*r);
//   a->serial = Slabs::new_serial();

#ifndef CUSTODY_POLICIES_INTERNAL_SLAB_REGISTRY_H_
#define CUSTODY_POLICIES_INTERNAL_SLAB_REGISTRY_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor_impl.h"
#include "policies/internal/per_thread.h"

namespace custody::policy_internal {

// Note [Slab registries]
// ~~~~~~~~~~~~~~~~~~~~~~
// Each thread that makes references has a registry (Note [Thread
// registries]): slabs of kSlots slots that are never given back to the
// system, free lists only the owner thread touches (in `Owner`, so that the
// policy's inline paths can push onto them), and a stack (Note [MPSC stack])
// where other threads put the slots they free. A slot records the registry
// whose slab holds it (`owner`, fixed when the slab is made) and has a link
// (`next`) for the free lists and the stack. Taking a slot pops the owner's
// list with no lock and no atomic RMW; only when it is empty does the owner
// refill it, the policy's way, from the stack and, if need be, a new slab.
//
// `mu` guards `slabs`: it is held to add a slab, by the scans (which visit
// every slot of every registry, orphans included: a slot's state word says
// what it is, so nothing is counted on the fast paths) and by the test idiom.
// What more a reader of slot fields needs to exclude the owner is the
// policy's (its `Reader`). Slabs and registries are immortal: a handle may
// outlive the thread that made its reference, and static destruction.
//
// The test idiom (testing::release_created_on_this_thread_since) runs on the
// calling thread over its own registry, under `mu`: every in-use slot there
// was filled by this thread, or by an exited one whose registry it adopted,
// so the slot's fields are the caller's to read. The references it takes go
// back after `mu` is released: releasing one may free memory and run a
// from_blob deleter, which may create or release references.
template <class Slot, size_t kSlots, class Owner>
struct SlabRegistry : Owner {
  using slot_type = Slot;

  absl::Mutex mu;
  std::vector<std::unique_ptr<Slot[]>> slabs ABSL_GUARDED_BY(mu);
  MpscStack<Slot, &Slot::next> freed_elsewhere;

  // Adds a slab of free slots owned by this registry, linked through `next`
  // (the last one's is null), and returns its first slot. May throw
  // std::bad_alloc; then nothing has changed.
  Slot* add_slab() ABSL_LOCKS_EXCLUDED(mu) {
    auto slab = std::make_unique<Slot[]>(kSlots);
    for (size_t i = 0; i < kSlots; ++i) {
      slab[i].owner = this;
      slab[i].next = i + 1 < kSlots ? &slab[i + 1] : nullptr;
    }
    Slot* first = &slab[0];
    absl::MutexLock lock(&mu);
    slabs.reserve(slabs.size() + 1);  // may throw: the slab goes, nothing changed
    slabs.push_back(std::move(slab));
    return first;
  }

  // Calls f(Slot&) on every slot, oldest slab first.
  template <class F>
  void for_each_slot(F&& f) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (const auto& slab : slabs) {
      for (size_t i = 0; i < kSlots; ++i) f(slab[i]);
    }
  }

  // Slots in the slabs, free or in use.
  size_t slot_count() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return slabs.size() * kSlots; }
};

// The reader of slot fields that needs only `mu` (Note [Slab registries]).
template <class R>
class ABSL_SCOPED_LOCKABLE LockedRegistry {
 public:
  explicit LockedRegistry(R* r) ABSL_EXCLUSIVE_LOCK_FUNCTION(r->mu) : lock_(&r->mu) {}
  ~LockedRegistry() ABSL_UNLOCK_FUNCTION() {}
  LockedRegistry(const LockedRegistry&) = delete;
  LockedRegistry& operator=(const LockedRegistry&) = delete;

 private:
  absl::MutexLock lock_;
};

// Every registry `R` of one policy. `SetFast(r)` mirrors the calling thread's
// registry into the policy's thread_local that its inline header paths read
// (Note [Thread registries]); give it internal linkage, so that this class and
// its thread_locals have it too. Serials start at `kFirstSerial` (Note
// [Serials in blocks]). Everything is static: one instantiation per policy.
template <class R, void (*SetFast)(R*), uint64_t kFirstSerial>
class SlabRegistries {
 public:
  using Slot = typename R::slot_type;

  // Every registry ever made (Note [Registries and thread exit]).
  static RegistryList<R>& list() {
    static auto* list = new RegistryList<R>;  // immortal: handles outlive static destruction
    return *list;
  }

  // The calling thread's registry, or null before its first use and after exit.
  static R* current() { return ThisThread::current(); }
  // The calling thread's registry, taken on first use; null once the thread is exiting.
  static R* mine() { return ThisThread::mine(); }

  // A fresh serial for the calling thread.
  static uint64_t new_serial() { return serials_.next(tl_serials_); }
  // new_serial(), unless that needs a new block: then false (SerialClock::try_next).
  static bool try_new_serial(uint64_t* serial) { return serials_.try_next(tl_serials_, serial); }
  // testing::next_serial(): the bound of SerialClock::fence().
  static uint64_t next_serial() { return serials_.fence(); }

  // A free slot of `r`, whose owner the caller is: the head of the owner's
  // free list `r.*Head`, which `Refill(r)` (the policy's, not inlined) fills
  // when it is empty.
  template <auto Head, Slot* (*Refill)(R&)>
  static Slot* take_slot(R& r) {
    Slot* s = r.*Head;
    if (s == nullptr) [[unlikely]] s = Refill(r);
    r.*Head = s->next;
    return s;
  }

  // `fill(R&)` on a registry borrowed for the call: for a thread_local
  // destructor that makes a reference after its thread gave its registry up.
  // The registry goes back to the orphans when `fill` returns or throws.
  template <class Fill>
  static decltype(auto) with_borrowed_registry(Fill&& fill) {
    R* r = list().acquire();
    struct GiveBack {
      R* r;
      ~GiveBack() { list().release(r); }
    } give_back{r};
    return fill(*r);
  }

  // Calls f(Slot&) for every slot of every registry, each registry held by a
  // `Reader` (constructed from R*) while its slots are visited.
  template <class Reader = LockedRegistry<R>, class F>
  static void scan(F&& f) {
    for (R* r : list().snapshot()) {
      Reader reader(r);
      r->for_each_slot(f);
    }
  }

  // Slots of every registry for which `pick(const Slot&)` is true.
  template <class Reader = LockedRegistry<R>, class Pick>
  static int64_t count(Pick&& pick) {
    int64_t n = 0;
    scan<Reader>([&](const Slot& s) { n += pick(s) ? 1 : 0; });
    return n;
  }

  // Slots in every registry's slabs, free or in use.
  static size_t slot_count() {
    size_t n = 0;
    for (R* r : list().snapshot()) {
      absl::MutexLock lock(&r->mu);
      n += r->slot_count();
    }
    return n;
  }

  // A leak report: during a scan, `collect(const Slot&, std::vector<Pending>&)`
  // appends what it reports of a slot; then, outside the locks (symbolizing
  // sites is the slow part, core/sites.h), the entries are sorted by
  // `serial_of(const Pending&)` and each is turned into the report's element
  // by `finish(Pending&)`.
  template <class Pending, class Reader = LockedRegistry<R>, class Collect, class SerialOf,
            class Finish>
  static auto report(Collect&& collect, SerialOf&& serial_of, Finish&& finish) {
    std::vector<Pending> pending;
    scan<Reader>([&](const Slot& s) { collect(s, pending); });
    std::sort(pending.begin(), pending.end(),
              [&](const Pending& x, const Pending& y) { return serial_of(x) < serial_of(y); });
    std::vector<std::invoke_result_t<Finish&, Pending&>> out;
    out.reserve(pending.size());
    for (Pending& p : pending) out.push_back(finish(p));
    return out;
  }

  // The test idiom's walk (Note [Slab registries]): `take(Slot&, uint64_t
  // thread)`, called under the calling thread's `mu` for every slot of its
  // registry, ends the slot's entry if it is one the idiom releases (in use,
  // created on `thread`, the caller's number, with a serial at or above the
  // idiom's bound) and returns the entry's TensorImpl reference, else null.
  // The references go back after the lock; returns how many.
  template <class Take>
  static int64_t release_created_on_this_thread(Take&& take) {
    R* r = current();
    if (r == nullptr) return 0;  // this thread made no reference (or is exiting)
    const uint64_t me = this_thread_number();
    std::vector<TensorImpl*> refs;
    {
      absl::MutexLock lock(&r->mu);
      refs.reserve(r->slot_count());  // no allocation once taking
      r->for_each_slot([&](Slot& s) {
        if (TensorImpl* p = take(s, me)) refs.push_back(p);
      });
    }
    for (TensorImpl* p : refs) ImplRef(kAdopt, p).reset();
    return static_cast<int64_t>(refs.size());
  }

 private:
  using ThisThread = ThreadRegistry<R, list, SetFast>;

  static constinit inline SerialClock serials_{kFirstSerial};
  static constinit inline thread_local ThreadSerials tl_serials_;
};

}  // namespace custody::policy_internal

#endif  // CUSTODY_POLICIES_INTERNAL_SLAB_REGISTRY_H_
