// Copyright 2026 The custody Authors.

#include "policies/dispose/dispose.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/reclaim.h"
#include "core/shape.h"
#include "core/sites.h"
#include "core/stats.h"
#include "policies/internal/per_thread.h"
#include "policies/internal/slab_registry.h"

namespace custody::dispose {
namespace internal {

// Note [Alias slabs]
// ~~~~~~~~~~~~~~~~~~
// Each thread that makes aliases has a Registry (Note [Slab registries],
// policies/internal/slab_registry.h) of kSlabSlots-slot slabs, with one free
// list (SlotOwner, in dispose.h) that only the owning thread touches. Making an
// alias pops the free list with no lock and no atomic RMW; when the list is
// empty the owner takes the whole stack of slots other threads freed, and
// only when that is empty too does it lock `mu` to add a slab. A slot freed
// on the owner thread goes back on the free list, one freed elsewhere onto
// the owner's stack. When a thread exits its registry becomes an orphan,
// adopted by the next thread that needs a registry (Note [Registries and
// thread exit]): slots stay valid for handles that outlive their thread, and
// thread churn does not grow memory.
//
// There are no counters on the fast paths: live_references() and leak_report()
// scan the slabs (the state word says what each slot is, Note [Alias state]),
// holding each registry's `mu`, as the test idiom does: the only thing that
// can change a leaked alias (state 0) is the idiom on the creating thread,
// which holds `mu`, so a leak report reads a leaked alias's fields and tensor
// without racing with its release.
constexpr size_t kSlabSlots = 256;

struct Registry : policy_internal::SlabRegistry<Alias, kSlabSlots, SlotOwner> {};

constinit thread_local SlotOwner* tl_owner = nullptr;

namespace {

void set_fast(Registry* r) { tl_owner = r; }
// The registries: every one made, the calling thread's (Note [Thread
// registries], policies/internal/per_thread.h); and the alias serials.
using Slabs = policy_internal::SlabRegistries<Registry, set_fast, /*kFirstSerial=*/0>;

// The free list is empty: takes the slots other threads freed, else adds a slab.
[[gnu::noinline]] Alias* refill(Registry& r) {
  Alias* a = r.freed_elsewhere.take_all();
  if (a == nullptr) a = r.add_slab();  // may throw: nothing changed
  return a;
}

// A free slot of `r`, whose owner the caller is.
inline Alias* take_slot(Registry& r) { return Slabs::take_slot<&SlotOwner::free_list, refill>(r); }

// Gives back the slot of a disposed alias whose last handle is gone.
void free_slot(Alias* a) {
  SlotOwner* me = tl_owner;
  if (a->owner == me) {
    a->next = me->free_list;
    me->free_list = a;
  } else {
    // Release: our reads of the slot happen before the owner reuses it.
    static_cast<Registry*>(a->owner)->freed_elsewhere.push(a);
  }
}

[[gnu::noinline]] void capture_site(Alias* a) { a->site = sites::capture(); }

[[gnu::always_inline]] inline Alias* fill(Registry& r, ImplRef& ref) {
  Alias* a = take_slot(r);  // the only call that may throw; `ref` is then dropped by unwinding
  a->impl = ref.leak();
  a->serial = Slabs::new_serial();
  a->thread = policy_internal::this_thread_number();
  if (sites::tracking()) [[unlikely]] {
    capture_site(a);
  } else if (!a->site.empty()) [[unlikely]] {
    a->site = {};
  }
  // Publishes the fields above to scans (Note [Alias state]).
  a->state.store(Alias::kHandle, std::memory_order_release);
  return a;
}

// A thread_local destructor is making an alias after the thread gave its
// registry up: borrow an orphan (or a new registry) for this one alias.
[[gnu::noinline]] Alias* new_alias_on_exiting_thread(ImplRef& ref) {
  return Slabs::with_borrowed_registry([&ref](Registry& r) { return fill(r, ref); });
}

}  // namespace

Alias* new_alias(ImplRef ref) {
  custody::internal::maybe_fail_metadata("a dispose alias");  // Note [Allocation-failure injection]
  if (Registry* r = Slabs::mine()) [[likely]] return fill(*r, ref);
  return new_alias_on_exiting_thread(ref);
}

bool dispose_slow(Alias* a) {
  if (a->state.load(std::memory_order_relaxed) & Alias::kDisposed) return false;
  const uint64_t old = a->state.fetch_or(Alias::kDisposed, std::memory_order_acq_rel);
  if (old & Alias::kDisposed) return false;  // another thread won
  // We hold a handle, so the slot stays this alias's until we drop it.
  ImplRef(kAdopt, a->impl).reset();
  return true;
}

void drop_handle_slow(Alias* a) {
  const uint64_t old = a->state.fetch_sub(Alias::kHandle, std::memory_order_acq_rel);
  if (old == (Alias::kHandle | Alias::kDisposed)) free_slot(a);
  // old == kHandle: the alias is now a leak (Note [Alias state]).
}

void throw_disposed(const Alias* a, const char* op) {
  std::string msg = absl::StrFormat(
      "%s: this tensor was disposed (alias #%d); dispose() only after the last use, or use "
      "alias() to keep an independent reference", op, a->serial);
  absl::StrAppend(&msg, "\n", sites::describe("created at", a->site));
  throw LifetimeError(msg);
}

void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this handle refers to no tensor (default-constructed or moved from)", op));
}

}  // namespace internal

std::vector<LeakedReference> leak_report() {
  struct Leak {
    LeakedReference report;
    sites::Site site;
  };
  return internal::Slabs::report<Leak>(
      [](const internal::Alias& a, std::vector<Leak>& leaks) {
        // Acquire: reads the creator's writes. A leaked alias does not change
        // while the scan holds its registry's `mu` (Note [Alias slabs]).
        if (a.state.load(std::memory_order_acquire) != 0) return;
        leaks.push_back(Leak{
            LeakedReference{a.serial, std::string(dtype_name(a.impl->scalar_type())),
                            std::vector<int64_t>(a.impl->sizes().begin(), a.impl->sizes().end()),
                            std::string()},
            a.site});
      },
      [](const Leak& l) { return l.report.serial; },
      [](Leak& l) {
        l.report.site = l.site.to_string();  // symbolized outside the locks (core/sites.h)
        return std::move(l.report);
      });
}

std::string leak_report_string() {
  std::string s;
  for (const LeakedReference& l : leak_report()) {
    absl::StrAppendFormat(&s, "leaked alias #%d: %s %s\n%s", l.serial, l.dtype, shape_str(l.sizes),
                          sites::describe("created at", l.site));
  }
  return s;
}

int64_t live_references() {
  return internal::Slabs::count([](const internal::Alias& a) {
    return (a.state.load(std::memory_order_relaxed) & internal::Alias::kDisposed) == 0;
  });
}

void set_track_sites(bool on) { sites::set_tracking(on); }

namespace testing {

uint64_t next_serial() { return internal::Slabs::next_serial(); }

int64_t release_created_on_this_thread_since(uint64_t since) {
  using internal::Alias;
  return internal::Slabs::release_created_on_this_thread(
      [since](Alias& a, uint64_t me) -> TensorImpl* {
        // An in-use slot of our registry: its fields are ours to read (Note
        // [Slab registries], policies/internal/slab_registry.h).
        if (a.state.load(std::memory_order_acquire) & Alias::kDisposed) return nullptr;
        if (a.thread != me || a.serial < since) return nullptr;
        // Handles on other threads may be disposing or dropping it right now.
        const uint64_t old = a.state.fetch_or(Alias::kDisposed, std::memory_order_acq_rel);
        if (old & Alias::kDisposed) return nullptr;
        TensorImpl* impl = a.impl;
        if (old == 0) internal::free_slot(&a);  // a leak: no handle will free it
        return impl;
      });
}

}  // namespace testing
}  // namespace custody::dispose
