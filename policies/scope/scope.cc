// Copyright 2026 The custody Authors.

#include "policies/scope/scope.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/sites.h"

namespace custody::scope {
namespace internal {

struct ThreadState {
  ScopeState* innermost = nullptr;
  int64_t depth = 0;
  Statistics stats;
};

// One open scope. Its entries form a circular list through `head`.
struct ScopeState {
  ThreadState* thread = nullptr;
  ScopeState* outer = nullptr;  // the scope enclosing this one (towards the bottom of the stack)
  ScopeState* inner = nullptr;  // the scope opened inside this one, if any
  Entry head;                   // sentinel
  int64_t count = 0;            // entries registered
  ScopeState() { head.prev = head.next = &head; }
};

namespace {

std::atomic<bool> g_allow_unscoped{false};

ThreadState& me() {
  thread_local ThreadState state;
  return state;
}

void link(ScopeState* s, Entry* e) {
  e->scope = s;
  e->next = &s->head;
  e->prev = s->head.prev;
  s->head.prev->next = e;
  s->head.prev = e;
  ++s->count;
}

void unlink(Entry* e) {
  e->prev->next = e->next;
  e->next->prev = e->prev;
  e->prev = e->next = nullptr;
  --e->scope->count;
  e->scope = nullptr;
}

// Drops one anchor; frees the entry when it was the last (Note [Entry lifetime]).
void drop_anchor(Entry* e) {
  if (e->anchors.fetch_sub(1, std::memory_order_acq_rel) == 1) delete e;
}

// Takes the reference out of `e` (the caller releases it).
ImplRef take(Entry* e, DisposedBy why) {
  e->disposed_by = why;
  e->disposed_site = sites::capture();
  return std::move(e->ref);
}

void check_thread(const ScopeState* s, const char* op) {
  if (s->thread != &me()) {
    throw LifetimeError(absl::StrFormat(
        "%s: the dispose scope involved belongs to another thread; scopes are per thread — "
        "detach_from_dispose_scope() on the owning thread, hand the tensor over, then attach it "
        "to a scope of this thread", op));
  }
}

// Disposes every entry of the (already spliced-out) list starting after `head`.
void dispose_list(Entry* first, Entry* end, DisposedBy why) {
  Statistics& st = me().stats;
  for (Entry* e = first; e != end;) {
    Entry* next = e->next;
    e->prev = e->next = nullptr;
    e->scope = nullptr;
    ImplRef r;
    if (e->ref) {
      r = take(e, why);
      ++st.disposed_in_scope;
    }
    drop_anchor(e);
    e = next;
    // `r` goes here: the tensor reference is given back.
  }
}

// Moves every entry of `s` onto a local list and returns it (empty `s`).
void splice_out(ScopeState* s, Entry* local_head) {
  local_head->prev = local_head->next = local_head;
  if (s->head.next == &s->head) return;
  local_head->next = s->head.next;
  local_head->prev = s->head.prev;
  local_head->next->prev = local_head;
  local_head->prev->next = local_head;
  s->head.prev = s->head.next = &s->head;
  s->count = 0;
}

}  // namespace

Entry* new_entry(ImplRef ref) {
  ThreadState& ts = me();
  ScopeState* s = ts.innermost;
  if (s == nullptr && !g_allow_unscoped.load(std::memory_order_relaxed)) {
    throw LifetimeError(
        "creating a tensor with no dispose scope open on this thread: open one around the code "
        "(`auto scope = custody::scope::new_dispose_scope();` or custody::scope::with_rc_scope), "
        "or allow unscoped tensors with custody::scope::set_allow_unscoped(true)");
  }
  auto* e = new Entry;
  e->ref = std::move(ref);
  e->site = sites::capture();
  if (s != nullptr) {
    e->anchors.store(2, std::memory_order_relaxed);
    link(s, e);
    ++ts.stats.created_in_scope;
  } else {
    ++ts.stats.created_outside_scope;
  }
  return e;
}

void add_handle(Entry* e) { e->anchors.fetch_add(1, std::memory_order_relaxed); }

void drop_handle(Entry* e) {
  if (e->anchors.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // Last anchor: not registered, no handle left. A detached tensor never
  // disposed is given back now (Note [Entry lifetime]).
  ImplRef r;
  if (e->ref) {
    r = take(e, DisposedBy::kLastHandle);
    ++me().stats.disposed_outside_scope;
  }
  delete e;
}

void dispose(Entry* e) {
  if (!e->ref) return;  // idempotent: counts once
  ScopeState* s = e->scope;
  Statistics& st = me().stats;
  ImplRef r = take(e, DisposedBy::kDispose);
  if (s == nullptr) {
    ++st.disposed_outside_scope;
  } else {
    ++st.disposed_in_scope;
    if (s->thread == &me()) {  // leave the scope now (else its end drops the entry)
      unlink(e);
      drop_anchor(e);  // the caller's handle keeps the entry alive
    }
  }
}

void move_to_outer(Entry* e) {
  ScopeState* s = e->scope;
  if (s == nullptr) return;  // already outside every scope
  check_thread(s, "move_to_outer_dispose_scope");
  ScopeState* outer = s->outer;
  unlink(e);
  if (outer != nullptr) {
    link(outer, e);
  } else {
    ++me().stats.detached_from_scope;
    drop_anchor(e);
  }
}

void detach(Entry* e) {
  ScopeState* s = e->scope;
  if (s == nullptr) return;
  check_thread(s, "detach_from_dispose_scope");
  unlink(e);
  ++me().stats.detached_from_scope;
  drop_anchor(e);
}

void attach(ScopeState* s, Entry* e) {
  if (s == nullptr) {
    throw LifetimeError("attach: this dispose scope has ended; attach to an open scope");
  }
  check_thread(s, "attach");
  if (e->scope == s) return;
  if (e->scope != nullptr) {
    check_thread(e->scope, "attach");
    unlink(e);
  } else {
    e->anchors.fetch_add(1, std::memory_order_relaxed);
  }
  link(s, e);
  ++me().stats.attached_to_scope;
}

void hand_out(ScopeState* inner, Entry* e, const char* op) {
  if (e->scope != inner) return;  // made outside this scope, or already moved
  if (inner->outer != nullptr) {
    unlink(e);
    link(inner->outer, e);
  } else if (g_allow_unscoped.load(std::memory_order_relaxed)) {
    unlink(e);
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
  std::string msg = absl::StrFormat("%s: this tensor was disposed: %s", op, why);
  if (!e->site.empty()) absl::StrAppend(&msg, "\n", sites::describe("created at", e->site));
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
  state_->thread = &ts;
  state_->outer = ts.innermost;
  if (ts.innermost != nullptr) ts.innermost->inner = state_;
  ts.innermost = state_;
  ++ts.depth;
}

DisposeScope& DisposeScope::operator=(DisposeScope&& o) noexcept {
  if (this != &o) {
    end(internal::DisposedBy::kScopeEnd);
    state_ = std::exchange(o.state_, nullptr);
  }
  return *this;
}

void DisposeScope::end(internal::DisposedBy why) noexcept {
  internal::ScopeState* s = std::exchange(state_, nullptr);
  if (s == nullptr) return;
  // Unlink the scope first (safe when closed out of order), so that anything
  // created while disposing (e.g. by a from_blob deleter) lands in the outer
  // scope, then dispose the entries from a local list.
  internal::ThreadState& ts = *s->thread;
  if (s->inner != nullptr) {
    s->inner->outer = s->outer;
  } else {
    ts.innermost = s->outer;
  }
  if (s->outer != nullptr) s->outer->inner = s->inner;
  --ts.depth;
  internal::Entry local;
  internal::splice_out(s, &local);
  delete s;
  internal::dispose_list(local.next, &local, why);
}

void DisposeScope::dispose_everything() {
  internal::ScopeState* s = state_checked("dispose_everything");
  internal::Entry local;
  internal::splice_out(s, &local);
  internal::dispose_list(local.next, &local, internal::DisposedBy::kDisposeEverything);
}

void DisposeScope::dispose_everything_but_entries(const internal::Entry* const* keep, size_t n) {
  internal::ScopeState* s = state_checked("dispose_everything_but");
  absl::flat_hash_set<const internal::Entry*> kept(keep, keep + n);
  internal::Entry local;
  internal::splice_out(s, &local);
  // Put the kept entries back, dispose the rest.
  for (internal::Entry* e = local.next; e != &local;) {
    internal::Entry* next = e->next;
    if (kept.contains(e)) {
      e->prev->next = e->next;
      e->next->prev = e->prev;
      internal::link(s, e);
    }
    e = next;
  }
  internal::dispose_list(local.next, &local, internal::DisposedBy::kDisposeEverything);
}

internal::ScopeState* DisposeScope::state_checked(const char* op) const {
  if (state_ == nullptr) {
    throw LifetimeError(absl::StrFormat("%s: this dispose scope has ended", op));
  }
  internal::check_thread(state_, op);
  return state_;
}

int64_t DisposeScope::size() const { return state_ == nullptr ? 0 : state_->count; }

int64_t depth() { return internal::me().depth; }

void set_allow_unscoped(bool allow) { internal::g_allow_unscoped.store(allow); }
bool allow_unscoped() { return internal::g_allow_unscoped.load(); }

std::string Statistics::to_string() const {
  return absl::StrFormat(
      "scope statistics (this thread): created in scope %d, disposed in scope %d, created outside "
      "scope %d, disposed outside scope %d, attached %d, detached %d, live %d",
      created_in_scope, disposed_in_scope, created_outside_scope, disposed_outside_scope,
      attached_to_scope, detached_from_scope, live());
}

Statistics& thread_statistics() { return internal::me().stats; }

}  // namespace custody::scope
