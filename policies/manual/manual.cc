// Copyright 2026 The custody Authors.

#include "policies/manual/manual.h"

#include <new>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/reclaim.h"
#include "core/sites.h"
#include "core/stats.h"
#include "policies/internal/per_thread.h"
#include "policies/internal/slab_registry.h"

namespace custody::manual {
namespace internal {

// Slots are allocated this many at a time and never given back.
constexpr size_t kChunkSlots = 64;
// A refill that finds fewer freed slots than this also adds a chunk, so a
// thread that keeps its chunks nearly full does not refill every few slots.
constexpr size_t kMinBatch = 32;
constexpr uint64_t kCountMask = 0xffffffffu;

// Note [Counts and tags]: the count word's tag for `serial`.
constexpr uint64_t tag_of(uint64_t serial) { return serial << 32; }

// Note [Ledger slabs]
// ~~~~~~~~~~~~~~~~~~~
// Each thread that makes references has a Registry of kChunkSlots-slot slabs,
// "chunks" (Note [Slab registries], policies/internal/slab_registry.h), and
// three queues of free slots:
//  * `ready`: slots the owner thread fills, without a lock;
//  * `retired`: slots freed on the owner thread, oldest first (owner only);
//  * `freed_elsewhere`: slots freed on other threads (Note [MPSC stack]).
// A free puts the slot on one of the last two, with no lock. When `ready`
// runs dry the owner *refills*: it splices both retired queues into `ready`
// (so a freed slot is reused only after every slot that was already
// waiting), and if that gives fewer than kMinBatch slots it adds a chunk
// (under `mu`) behind them. Each refill is a *round*: `rounds` counts them.
//
// Why neither the fast paths nor a refill lock against readers of a slot's
// fields (LifetimeError messages, leak_report(), retain-site bookkeeping): the
// non-atomic fields change in two places.
//  (1) The thread whose free takes the count to zero records the owner's
//      round in `freed_in_round` and writes `freed_at`, then sets kFreedBit
//      in `live_serial` (release). A reader of those fields first sees
//      `live_serial` != its serial (acquire); if the count is 0 but
//      `live_serial` still is the entry's serial, a free on another thread is
//      retiring it, and the reader waits for that to finish.
//  (2) The owner writes a slot's fields — sites, dtype, sizes, thread — only
//      when it fills the slot, after a refill spliced it into `ready`.
// A reader holds `mu` (readers take turns) and is counted in `readers`; it
// registers (seq_cst RMW), then loads `rounds` (seq_cst). A refill splices,
// then bumps `rounds` (seq_cst RMW), then loads `readers` (seq_cst), and if a
// reader is there, waits for it (takes `mu`) before the owner fills anything.
// In the single total order of these seq_cst operations either the reader
// registered first — then the refill waits, and nothing the reader looks at is
// refilled while it looks — or the bump came first and the reader sees it. A
// reader reads a *freed* entry's fields only if `live_serial` still names the
// entry and `freed_in_round` equals the `rounds` it loaded: the free read
// `rounds` before the push that queued the slot, which happens before the
// splice, which comes before the bump, so a slot that any refill has spliced
// has `freed_in_round` below what the reader loaded. (So a slot is reported
// as reused once a refill has run since its free — sometimes before it
// actually is, never after.) A *live* slot's fields do not change until the
// slot is freed and spliced by a later refill, which will wait for the reader.
// Live slots' dtype and sizes are recorded when the slot is filled, so
// leak_report() never touches a TensorImpl that a concurrent free may be
// releasing. `retained_at` is changed by readers while the entry is live, and
// cleared by the owner when it refills the slot.
//
// Counting: live_references() and the slot counts scan the slabs (a slot is
// live iff `live_serial` is a serial without kFreedBit); nothing is counted
// on the fast paths. When a thread exits its registry becomes an orphan,
// adopted by the next thread that needs one (Note [Registries and thread
// exit]).
struct Registry : policy_internal::SlabRegistry<Slot, kChunkSlots, SlotQueues> {
  std::atomic<int> readers{0};  // Note [Ledger slabs]; changed under `mu`
  Slot* ready = nullptr;        // owner thread only
};

constinit thread_local SlotQueues* tl_queues = nullptr;

// The registry of slot `s`.
inline Registry* owner_of(const Slot* s) { return static_cast<Registry*>(s->owner); }

// A reader of slot fields in `r` (Note [Ledger slabs]): holds `mu`, counted in
// `readers`.
class Reading {
 public:
  explicit Reading(Registry* r) ABSL_EXCLUSIVE_LOCK_FUNCTION(r->mu) : r_(r), lock_(&r->mu) {
    r_->readers.fetch_add(1, std::memory_order_seq_cst);
  }
  ~Reading() ABSL_UNLOCK_FUNCTION() { r_->readers.fetch_sub(1, std::memory_order_release); }
  Reading(const Reading&) = delete;
  Reading& operator=(const Reading&) = delete;

 private:
  Registry* r_;
  absl::MutexLock lock_;
};

namespace {

void set_fast(Registry* r) { tl_queues = r; }
// The registries: every one made, the calling thread's (Note [Thread
// registries], policies/internal/per_thread.h); and the entry serials, from 1
// (0 means "no entry").
using Slabs = policy_internal::SlabRegistries<Registry, set_fast, /*kFirstSerial=*/1>;

// `ready` is empty: splices the retired queues in, and a chunk behind them if
// they hold fewer than kMinBatch slots (Note [Ledger slabs]).
[[gnu::noinline]] Slot* refill(Registry& r) {
  Slot* remote = r.freed_elsewhere.take_all();
  Slot* head = r.retired_head;
  Slot* tail = r.retired_tail;
  size_t n = r.retired_count;
  r.retired_head = r.retired_tail = nullptr;
  r.retired_count = 0;
  if (tail != nullptr) {
    tail->next = remote;
  } else {
    head = remote;
  }
  // Counts the remote ones only as far as kMinBatch (a walk of at most that).
  for (Slot* s = remote; s != nullptr && n < kMinBatch; s = s->next) {
    tail = s;
    ++n;
  }
  r.rounds.fetch_add(1, std::memory_order_seq_cst);
  if (r.readers.load(std::memory_order_seq_cst) != 0) {
    absl::MutexLock wait_for_the_reader(&r.mu);
  }
  if (n < kMinBatch) {  // then `tail` is the last slot of the batch, if any
    try {
      Slot* chunk = r.add_slab();
      if (tail != nullptr) {
        tail->next = chunk;
      } else {
        head = chunk;
      }
    } catch (const std::bad_alloc&) {
      if (head == nullptr) throw;  // nothing to hand out
    }
  }
  return head;
}

inline Slot* take_slot(Registry& r) { return Slabs::take_slot<&Registry::ready, refill>(r); }

[[gnu::noinline]] void capture_created(Slot* s) {
  s->created_at = sites::capture();
  s->has_sites = true;
}
[[gnu::noinline]] void capture_freed(Slot* s) {
  s->freed_at = sites::capture();
  s->has_sites = true;
}

[[gnu::always_inline]] inline EntryId fill(Registry& r, ImplRef& ref) {
  Slot* s = take_slot(r);  // may throw; `ref` is then dropped by unwinding
  const TensorImpl* t = ref.get();
  const IntSpan sizes = t->sizes();
  if (s->sizes.size() == sizes.size()) [[likely]] {
    int64_t* out = s->sizes.data();
    for (size_t i = 0; i < sizes.size(); ++i) out[i] = sizes[i];  // (std::copy calls memmove)
  } else {
    try {
      s->sizes.assign(sizes.begin(), sizes.end());  // allocates past 6 dims
    } catch (...) {
      s->next = r.ready;  // gives the slot back untouched
      r.ready = s;
      throw;
    }
  }
  s->dtype = t->scalar_type();
  const uint64_t serial = Slabs::new_serial();
  s->thread = policy_internal::this_thread_number();
  if (s->has_sites) [[unlikely]] {
    s->created_at = {};
    s->freed_at = {};
    s->has_sites = false;
  }
  if (sites::tracking()) [[unlikely]] capture_created(s);
  if (s->retained_sites.load(std::memory_order_relaxed) != 0) [[unlikely]] {
    s->retained_at.clear();  // no reader looks at a slot being refilled
    s->retained_sites.store(0, std::memory_order_relaxed);
  }
  s->count.store(tag_of(serial) | 1, std::memory_order_relaxed);
  s->impl.store(ref.leak(), std::memory_order_relaxed);
  s->live_serial.store(serial, std::memory_order_release);  // publishes the fields above
  return EntryId{s, serial};
}

// A thread_local destructor is making a reference after the thread gave its
// registry up: borrow an orphan (or a new registry) for this one slot.
[[gnu::noinline]] EntryId new_entry_on_exiting_thread(ImplRef& ref) {
  return Slabs::with_borrowed_registry([&ref](Registry& r) { return fill(r, ref); });
}

// Ends the entry in `s`, whose count the caller took to zero: publishes the
// free and returns the entry's TensorImpl reference for the caller to drop
// (outside any lock: dropping it may free memory and run a from_blob deleter,
// which may create or free other tensors). The caller has written `freed_at`
// if it wants one, and then queues the slot for reuse.
[[gnu::always_inline]] inline TensorImpl* end_entry(Slot* s, uint64_t serial) {
  TensorImpl* impl = s->impl.load(std::memory_order_relaxed);
  s->freed_in_round.store(s->owner->rounds.load(std::memory_order_relaxed),
                          std::memory_order_relaxed);
  // After `freed_at` and `freed_in_round`.
  s->live_serial.store(serial | kFreedBit, std::memory_order_release);
  return impl;
}

// Puts the slot of an ended entry behind the others waiting for reuse.
[[gnu::always_inline]] inline void queue_for_reuse(Slot* s) {
  Registry* me = Slabs::current();
  if (s->owner == me) {
    if (me->retired_tail != nullptr) {  // (the tail's `next` is set when a refill splices)
      me->retired_tail->next = s;
    } else {
      me->retired_head = s;
    }
    me->retired_tail = s;
    ++me->retired_count;
  } else {
    // Release: everything we did with the slot happens before its reuse.
    owner_of(s)->freed_elsewhere.push(s);
  }
}

constexpr char kRule[] =
    "Every +1 reference (an op result, a new_* result or retain(t)) takes exactly one free";

// The LifetimeError for an entry that is no longer live: the text and the
// sites are taken under the owner's lock, the sites are symbolized (slow)
// after it is released, by message().
struct Unusable {
  std::string msg;
  bool with_sites = false;
  const char* freed_label = "";
  sites::Site created_at;
  sites::Site freed_at;

  std::string message() const {
    if (!with_sites) return msg;
    return absl::StrCat(msg, "\n", sites::describe("created at", created_at),
                        sites::describe(freed_label, freed_at));
  }
};

// The error for `id`, whose entry is not live. `past_zero` selects the wording
// of a free/release past zero; otherwise it is a use after free by `op`.
Unusable unusable(const EntryId& id, const char* op, bool past_zero)
     {
  Slot* s = id.slot;
  // The entry living in the slot, or the last one that did.
  const uint64_t current = s->live_serial.load(std::memory_order_acquire) & ~kFreedBit;
  bool same_entry = current == id.serial;
  if (same_entry) {
    // If the count is 0 but `live_serial` still names the entry, a free on
    // another thread is retiring it: wait for that (Note [Ledger slabs]).
    const uint64_t tag = tag_of(id.serial);
    bool live = false;
    while (s->live_serial.load(std::memory_order_acquire) == id.serial) {
      const uint64_t w = s->count.load(std::memory_order_relaxed);
      if ((w & ~kCountMask) == tag && (w & kCountMask) != 0) {  // live: a racing caller
        live = true;
        break;
      }
      std::this_thread::yield();
    }
    // A freed entry's fields are still its own unless a refill ran since.
    same_entry = live || s->freed_in_round.load(std::memory_order_relaxed) ==
                             s->owner->rounds.load(std::memory_order_seq_cst);
  }
  Unusable u;
  std::string& msg = u.msg;
  if (past_zero) {
    msg = absl::StrFormat("%s: free past zero on tensor reference #%d", op, id.serial);
  } else {
    msg = absl::StrFormat("%s: tensor reference #%d is used after it was freed", op, id.serial);
  }
  if (same_entry) {
    absl::StrAppendFormat(&msg, " (%s %s); its refcount already reached zero. ",
                          dtype_name(s->dtype), shape_str(s->sizes));
  } else if (current == id.serial) {  // queued for reuse
    absl::StrAppend(&msg,
                    "; its refcount reached zero earlier and its ledger slot has since been "
                    "reused, so its creation and free sites are no longer known. ");
  } else {
    absl::StrAppendFormat(
        &msg,
        "; its refcount reached zero earlier and its ledger slot has since been reused (by "
        "reference #%d), so its creation and free sites are no longer known. ",
        current);
  }
  if (past_zero) {
    absl::StrAppend(&msg, kRule,
                    ": drop this extra free, or retain(t) where a second owner was meant");
  } else {
    absl::StrAppend(&msg,
                    "Free a reference only after its last use, and retain(t) when another owner "
                    "keeps the tensor");
  }
  if (same_entry) {
    u.with_sites = true;
    u.freed_label = past_zero ? "freed earlier at" : "freed at";
    u.created_at = s->created_at;
    u.freed_at = s->freed_at;
  }
  return u;
}

[[noreturn, gnu::noinline]] void throw_unusable_message(const EntryId& id, const char* op,
                                                        bool past_zero) {
  Unusable error;
  {
    Reading reading(owner_of(id.slot));
    error = unusable(id, op, past_zero);
  }
  throw LifetimeError(error.message());
}

[[noreturn]] void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this handle refers to no tensor (default-constructed); assign it an op's result first",
      op));
}

// A retain of a live entry, with tracking on: remembers where.
[[gnu::noinline]] void remember_retain_site(const EntryId& id) {
  sites::Site site = sites::capture();
  if (site.empty()) return;
  Slot* s = id.slot;
  Reading reading(owner_of(s));
  if (s->live_serial.load(std::memory_order_acquire) != id.serial) return;  // freed meanwhile
  s->retained_at.push_back(std::move(site));
  s->retained_sites.store(static_cast<uint32_t>(s->retained_at.size()), std::memory_order_relaxed);
}

// A free that left `remaining` counts: one outstanding retain fewer (which one
// is unknowable; drop the latest).
[[gnu::noinline]] void forget_a_retain_site(const EntryId& id, uint64_t remaining) {
  Slot* s = id.slot;
  Reading reading(owner_of(s));
  if (s->live_serial.load(std::memory_order_acquire) != id.serial) return;  // freed meanwhile
  if (s->retained_at.size() >= remaining && !s->retained_at.empty()) s->retained_at.pop_back();
  s->retained_sites.store(static_cast<uint32_t>(s->retained_at.size()), std::memory_order_relaxed);
}

[[gnu::noinline]] EntryId new_entry_slow(ImplRef& ref) {
  if (Registry* r = Slabs::mine()) [[likely]] return fill(*r, ref);
  return new_entry_on_exiting_thread(ref);
}

}  // namespace

// What fill() does, with everything unusual (no registry or ready slot yet,
// sites to clear or record, another rank than the slot's last tenant, a new
// serial block) left to new_entry_slow(): a straight line of stores.
EntryId new_entry(ImplRef ref) {
  custody::internal::maybe_fail_metadata("a manual ledger slot");  // Note [Allocation-failure injection]
  if (Registry* r = Slabs::current()) [[likely]] {
    Slot* s = r->ready;
    const TensorImpl* t = ref.get();
    const IntSpan sizes = t->sizes();
    uint64_t serial;
    if (s != nullptr && !s->has_sites && s->retained_sites.load(std::memory_order_relaxed) == 0 &&
        s->sizes.size() == sizes.size() && !sites::tracking() &&
        Slabs::try_new_serial(&serial)) [[likely]] {
      r->ready = s->next;
      // Slots are mostly refilled by the same thread with similar tensors:
      // store only what changed (fewer stores for the RMWs to wait for).
      int64_t* out = s->sizes.data();
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (out[i] != sizes[i]) out[i] = sizes[i];
      }
      if (s->dtype != t->scalar_type()) s->dtype = t->scalar_type();
      if (const uint64_t me = policy_internal::this_thread_number(); s->thread != me) s->thread = me;
      s->count.store(tag_of(serial) | 1, std::memory_order_relaxed);
      s->impl.store(ref.leak(), std::memory_order_relaxed);
      s->live_serial.store(serial, std::memory_order_release);  // publishes the fields above
      return EntryId{s, serial};
    }
  }
  return new_entry_slow(ref);
}

void retain_entry(const EntryId& id, const char* op) {
  if (id.slot == nullptr) throw_null(op);
  Slot* s = id.slot;
  if (s->live_serial.load(std::memory_order_acquire) != id.serial) [[unlikely]] {
    throw_unusable_message(id, op, /*past_zero=*/false);
  }
  const uint64_t tag = tag_of(id.serial);
  uint64_t w = s->count.load(std::memory_order_relaxed);
  do {
    if ((w & ~kCountMask) != tag || (w & kCountMask) == 0) [[unlikely]] {
      throw_unusable_message(id, op, /*past_zero=*/false);
    }
    if ((w & kCountMask) == kCountMask) [[unlikely]] {
      throw LifetimeError(absl::StrFormat(
          "%s: tensor reference #%d already has 2^32 - 1 outstanding counts", op, id.serial));
    }
  } while (!s->count.compare_exchange_weak(w, w + 1, std::memory_order_relaxed,
                                           std::memory_order_relaxed));
  if (sites::tracking()) [[unlikely]] remember_retain_site(id);
}

void free_entry_slow(const EntryId& id, const char* op) {
  if (id.slot == nullptr) return;
  Slot* s = id.slot;
  if (s->live_serial.load(std::memory_order_acquire) != id.serial) [[unlikely]] {
    throw_unusable_message(id, op, /*past_zero=*/true);
  }
  const uint64_t tag = tag_of(id.serial);
  uint64_t w = s->count.load(std::memory_order_relaxed);
  do {
    if ((w & ~kCountMask) != tag || (w & kCountMask) == 0) [[unlikely]] {
      throw_unusable_message(id, op, /*past_zero=*/true);
    }
  } while (!s->count.compare_exchange_weak(w, w - 1, std::memory_order_acq_rel,
                                           std::memory_order_relaxed));
  const uint64_t remaining = (w & kCountMask) - 1;
  if (remaining == 0) [[likely]] {
    if (sites::tracking()) [[unlikely]] capture_freed(s);
    // The reference goes first: fewer stores wait for its atomic decrement.
    {
      const HeldBy held("the reference", &s->created_at);  // Note [Held by], core/stats.h
      ImplRef(kAdopt, end_entry(s, id.serial)).reset();
    }
    queue_for_reuse(s);
    return;
  }
  if (s->retained_sites.load(std::memory_order_relaxed) != 0) forget_a_retain_site(id, remaining);
}

int64_t refcount(const EntryId& id) {
  if (id.slot == nullptr) return 0;
  const Slot* s = id.slot;
  if (s->live_serial.load(std::memory_order_acquire) != id.serial) return 0;
  const uint64_t w = s->count.load(std::memory_order_acquire);
  if ((w & ~kCountMask) != tag_of(id.serial)) return 0;
  return static_cast<int64_t>(w & kCountMask);
}

void throw_unusable(const EntryId& id, const char* op) {
  if (id.slot == nullptr) throw_null(op);
  throw_unusable_message(id, op, /*past_zero=*/false);
}

}  // namespace internal

std::vector<LeakedReference> leak_report() {
  struct Unfreed {
    LeakedReference report;
    sites::Site created_at;
    std::vector<sites::Site> retained_at;
  };
  return internal::Slabs::report<Unfreed, internal::Reading>(
      [](const internal::Slot& s, std::vector<Unfreed>& unfreed) {
        const uint64_t id = s.live_serial.load(std::memory_order_acquire);
        if (id == 0 || (id & internal::kFreedBit)) return;
        const uint64_t w = s.count.load(std::memory_order_relaxed);
        const uint64_t count = w & internal::kCountMask;
        // A count of 0 (or another tag): being freed.
        if ((w & ~internal::kCountMask) != internal::tag_of(id) || count == 0) return;
        // Fields recorded when the slot was filled; it cannot be refilled while
        // we are a reader of its registry (Note [Ledger slabs]).
        unfreed.push_back(
            Unfreed{LeakedReference{id, std::string(dtype_name(s.dtype)),
                                    std::vector<int64_t>(s.sizes.begin(), s.sizes.end()),
                                    static_cast<int64_t>(count), std::string(), {}},
                    s.created_at, s.retained_at});
      },
      [](const Unfreed& u) { return u.report.id; },
      [](Unfreed& u) {
        // Symbolized outside the locks: it is the slow part (core/sites.h).
        u.report.site = u.created_at.to_string();
        for (const sites::Site& site : u.retained_at) {
          u.report.retained_at.push_back(site.to_string());
        }
        return std::move(u.report);
      });
}

std::string leak_report_string() {
  std::string out;
  for (const LeakedReference& r : leak_report()) {
    absl::StrAppendFormat(&out, "unfreed reference #%d: %s %s, refcount %d\n", r.id, r.dtype,
                          shape_str(r.sizes), r.refcount);
    absl::StrAppend(&out, sites::describe("created at", r.site));
    for (const std::string& site : r.retained_at) {
      absl::StrAppend(&out, sites::describe("retained at", site));
    }
  }
  return out;
}

int64_t live_references() {
  return internal::Slabs::count<internal::Reading>([](const internal::Slot& s) {
    const uint64_t id = s.live_serial.load(std::memory_order_relaxed);
    return id != 0 && !(id & internal::kFreedBit);
  });
}

namespace testing {

uint64_t next_serial() { return internal::Slabs::next_serial(); }

int64_t release_created_on_this_thread_since(uint64_t since) {
  using internal::Slot;
  // This thread made no reference (or is exiting): no site to capture.
  if (internal::Slabs::current() == nullptr) return 0;
  const sites::Site site = sites::capture();
  return internal::Slabs::release_created_on_this_thread(
      [&site, since](Slot& s, uint64_t me) -> TensorImpl* {
        const uint64_t id = s.live_serial.load(std::memory_order_acquire);
        if (id & internal::kFreedBit) return nullptr;
        // A live slot of our registry: its fields are ours to read (Note
        // [Slab registries], policies/internal/slab_registry.h).
        if (id == 0 || id < since || s.thread != me) return nullptr;
        // Takes the count to zero, whatever it is, unless a free on another
        // thread gets there first.
        const uint64_t tag = internal::tag_of(id);
        uint64_t w = s.count.load(std::memory_order_relaxed);
        bool ours = false;
        while ((w & ~internal::kCountMask) == tag && (w & internal::kCountMask) != 0) {
          if (s.count.compare_exchange_weak(w, tag, std::memory_order_acq_rel,
                                            std::memory_order_relaxed)) {
            ours = true;
            break;
          }
        }
        if (!ours) return nullptr;
        if (!site.empty()) {
          s.freed_at = site;
          s.has_sites = true;
        }
        TensorImpl* impl = internal::end_entry(&s, id);
        internal::queue_for_reuse(&s);
        return impl;
      });
}

size_t ledger_slots() { return internal::Slabs::slot_count(); }

size_t ledger_free_slots() {
  return static_cast<size_t>(internal::Slabs::count<internal::Reading>([](const internal::Slot& s) {
    const uint64_t id = s.live_serial.load(std::memory_order_relaxed);
    return id == 0 || (id & internal::kFreedBit);
  }));
}

}  // namespace testing
}  // namespace custody::manual
