// Copyright 2026 The custody Authors.

#include "policies/scope/scope.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/reclaim.h"
#include "core/shape.h"
#include "core/object_cache.h"
#include "core/sites.h"
#include "core/stats.h"
#include "policies/internal/intrusive_list.h"
#include "policies/internal/per_thread.h"

namespace custody::scope {
namespace internal {

struct ThreadState {
  uint64_t id = 0;              // unique for the process lifetime (never reused)
  ScopeState* innermost = nullptr;
  int64_t depth = 0;
  int allow_unscoped = -1;      // AllowUnscoped override: -1 none
  Statistics stats;
};

// One open scope and the entries registered in it, oldest first.
struct ScopeState {
  sites::Site opened_at;  // where it was opened, when tracking is on
  ThreadState* thread = nullptr;
  uint64_t thread_id = 0;
  ScopeState* outer = nullptr;  // the scope enclosing this one (towards the bottom of the stack)
  ScopeState* inner = nullptr;  // the scope opened inside this one, if any
  policy_internal::IntrusiveList<Entry, &Entry::prev, &Entry::next> entries;
};

namespace {

std::atomic<bool> g_allow_unscoped{false};
ThreadState& me() {
  thread_local ThreadState state = [] {
    ThreadState ts;
    ts.id = policy_internal::this_thread_number();
    return ts;
  }();
  return state;
}

bool unscoped_allowed(const ThreadState& ts) {
  return ts.allow_unscoped >= 0 ? ts.allow_unscoped == 1
                                : g_allow_unscoped.load(std::memory_order_relaxed);
}

void link(ScopeState* s, Entry* e) {
  e->scope = s;
  e->owner.store(s->thread_id, std::memory_order_release);
  s->entries.push_back(e);
}

void unlink(Entry* e) {
  e->scope->entries.erase(e);
  e->scope = nullptr;
  e->owner.store(0, std::memory_order_release);
}

// Entries are made and freed at op rate, and a scope ends with all of its
// entries freed at once, for the next scope (the next training step) to take
// back: the per-thread cache (core/object_cache.h) keeps up to 4096 of them
// (at most 4096 * 88 bytes per thread), so a scope of a few thousand tensors
// recycles its entries instead of going through malloc for most of them.
using EntryCache = ThreadObjectCache<Entry, 4096>;
using ShareCache = ThreadObjectCache<Share, 256>;

void destroy_entry(Entry* e) {
  e->~Entry();
  EntryCache::deallocate(e);
}

// The owning thread's side of Note [Lent references]: `e` no longer counts in
// its share; the share's reference comes back when `e` was its last entry.
ImplRef settle_share(Entry* e) {
  Share* sh = std::exchange(e->share, nullptr);
  if (sh == nullptr || --sh->lent > 0) return ImplRef();
  ImplRef r(kAdopt, sh->impl);
  sh->~Share();
  ShareCache::deallocate(sh);
  return r;
}

// What a taken reference word gives back: the entry's own reference, or
// nothing when it was lent (its share is settled by the owning thread).
ImplRef owned_part(uintptr_t held) {
  return (held & kLent) != 0 ? ImplRef() : ImplRef(kAdopt, impl_of(held));
}

// Drops one anchor; frees the entry when it was the last (Note [Entry lifetime]).
void drop_anchor(Entry* e) {
  if (e->anchors.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy_entry(e);
}

// Records why and where `e` was disposed (the site only when tracking: an
// empty Site is not assigned over an empty one on the hot paths).
void mark_disposed(Entry* e, DisposedBy why) {
  e->disposed_by = why;
  if (sites::tracking()) [[unlikely]] e->disposed_site = sites::capture_stack(0);
}

// Takes the reference word out of `e` (0 if someone disposed it first).
uintptr_t take_word(Entry* e, DisposedBy why) {
  const uintptr_t held = e->held.exchange(0, std::memory_order_acq_rel);
  if (held == 0) return 0;
  mark_disposed(e, why);
  return held;
}

// Takes the reference out of `e` on any thread; returns false if someone
// disposed it first. `out` receives what to give back (nothing for a lent
// entry: Note [Lent references]).
bool take(Entry* e, DisposedBy why, ImplRef* out) {
  const uintptr_t held = take_word(e, why);
  if (held == 0) return false;
  *out = owned_part(held);
  return true;
}

// Note [Scope owner fast paths]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As dispose's (policies/dispose/dispose.h, Note [Owner fast paths]): an
// entry's anchors are its handles and its registration, and a new anchor is
// only ever made from an existing one (copying a handle, attaching through
// one). So when every anchor the count shows belongs to the calling thread —
// the handle it is using (no thread may copy a handle object while its holder
// calls dispose() or destroys it) and, if registered, a registration in one
// of this thread's scopes (which only this thread changes) — no other thread
// can reach the entry, and a load and plain stores do what the exchange and
// the fetch_subs would:
//  * dispose() on the scope's thread with anchors == 2 (the handle and the
//    registration): the reference is taken by a load and a store, the anchor
//    dropped by a store;
//  * drop_handle() with anchors == 1 (the last handle, unregistered), or == 2
//    on the scope's thread while registered: the entry is freed, or the
//    anchor dropped by a store;
//  * a scope's end with anchors == 1 (no handle left): the reference is
//    taken and the entry freed with no RMW.
// The loads are acquire: an anchor another thread dropped (release) before
// happens before the entry is disposed or reused. Anything else takes the RMWs.
// alias() + dispose() on the owning thread then takes 2 locked instructions
// instead of 5 (the TensorImpl's retain and release), and none with lent
// references (Note [Lent references], scope.h); docs/decisions.md has the times.

// take_word() for an entry no other thread can reach (Note [Scope owner fast paths]).
uintptr_t take_word_sole(Entry* e, DisposedBy why) {
  const uintptr_t held = e->held.load(std::memory_order_relaxed);
  if (held == 0) return 0;
  e->held.store(0, std::memory_order_relaxed);
  mark_disposed(e, why);
  return held;
}

// take() on the thread owning `e`'s scope, which also settles its share (the
// entry's own, or one left by another thread's dispose()); `sole` when no
// other thread can reach it.
bool take_owned(Entry* e, DisposedBy why, bool sole, ImplRef* out) {
  const uintptr_t held = sole ? take_word_sole(e, why) : take_word(e, why);
  if (e->share != nullptr) {
    *out = settle_share(e);
  } else if (held != 0) {
    *out = ImplRef(kAdopt, impl_of(held));
  }
  return held != 0;
}

// An entry about to leave the owning thread's scopes unregistered takes a
// reference of its own, so that any thread may dispose it (Note [Lent references]).
void unlend(Entry* e) {
  if (e->share == nullptr) return;
  TensorImpl* impl = e->share->impl;
  impl->retain();
  uintptr_t held = reinterpret_cast<uintptr_t>(impl) | kLent;
  ImplRef undo;
  if (!e->held.compare_exchange_strong(held, held & ~kLent, std::memory_order_acq_rel)) {
    undo = ImplRef(kAdopt, impl);  // disposed meanwhile by another thread: no reference needed
  }
  ImplRef r = settle_share(e);
}

bool on_this_thread(const Entry* e) {
  return e->owner.load(std::memory_order_acquire) == me().id;
}

[[noreturn]] void throw_other_thread(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: the dispose scope involved belongs to another thread; scopes are per thread — "
      "detach_from_dispose_scope() on the owning thread, hand the tensor over, then attach it "
      "to a scope of this thread", op));
}

void check_thread(const ScopeState* s, const char* op) {
  if (s->thread_id != me().id) throw_other_thread(op);
}

// Empties `s` (or only what `keep` does not name), disposing what it held:
// first every reference is taken and every anchor dropped, then the
// references are given back, so code they run (a from_blob deleter) sees no
// half-ended scope (Note [Entry lifetime]).
void empty_scope(ScopeState* s, DisposedBy why,
                 const absl::flat_hash_set<const Entry*>* keep = nullptr) {
  std::vector<std::pair<ImplRef, CameIn>> refs;
  refs.reserve(static_cast<size_t>(s->entries.size()));  // may throw: nothing changed yet
  Statistics& st = me().stats;
  s->entries.for_each([&](Entry* e) {
    if (keep != nullptr && keep->contains(e)) return;
    unlink(e);
    // No handle left: only this registration reaches the entry (Note [Scope owner fast paths]).
    const bool sole = e->anchors.load(std::memory_order_acquire) == 1;
    ImplRef r;
    if (take_owned(e, why, sole, &r)) ++st.disposed_in_scope;
    if (r) refs.emplace_back(std::move(r), e->came_in);  // capacity reserved: cannot throw
    if (sole) {
      destroy_entry(e);
    } else {
      drop_anchor(e);
    }
  });
  // The references are given back, each said to be held by this scope (Note [Held by], core/stats.h).
  static constexpr const char* kHolder[] = {"the dispose scope", "the dispose scope it was moved into",
                                            "the dispose scope it was attached to"};
  for (auto& [r, came_in] : refs) {
    const HeldBy held(kHolder[static_cast<int>(came_in)], &s->opened_at, "opened at");
    r.reset();
  }
}

}  // namespace

Entry* new_entry(ImplRef ref) {
  custody::internal::maybe_fail_metadata("a scope entry");  // Note [Allocation-failure injection]
  ThreadState& ts = me();
  ScopeState* s = ts.innermost;
  if (s == nullptr && !unscoped_allowed(ts)) {
    throw LifetimeError(absl::StrFormat(
        "creating a %s tensor of shape %s with no dispose scope open on this thread: open one "
        "around the code (`auto scope = custody::scope::new_dispose_scope();` or "
        "custody::scope::with_rc_scope), or allow unscoped tensors with "
        "custody::scope::set_allow_unscoped(true)",
        dtype_name(ref->scalar_type()), shape_str(ref->sizes())));
  }
  // May throw: `ref` is given back by its destructor.
  auto* e = ::new (EntryCache::allocate()) Entry;
  if (sites::tracking()) [[unlikely]] e->site = sites::capture_stack(0);
  e->held.store(reinterpret_cast<uintptr_t>(ref.leak()), std::memory_order_release);
  if (s != nullptr) {
    e->anchors.store(2, std::memory_order_relaxed);
    link(s, e);
    ++ts.stats.created_in_scope;
  } else {
    ++ts.stats.created_outside_scope;
  }
  return e;
}

Entry* lend(Entry* source, const char* op) {
  ThreadState& ts = me();
  const uintptr_t held = source->held.load(std::memory_order_acquire);
  if (held == 0) throw_disposed(source, op);
  ScopeState* s = ts.innermost;
  if (s == nullptr || source->owner.load(std::memory_order_relaxed) != ts.id) {
    // Not both in this thread's scopes: a reference of its own.
    return new_entry(ImplRef::Retain(impl_of(held)));
  }
  custody::internal::maybe_fail_metadata("a scope entry");  // Note [Allocation-failure injection]
  auto* e = ::new (EntryCache::allocate()) Entry;  // may throw: nothing changed yet
  Share* sh = source->share;
  if (sh == nullptr) {
    // The source's reference becomes the share's.
    void* mem;
    try {
      mem = ShareCache::allocate();
    } catch (...) {
      destroy_entry(e);
      throw;
    }
    sh = ::new (mem) Share;
    sh->impl = impl_of(held);
    sh->lent = 1;
    const uintptr_t lent_word = held | kLent;
    if (source->anchors.load(std::memory_order_acquire) == 2) {
      // This handle and its registration: no other thread reaches the source
      // (Note [Scope owner fast paths]).
      source->held.store(lent_word, std::memory_order_relaxed);
    } else if (uintptr_t expected = held; !source->held.compare_exchange_strong(
                   expected, lent_word, std::memory_order_acq_rel)) {
      // Disposed by another thread since the load above.
      sh->~Share();
      ShareCache::deallocate(sh);
      destroy_entry(e);
      throw_disposed(source, op);
    }
    source->share = sh;
  }
  ++sh->lent;
  if (sites::tracking()) [[unlikely]] e->site = sites::capture_stack(0);
  e->share = sh;
  e->held.store(reinterpret_cast<uintptr_t>(sh->impl) | kLent, std::memory_order_relaxed);
  e->anchors.store(2, std::memory_order_relaxed);
  link(s, e);
  ++ts.stats.created_in_scope;
  return e;
}

int64_t references(const TensorImpl& impl) {
  int64_t n = impl.use_count();
  absl::flat_hash_set<const Share*> shares;
  for (ScopeState* s = me().innermost; s != nullptr; s = s->outer) {
    s->entries.for_each([&](Entry* e) {
      if (e->share == nullptr || e->share->impl != &impl) return;
      shares.insert(e->share);
      if (e->held.load(std::memory_order_acquire) != 0) ++n;
    });
  }
  return n - static_cast<int64_t>(shares.size());
}

void add_handle(Entry* e) { e->anchors.fetch_add(1, std::memory_order_relaxed); }

void drop_handle(Entry* e) {
  const int64_t n = e->anchors.load(std::memory_order_acquire);
  if (n == 2 && on_this_thread(e)) {  // this handle and this thread's registration
    e->anchors.store(1, std::memory_order_relaxed);  // Note [Scope owner fast paths]
    return;
  }
  // Unregistered entries are never lent (Note [Lent references]).
  if (n == 1) {  // the last anchor, unregistered (Note [Scope owner fast paths])
    if (e->held.load(std::memory_order_relaxed) == 0) return destroy_entry(e);  // disposed before
    const uintptr_t held = take_word_sole(e, DisposedBy::kLastHandle);
    ImplRef r = held != 0 ? owned_part(held) : ImplRef();
    if (held != 0) ++me().stats.disposed_outside_scope;
    destroy_entry(e);
    return;
  }
  if (e->anchors.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // Last anchor: not registered, no handle left. A detached tensor never
  // disposed is given back now (Note [Entry lifetime]).
  ImplRef r;
  if (take(e, DisposedBy::kLastHandle, &r)) ++me().stats.disposed_outside_scope;
  destroy_entry(e);
}

void dispose(Entry* e) {
  // Idempotent. (A lent entry another thread disposed keeps its share until
  // its scope ends: Note [Lent references].)
  const uintptr_t held = e->held.load(std::memory_order_acquire);
  if (held == 0) return;
  // What this gives back was held by this reference (Note [Held by], core/stats.h).
  const HeldBy held_by("the reference", &e->site);
  ThreadState& ts = me();
  Statistics& st = ts.stats;
  if (e->owner.load(std::memory_order_acquire) == ts.id) {
    // Registered in one of this thread's scopes: leave it now.
    if (e->anchors.load(std::memory_order_acquire) == 2) {  // Note [Scope owner fast paths]
      e->held.store(0, std::memory_order_relaxed);
      mark_disposed(e, DisposedBy::kDispose);
      ImplRef r = e->share != nullptr ? settle_share(e) : ImplRef(kAdopt, impl_of(held));
      ++st.disposed_in_scope;
      unlink(e);
      e->anchors.store(1, std::memory_order_relaxed);  // the caller's handle keeps the entry
      return;  // `r` goes here: the reference is given back
    }
    ImplRef r;
    if (!take_owned(e, DisposedBy::kDispose, /*sole=*/false, &r)) {
      return;  // another thread disposed it first; its share is settled at the scope's end
    }
    ++st.disposed_in_scope;
    unlink(e);
    drop_anchor(e);  // the caller's handle keeps the entry alive
    return;
  }
  // Detached, or registered on another thread (whose scope drops the empty
  // entry, and settles its share if it was lent).
  const bool registered = e->owner.load(std::memory_order_acquire) != 0;
  ImplRef r;
  if (!take(e, DisposedBy::kDispose, &r)) return;  // someone else disposed it first: counts once
  if (registered) {
    ++st.disposed_in_scope;
  } else {
    ++st.disposed_outside_scope;
  }
}

void move_to_outer(Entry* e) {
  if (e->owner.load(std::memory_order_acquire) == 0) return;  // already outside every scope
  if (!on_this_thread(e)) throw_other_thread("move_to_outer_dispose_scope");
  ScopeState* outer = e->scope->outer;
  unlink(e);
  if (outer != nullptr) {
    link(outer, e);
    e->came_in = CameIn::kMoved;
  } else {
    unlend(e);
    ++me().stats.detached_from_scope;
    drop_anchor(e);
  }
}

void detach(Entry* e) {
  if (e->owner.load(std::memory_order_acquire) == 0) return;
  if (!on_this_thread(e)) throw_other_thread("detach_from_dispose_scope");
  unlink(e);
  unlend(e);
  ++me().stats.detached_from_scope;
  drop_anchor(e);
}

void attach(ScopeState* s, Entry* e, const char* op) {
  if (s == nullptr) {
    throw LifetimeError(absl::StrFormat("%s: the dispose scope has ended; use an open scope", op));
  }
  check_thread(s, op);
  const uint64_t owner = e->owner.load(std::memory_order_acquire);
  if (owner != 0) {
    if (owner != me().id) throw_other_thread(op);
    if (e->scope == s) return;
    unlink(e);  // a move between two scopes of this thread
    e->came_in = CameIn::kMoved;
  } else {
    e->anchors.fetch_add(1, std::memory_order_relaxed);
    ++me().stats.attached_to_scope;
    e->came_in = CameIn::kAttached;
  }
  link(s, e);
}

void hand_out(ScopeState* inner, Entry* e, const char* op) {
  if (e->scope != inner) return;  // made outside this scope, or already moved
  if (inner->outer != nullptr) {
    unlink(e);
    link(inner->outer, e);
    e->came_in = CameIn::kMoved;
  } else if (unscoped_allowed(me())) {
    unlink(e);
    unlend(e);
    ++me().stats.detached_from_scope;
    drop_anchor(e);
  } else {
    throw LifetimeError(absl::StrFormat(
        "%s: no dispose scope encloses this call to receive the result; open one around it "
        "(custody::scope::new_dispose_scope()) or allow unscoped tensors with "
        "custody::scope::set_allow_unscoped(true)", op));
  }
}

void throw_disposed(const Entry* e, const char* op) {
  const char* why = "";
  switch (e->disposed_by) {
    case DisposedBy::kScopeEnd:
      why = "the dispose scope it was registered in has ended; to keep a tensor past its scope, "
            "move_to_outer_dispose_scope() or detach_from_dispose_scope() it before the scope "
            "ends, or return it with with_rc_scope_tensor";
      break;
    case DisposedBy::kDisposeEverything:
      why = "it was disposed by dispose_everything() of its scope; name it in "
            "dispose_everything_but(...) to keep it";
      break;
    case DisposedBy::kDispose:
      why = "it was disposed by dispose() / custody::release(); dispose only after the last use";
      break;
    case DisposedBy::kNotYet:
    case DisposedBy::kLastHandle:
      why = "it was disposed";
      break;
  }
  std::string msg = absl::StrFormat("%s: this tensor was disposed: %s\n", op, why);
  absl::StrAppend(&msg, sites::describe("created at", e->site));
  if (!e->disposed_site.empty()) {
    absl::StrAppend(&msg, sites::describe("disposed at", e->disposed_site));
  }
  throw LifetimeError(msg);
}

void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this handle refers to no tensor (default-constructed or moved from)", op));
}

ScopeState* state_of(const DisposeScope& s) { return s.state_; }

}  // namespace internal

DisposeScope::DisposeScope() : state_(new internal::ScopeState) {
  internal::ThreadState& ts = internal::me();
  if (sites::tracking()) [[unlikely]] state_->opened_at = sites::capture_stack(0);
  state_->thread = &ts;
  state_->thread_id = ts.id;
  state_->outer = ts.innermost;
  if (ts.innermost != nullptr) ts.innermost->inner = state_;
  ts.innermost = state_;
  ++ts.depth;
}

DisposeScope::~DisposeScope() {
  if (state_ != nullptr && state_->thread_id != internal::me().id) {
    // Only reachable by destroying a heap-allocated scope on another thread.
    // Touching the owner's scope stack from here would be a data race: leave
    // the scope open (its tensors stay registered) and say so.
    std::fprintf(stderr,
                 "custody::scope: a DisposeScope was destroyed on another thread than the one "
                 "that opened it; its %lld tensors were not disposed (end scopes on their own "
                 "thread)\n",
                 static_cast<long long>(state_->entries.size()));
    return;
  }
  end();
}

void DisposeScope::dispose() {
  if (state_ == nullptr) return;
  internal::check_thread(state_, "dispose_scope");
  end();
}

void DisposeScope::end() noexcept {
  internal::ScopeState* s = std::exchange(state_, nullptr);
  if (s == nullptr) return;
  // Unlink the scope from the thread's stack first (safe when closed out of
  // order), so that anything created while disposing (e.g. by a from_blob
  // deleter) lands in the enclosing scope.
  internal::ThreadState& ts = *s->thread;
  if (s->inner != nullptr) {
    s->inner->outer = s->outer;
  } else {
    ts.innermost = s->outer;
  }
  if (s->outer != nullptr) s->outer->inner = s->inner;
  --ts.depth;
  internal::empty_scope(s, internal::DisposedBy::kScopeEnd);  // bad_alloc here: terminate
  delete s;
}

void DisposeScope::dispose_everything() {
  internal::empty_scope(state_checked("dispose_everything"),
                        internal::DisposedBy::kDisposeEverything);
}

void DisposeScope::dispose_everything_but_entries(const internal::Entry* const* keep, size_t n) {
  internal::ScopeState* s = state_checked("dispose_everything_but");
  const absl::flat_hash_set<const internal::Entry*> kept(keep, keep + n);
  internal::empty_scope(s, internal::DisposedBy::kDisposeEverything, &kept);
}

internal::ScopeState* DisposeScope::state_checked(const char* op) const {
  if (state_ == nullptr) {
    throw LifetimeError(absl::StrFormat("%s: this dispose scope has ended", op));
  }
  internal::check_thread(state_, op);
  return state_;
}

int64_t DisposeScope::size() const { return state_ == nullptr ? 0 : state_->entries.size(); }

int64_t depth() { return internal::me().depth; }

void set_allow_unscoped(bool allow) { internal::g_allow_unscoped.store(allow); }
bool allow_unscoped() { return internal::unscoped_allowed(internal::me()); }

AllowUnscoped::AllowUnscoped(bool allow) : old_(internal::me().allow_unscoped) {
  internal::me().allow_unscoped = allow ? 1 : 0;
}
AllowUnscoped::~AllowUnscoped() { internal::me().allow_unscoped = old_; }

std::string Statistics::to_string() const {
  return absl::StrFormat(
      "scope statistics (this thread): created in scope %d, disposed in scope %d, created outside "
      "scope %d, disposed outside scope %d, attached %d, detached %d, live %d",
      created_in_scope, disposed_in_scope, created_outside_scope, disposed_outside_scope,
      attached_to_scope, detached_from_scope, live());
}

Statistics& thread_statistics() { return internal::me().stats; }

}  // namespace custody::scope
