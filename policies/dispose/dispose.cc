// Copyright 2026 The custody Authors.

#include "policies/dispose/dispose.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/reclaim.h"
#include "core/shape.h"
#include "core/sites.h"
#include "policies/internal/per_thread.h"

namespace custody::dispose {
namespace internal {

// Note [Alias slabs]
// ~~~~~~~~~~~~~~~~~~
// Each thread that makes aliases has a Registry: slabs of kSlabSlots alias
// slots (never given back to the system), a free list only the owning thread
// touches (SlotOwner, in dispose.h), and a stack (Note [MPSC stack]) where
// other threads put the slots they free. Making an alias pops the free list
// with no lock and no atomic RMW; when the list is empty the owner takes the
// whole remote stack, and only when that is empty too does it lock `mu` to
// add a slab. A slot freed on the owner thread goes back on the free list, one
// freed elsewhere onto the owner's stack. When a thread exits its registry
// becomes an orphan, adopted by the next thread that needs a registry (Note
// [Registries and thread exit]): slots stay valid for handles that outlive
// their thread, and thread churn does not grow memory.
//
// There are no counters on the fast paths: live_references() and leak_report()
// scan the slabs (the state word says what each slot is, Note [Alias state]).
// `mu` guards `slabs` and is held by the scans and by the test idiom: the only
// thing that can change a leaked alias (state 0) is the idiom on the creating
// thread, which holds `mu`, so a leak report reads a leaked alias's fields and
// tensor without racing with its release.
constexpr size_t kSlabSlots = 256;

struct Registry : SlotOwner {
  absl::Mutex mu;
  std::vector<std::unique_ptr<Alias[]>> slabs ABSL_GUARDED_BY(mu);
  policy_internal::MpscStack<Alias, &Alias::next> freed_elsewhere;
};

constinit thread_local SlotOwner* tl_owner = nullptr;

namespace {

using policy_internal::RegistryList;

RegistryList<Registry>& registries() {
  static auto* list = new RegistryList<Registry>;  // immortal: handles outlive static destruction
  return *list;
}

constinit policy_internal::SerialClock g_serials(0);

constinit thread_local policy_internal::ThreadSerials tl_serials;

void set_fast(Registry* r) { tl_owner = r; }
// The calling thread's registry (Note [Thread registries], policies/internal/per_thread.h).
using ThisThread = policy_internal::ThreadRegistry<Registry, registries, set_fast>;

// The free list is empty: takes the slots other threads freed, else adds a slab.
[[gnu::noinline]] Alias* refill(Registry& r) {
  Alias* a = r.freed_elsewhere.take_all();
  if (a == nullptr) {
    auto slab = std::make_unique<Alias[]>(kSlabSlots);  // may throw: nothing changed yet
    for (size_t i = 0; i < kSlabSlots; ++i) {
      slab[i].owner = &r;
      slab[i].next = i + 1 < kSlabSlots ? &slab[i + 1] : nullptr;
    }
    a = &slab[0];
    absl::MutexLock lock(&r.mu);
    r.slabs.reserve(r.slabs.size() + 1);  // may throw: the slab goes, nothing changed
    r.slabs.push_back(std::move(slab));
  }
  return a;
}

// A free slot of `r`, whose owner the caller is.
inline Alias* take_slot(Registry& r) {
  Alias* a = r.free_list;
  if (a == nullptr) [[unlikely]] a = refill(r);
  r.free_list = a->next;
  return a;
}

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
  a->serial = g_serials.next(tl_serials);
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
  Registry* r = registries().acquire();
  struct GiveBack {
    Registry* r;
    ~GiveBack() { registries().release(r); }
  } give_back{r};
  return fill(*r, ref);
}

// Calls f(Alias&) for every slot of every registry, each registry's `mu` held.
template <class F>
void scan(F&& f) {
  for (Registry* r : registries().snapshot()) {
    absl::MutexLock lock(&r->mu);
    for (const auto& slab : r->slabs) {
      for (size_t i = 0; i < kSlabSlots; ++i) f(slab[i]);
    }
  }
}

}  // namespace

Alias* new_alias(ImplRef ref) {
  custody::internal::maybe_fail_metadata("a dispose alias");  // Note [Allocation-failure injection]
  if (Registry* r = ThisThread::mine()) [[likely]] return fill(*r, ref);
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
  std::vector<std::pair<LeakedReference, sites::Site>> leaks;
  internal::scan([&leaks](const internal::Alias& a) {
    // Acquire: reads the creator's writes. A leaked alias does not change
    // while the scan holds its registry's `mu` (Note [Alias slabs]).
    if (a.state.load(std::memory_order_acquire) != 0) return;
    leaks.emplace_back(
        LeakedReference{a.serial, std::string(dtype_name(a.impl->scalar_type())),
                    std::vector<int64_t>(a.impl->sizes().begin(), a.impl->sizes().end()),
                    std::string()},
        a.site);
  });
  std::sort(leaks.begin(), leaks.end(),
            [](const auto& x, const auto& y) { return x.first.serial < y.first.serial; });
  // Symbolized outside the locks: it is the slow part (core/sites.h).
  std::vector<LeakedReference> out;
  out.reserve(leaks.size());
  for (auto& [leak, site] : leaks) {
    leak.site = site.to_string();
    out.push_back(std::move(leak));
  }
  return out;
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
  int64_t live = 0;
  internal::scan([&live](const internal::Alias& a) {
    if (!(a.state.load(std::memory_order_relaxed) & internal::Alias::kDisposed)) ++live;
  });
  return live;
}

void set_track_sites(bool on) { sites::set_tracking(on); }

namespace testing {

uint64_t next_serial() { return internal::g_serials.fence(); }

int64_t release_created_on_this_thread_since(uint64_t since) {
  using internal::Alias;
  internal::Registry* r = internal::ThisThread::current();
  if (r == nullptr) return 0;  // this thread made no alias (or is exiting)
  const uint64_t me = policy_internal::this_thread_number();
  std::vector<TensorImpl*> refs;
  {
    absl::MutexLock lock(&r->mu);
    refs.reserve(r->slabs.size() * internal::kSlabSlots);  // no allocation once disposing
    for (const auto& slab : r->slabs) {
      for (size_t i = 0; i < internal::kSlabSlots; ++i) {
        Alias* a = &slab[i];
        // Every in-use slot of our registry was filled by this thread (or by an
        // exited one whose registry we adopted): its fields are ours to read.
        if (a->state.load(std::memory_order_acquire) & Alias::kDisposed) continue;
        if (a->thread != me || a->serial < since) continue;
        // Handles on other threads may be disposing or dropping it right now.
        const uint64_t old = a->state.fetch_or(Alias::kDisposed, std::memory_order_acq_rel);
        if (old & Alias::kDisposed) continue;
        refs.push_back(a->impl);
        if (old == 0) internal::free_slot(a);  // a leak: no handle will free it
      }
    }
  }
  // The references go back outside the lock (releasing one may free memory
  // and run a from_blob deleter, which may make or dispose aliases).
  for (TensorImpl* p : refs) ImplRef(kAdopt, p).reset();
  return static_cast<int64_t>(refs.size());
}

}  // namespace testing
}  // namespace custody::dispose
