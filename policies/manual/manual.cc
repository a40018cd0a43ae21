// Copyright 2026 The custody Authors.

#include "policies/manual/manual.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/sites.h"

namespace custody::manual {
namespace internal {
namespace {

// Slots are allocated this many at a time and never given back.
constexpr size_t kChunkSlots = 256;

// Note [Ledger invariants]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Under `mu`: a slot is either live (on the circular `live` list, count >= 1,
// live_serial == serial, impl owns one TensorImpl reference) or free (in the
// FIFO queue free_head..free_tail, count == 0, live_serial == 0, impl null,
// keeping the sites of the entry that last lived in it). `live_count` is the
// length of the live list. TensorImpl references are dropped outside `mu`
// (dropping one may free memory and run a from_blob deleter, which may create
// or free other tensors).
struct Ledger {
  absl::Mutex mu;
  Slot live;  // sentinel of the circular live list
  Slot* free_head ABSL_GUARDED_BY(mu) = nullptr;
  Slot* free_tail ABSL_GUARDED_BY(mu) = nullptr;
  size_t free_count ABSL_GUARDED_BY(mu) = 0;
  std::vector<std::unique_ptr<Slot[]>> chunks ABSL_GUARDED_BY(mu);
  uint64_t next_serial ABSL_GUARDED_BY(mu) = 1;  // 0 means "no entry"
  int64_t live_count ABSL_GUARDED_BY(mu) = 0;
  Ledger() { live.prev = live.next = &live; }
};

Ledger& ledger() {
  static Ledger* l = new Ledger;  // immortal: handles may outlive static destruction
  return *l;
}

uint64_t this_thread_id() {
  static std::atomic<uint64_t> next{1};
  thread_local const uint64_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void push_free(Ledger& l, Slot* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(l.mu) {
  s->next = nullptr;
  s->prev = nullptr;
  if (l.free_tail != nullptr) {
    l.free_tail->next = s;
  } else {
    l.free_head = s;
  }
  l.free_tail = s;
  ++l.free_count;
}

Slot* pop_free(Ledger& l) ABSL_EXCLUSIVE_LOCKS_REQUIRED(l.mu) {
  if (l.free_head == nullptr) {
    // May throw std::bad_alloc: the caller has changed nothing yet.
    l.chunks.push_back(std::make_unique<Slot[]>(kChunkSlots));
    Slot* chunk = l.chunks.back().get();
    for (size_t i = 0; i < kChunkSlots; ++i) push_free(l, &chunk[i]);
  }
  Slot* s = l.free_head;
  l.free_head = s->next;
  if (l.free_head == nullptr) l.free_tail = nullptr;
  --l.free_count;
  s->next = nullptr;
  return s;
}

void link_live(Ledger& l, Slot* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(l.mu) {
  s->next = &l.live;
  s->prev = l.live.prev;
  l.live.prev->next = s;
  l.live.prev = s;
  ++l.live_count;
}

void unlink_live(Ledger& l, Slot* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(l.mu) {
  s->prev->next = s->next;
  s->next->prev = s->prev;
  s->prev = s->next = nullptr;
  --l.live_count;
}

// Ends the entry in live slot `s`: moves its TensorImpl reference into `out`
// (dropped by the caller outside the lock) and queues the slot for reuse.
void retire(Ledger& l, Slot* s, sites::Site freed_at, ImplRef* out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(l.mu) {
  s->live_serial.store(0, std::memory_order_release);
  *out = ImplRef(kAdopt, s->impl.exchange(nullptr, std::memory_order_relaxed));
  s->dtype = (*out)->scalar_type();
  s->sizes.assign((*out)->sizes().begin(), (*out)->sizes().end());
  s->count = 0;
  s->freed_at = std::move(freed_at);
  s->retained_at.clear();
  unlink_live(l, s);
  push_free(l, s);
}

constexpr char kRule[] =
    "Every +1 reference (an op result, a new_* result or retain(t)) takes exactly one free";

// The LifetimeError for an entry that is no longer live: the text and the
// sites are taken under the ledger lock, the sites are symbolized (slow) after
// it is released, by message().
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

// The message for `id` when its entry is no longer live. `past_zero` selects the
// wording of a free/release past zero; otherwise it is a use after free by `op`.
Unusable unusable(Ledger& l, const EntryId& id, const char* op, bool past_zero)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(l.mu) {
  const Slot* s = id.slot;
  Unusable u;
  std::string& msg = u.msg;
  if (past_zero) {
    msg = absl::StrFormat("%s: free past zero on tensor reference #%d", op, id.serial);
  } else {
    msg = absl::StrFormat("%s: tensor reference #%d is used after it was freed", op, id.serial);
  }
  if (s->serial == id.serial) {
    absl::StrAppendFormat(&msg, " (%s %s); its refcount already reached zero. ",
                          dtype_name(s->dtype), shape_str(s->sizes));
  } else {
    absl::StrAppendFormat(
        &msg,
        "; its refcount reached zero earlier and its ledger slot has since been reused (by "
        "reference #%d), so its creation and free sites are no longer known. ",
        s->serial);
  }
  if (past_zero) {
    absl::StrAppend(&msg, kRule,
                    ": drop this extra free, or retain(t) where a second owner was meant");
  } else {
    absl::StrAppend(&msg,
                    "Free a reference only after its last use, and retain(t) when another owner "
                    "keeps the tensor");
  }
  if (s->serial == id.serial) {
    u.with_sites = true;
    u.freed_label = past_zero ? "freed earlier at" : "freed at";
    u.created_at = s->created_at;
    u.freed_at = s->freed_at;
  }
  return u;
}

[[noreturn]] void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this handle refers to no tensor (default-constructed); assign it an op's result first",
      op));
}

}  // namespace

EntryId new_entry(ImplRef ref) {
  sites::Site site = sites::capture();  // raw frames: symbolized only when reported
  Ledger& l = ledger();
  absl::MutexLock lock(&l.mu);
  Slot* s = pop_free(l);  // the only call that may throw; `ref` is then dropped by unwinding
  s->serial = l.next_serial++;
  s->count = 1;
  s->thread = this_thread_id();
  s->created_at = std::move(site);
  s->freed_at = sites::Site();
  s->retained_at.clear();
  s->sizes.clear();
  s->impl.store(ref.leak(), std::memory_order_relaxed);
  link_live(l, s);
  s->live_serial.store(s->serial, std::memory_order_release);  // publishes impl
  return EntryId{s, s->serial};
}

void retain_entry(const EntryId& id, const char* op) {
  if (id.slot == nullptr) throw_null(op);
  sites::Site site = sites::capture();
  Ledger& l = ledger();
  Unusable error;
  {
    absl::MutexLock lock(&l.mu);
    Slot* s = id.slot;
    if (s->live_serial.load(std::memory_order_relaxed) == id.serial) {
      ++s->count;
      if (!site.empty()) s->retained_at.push_back(std::move(site));
      return;
    }
    error = unusable(l, id, op, /*past_zero=*/false);
  }
  throw LifetimeError(error.message());
}

void free_entry(const EntryId& id, const char* op) {
  if (id.slot == nullptr) return;  // as THTensor_(free)(NULL)
  sites::Site site = sites::capture();
  Ledger& l = ledger();
  ImplRef dropped;  // declared before the lock: released after it
  Unusable error;
  {
    absl::MutexLock lock(&l.mu);
    Slot* s = id.slot;
    if (s->live_serial.load(std::memory_order_relaxed) == id.serial) {
      if (--s->count > 0) {
        // One outstanding retain fewer (which one is unknowable; drop the latest).
        if (s->retained_at.size() >= static_cast<size_t>(s->count)) s->retained_at.pop_back();
      } else {
        retire(l, s, std::move(site), &dropped);
      }
      return;
    }
    error = unusable(l, id, op, /*past_zero=*/true);
  }
  throw LifetimeError(error.message());
}

int64_t refcount(const EntryId& id) {
  if (id.slot == nullptr) return 0;
  Ledger& l = ledger();
  absl::MutexLock lock(&l.mu);
  return id.slot->live_serial.load(std::memory_order_relaxed) == id.serial ? id.slot->count : 0;
}

void throw_unusable(const EntryId& id, const char* op) {
  if (id.slot == nullptr) throw_null(op);
  Ledger& l = ledger();
  Unusable error;
  {
    absl::MutexLock lock(&l.mu);
    error = unusable(l, id, op, /*past_zero=*/false);
  }
  throw LifetimeError(error.message());
}

}  // namespace internal

std::vector<UnfreedReference> leak_report() {
  std::vector<UnfreedReference> out;
  std::vector<sites::Site> created;                 // out[i]'s sites, symbolized
  std::vector<std::vector<sites::Site>> retained;   // after the lock is released
  {
    internal::Ledger& l = internal::ledger();
    absl::MutexLock lock(&l.mu);
    out.reserve(static_cast<size_t>(l.live_count));
    created.reserve(static_cast<size_t>(l.live_count));
    retained.reserve(static_cast<size_t>(l.live_count));
    for (const internal::Slot* s = l.live.next; s != &l.live; s = s->next) {
      const TensorImpl* t = s->impl.load(std::memory_order_relaxed);
      out.push_back(UnfreedReference{s->serial, std::string(dtype_name(t->scalar_type())),
                                     std::vector<int64_t>(t->sizes().begin(), t->sizes().end()),
                                     s->count, std::string(), {}});
      created.push_back(s->created_at);
      retained.push_back(s->retained_at);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].site = created[i].to_string();
    for (const sites::Site& site : retained[i]) out[i].retained_at.push_back(site.to_string());
  }
  return out;
}

std::string leak_report_string() {
  std::string out;
  for (const UnfreedReference& r : leak_report()) {
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
  internal::Ledger& l = internal::ledger();
  absl::MutexLock lock(&l.mu);
  return l.live_count;
}

namespace testing {

uint64_t next_reference_id() {
  internal::Ledger& l = internal::ledger();
  absl::MutexLock lock(&l.mu);
  return l.next_serial;
}

void free_created_on_this_thread_since(uint64_t since) {
  const uint64_t me = internal::this_thread_id();
  sites::Site site = sites::capture();
  std::vector<ImplRef> dropped;
  internal::Ledger& l = internal::ledger();
  {
    absl::MutexLock lock(&l.mu);
    dropped.reserve(static_cast<size_t>(l.live_count));  // no allocation once retiring
    for (internal::Slot* s = l.live.next; s != &l.live;) {
      internal::Slot* next = s->next;
      if (s->thread == me && s->serial >= since) {
        dropped.emplace_back();
        internal::retire(l, s, site, &dropped.back());
      }
      s = next;
    }
  }
  dropped.clear();  // outside the lock (Note [Ledger invariants])
}

size_t ledger_slots() {
  internal::Ledger& l = internal::ledger();
  absl::MutexLock lock(&l.mu);
  return l.chunks.size() * internal::kChunkSlots;
}

size_t ledger_free_slots() {
  internal::Ledger& l = internal::ledger();
  absl::MutexLock lock(&l.mu);
  return l.free_count;
}

}  // namespace testing
}  // namespace custody::manual
