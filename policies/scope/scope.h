// Copyright 2026 The custody Authors.
//
// policies/scope/scope.h — the `scope` ownership policy: TorchSharp's
// technique 3 (dynamic dispose scopes) with ocaml-torch's rc-scope forms.
//
//   using T = custody::BasicTensor<custody::scope::Policy, custody::Onednn>;
//   namespace scope = custody::scope;
//
//   auto d0 = scope::new_dispose_scope();        // `using var d0 = torch.NewDisposeScope()`
//   T total = T::zeros({});
//   for (int i = 0; i < n; ++i) {
//     auto d1 = scope::new_dispose_scope();
//     T x = T::rand({4});                         // registered in d1
//     total = total.add(x.log().sum()).move_to_outer_dispose_scope();   // survives d1
//   }                                             // d1 ends: x, log, sum disposed
//
//   T y = scope::with_rc_scope_tensor([&] {      // ocaml-torch: temporaries die,
//     return T::ones({2}).mul(3);                // the result moves to the outer scope
//   });
//
// Contract (docs/design.md §5.4):
//  * Each thread has a stack of dynamic scopes. A tensor created while a scope
//    is innermost on the creating thread is registered there; when the scope
//    ends (its DisposeScope is destroyed or `dispose()`d), everything still
//    registered in it is disposed. Scopes are dynamic: functions called inside
//    register their tensors too, unless they open their own scope.
//  * A handle refers to an *entry* (one reference on the tensor: its own, or
//    its part of one its thread shares, Note [Lent references]). Copying a
//    handle copies the reference to the same entry, as a C# reference does;
//    the handle's destructor does not dispose a scoped tensor. `alias()` and
//    the in-place ops make a new entry.
//  * `t.dispose()` / `custody::release(t)` disposes early, idempotently
//    (disposing twice counts once in the statistics).
//  * `scope.dispose_everything()` disposes what is registered now and keeps
//    the scope open; `scope.dispose_everything_but(a, b)` keeps only a and b,
//    which stay registered and still die with the scope.
//  * `t.move_to_outer_dispose_scope()` re-registers the tensor in the scope
//    enclosing its own (detaching it when there is none);
//    `t.move_to_other_dispose_scope(s)` and `s.attach(t)` register it in `s`;
//    `t.detach_from_dispose_scope()` removes it from scoped management.
//  * A detached (or unscoped) tensor belongs to its handles: `dispose()` gives
//    it back, and so does the destruction of its last handle — TorchSharp's
//    finalizer, made deterministic, so nothing detached can leak.
//  * Scopes closed out of order are unlinked safely: the stack stays intact.
//  * Creating a tensor on a thread with no open scope is a LifetimeError by
//    default (the ocaml-torch rule); `set_allow_unscoped(true)` (or
//    `AllowUnscoped` for a block) permits it (the TorchSharp rule: counted as
//    created outside a scope, disposed by hand or by its last handle).
//  * Handing a tensor to another thread: `detach_from_dispose_scope()` on the
//    first thread, pass the handle, `scope.attach(t)` on the second.
//  * Using a disposed tensor is a LifetimeError naming the op and why it was
//    disposed (scope end, dispose_everything, dispose()).
//
// Note [Scope thread affinity]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A scope and its registration list belong to the thread that opened it; no
// lock guards them. Operations that change a tensor's registration (ending a
// scope, dispose_everything*, move*, detach, attach) run on the thread owning
// the scopes involved and throw LifetimeError on any other. DisposeScope is
// not movable, so it ends where it was opened. Other threads may read a scoped
// tensor (ops, views, aliases) while its scope is open — refcounts are atomic
// — and may dispose() it: the reference is exchanged out atomically (given
// back once, however many threads race) and the empty entry stays registered
// until its scope ends. As in every policy, disposing a tensor while another
// thread is still computing with it is a race in the caller's program.
//
// Note [Entry lifetime]
// ~~~~~~~~~~~~~~~~~~~~~
// An entry carries `anchors` = number of handles + 1 while it is registered in
// a scope. Whoever drops the last anchor frees the entry (and, if it was never
// disposed, disposes it first — only possible for a detached entry). The
// tensor reference (`impl`) is exchanged out exactly once, by whoever first
// disposes the entry. A scope's end first empties its list (taking every
// reference, dropping its anchors), then gives the references back: code run
// by a release (a from_blob deleter) never sees a half-ended scope.
//
// Statistics count on the thread that does the work: a tensor created on one
// thread and disposed on another leaves +1 on the first and -1 on the second
// (the sum over threads balances).
//
// Note [Lent references]
// ~~~~~~~~~~~~~~~~~~~~~~
// `t.alias()` and the in-place ops (`t.add_(x)` returns another handle to t)
// make a new entry for a tensor that already has one. When the source entry is
// registered in a scope of the calling thread and the new one will be too, the
// new entry takes no reference of its own on the TensorImpl: the source's one
// reference becomes a *share* (`Share`: the reference and the number of
// entries lent it), and every entry of that thread made from it counts once in
// the share, with a plain increment. A reference count is atomic because
// handles cross threads; a share's count is touched only by the thread whose
// scopes hold its entries, so it needs no locked instruction: alias() +
// dispose() on the owning thread costs none instead of two (the
// TensorImpl's count up and down). The share's reference is given back when its last entry is disposed.
//  * A lent entry's reference word carries a tag bit (kLent). The thread that
//    owns the scopes settles the share (lent - 1); another thread that disposes
//    a lent entry (Note [Scope thread affinity]: allowed) exchanges the word
//    out, sees the tag and gives nothing back: the entry stays registered,
//    empty, and its scope's end settles it. The share may therefore hold the
//    TensorImpl until then — memory, not correctness: the entry is disposed for
//    every thread at once.
//  * An entry leaves the owning thread's scopes only by being disposed (the
//    share is settled) or detached (detach_from_dispose_scope, a move or a
//    with_rc_scope result with no scope left to receive it, persist()): a
//    detached entry may be disposed by any thread, so it first takes a
//    reference of its own (one atomic increment) and settles its share.
//  * testing::use_count counts references as the user sees them (each
//    undisposed entry one), whether lent or not.


// Note [Autograd under scope]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// What a graph saved is registered in no scope (Note [The graph holds core
// references], core/autograd/meta.h). A scope that ends while a graph built
// inside it is still reachable (its loss moved out with
// move_to_outer_dispose_scope) disposes only the user's entries: the graph
// keeps what it saved until the loss goes, so backward after the scope is a
// correct program, not a use after free (docs/autograd.md says why this and
// not a LifetimeError). When nothing is moved out, the scope's end disposes
// the outputs' entries and the graph goes with them. A leaf's gradient
// belongs to the leaf, not to the scope that ran backward: a parameter made
// outside the step's scope keeps its gradient when the step's scope ends
// (TorchSharp #1057, #1197). `grad()` is a fresh entry of the current scope.

#ifndef CUSTODY_POLICIES_SCOPE_SCOPE_H_
#define CUSTODY_POLICIES_SCOPE_SCOPE_H_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/policy_traits.h"
#include "core/sites.h"
#include "core/tensor_impl.h"
#include "policies/internal/counted_slot.h"

namespace custody::scope {

class DisposeScope;

namespace internal {

struct ScopeState;
struct ThreadState;

// Why an entry's reference was given back (for LifetimeError messages).
enum class DisposedBy : uint8_t { kNotYet, kScopeEnd, kDisposeEverything, kDispose, kLastHandle };

// One reference on a TensorImpl lent to entries of one thread (Note [Lent
// references]); only that thread touches it.
struct Share {
  TensorImpl* impl = nullptr;  // the reference
  int64_t lent = 0;            // entries counting in it
};

// An entry's reference word: the TensorImpl's address, with kLent set when the
// reference is the share's (Note [Lent references]); 0 once disposed.
inline constexpr uintptr_t kLent = 1;
inline TensorImpl* impl_of(uintptr_t word) {
  return reinterpret_cast<TensorImpl*>(word & ~kLent);
}

// How an entry came into the scope holding it (for a memory history's holder, Note [Held by]).
enum class CameIn : uint8_t { kMade, kMoved, kAttached };

struct Entry {
  // The entry's reference on the tensor (its own, or its part of a share);
  // 0 once disposed. Exchanged atomically, so racing disposals give the
  // reference back exactly once.
  std::atomic<uintptr_t> held{0};
  std::atomic<int64_t> anchors{1};     // handles + (registered ? 1 : 0)
  // The id of the thread whose scope holds the entry (0: not registered).
  // Written by that thread only; other threads read it to stay off `scope`.
  std::atomic<uint64_t> owner{0};
  ScopeState* scope = nullptr;         // registration; owned by the scope's thread
  Share* share = nullptr;              // set while lent; owned by the scope's thread
  Entry* prev = nullptr;               // scope list links
  Entry* next = nullptr;
  DisposedBy disposed_by = DisposedBy::kNotYet;
  CameIn came_in = CameIn::kMade;      // how it came into the scope that holds it
  sites::Site site;                    // creation site, when tracking is on
  sites::Site disposed_site;           // where it was disposed, when tracking is on
};

Entry* new_entry(ImplRef ref);          // registered in the innermost scope (or throws)
Entry* lend(Entry* source, const char* op);  // another entry for source's tensor (Note [Lent references])
int64_t references(const TensorImpl& impl);  // for testing::use_count
void add_handle(Entry* e);
void drop_handle(Entry* e);
void dispose(Entry* e);
void move_to_outer(Entry* e);
void detach(Entry* e);
void attach(ScopeState* s, Entry* e, const char* op);
[[noreturn, gnu::cold]] void throw_disposed(const Entry* e, const char* op);
[[noreturn, gnu::cold]] void throw_null(const char* op);
ScopeState* state_of(const DisposeScope& s);

// Reaches a handle's entry (for DisposeScope and the rc-scope forms).
struct Access {
  template <class H>
  static Entry* entry(const H& h) { return h.entry_.get(); }
};

}  // namespace internal

struct Policy {
  static constexpr const char* name = "scope";

  template <class Derived>
  class Handle {
   public:
    Handle() = default;
    Handle(AdoptTag, ImplRef ref) : entry_(internal::new_entry(std::move(ref))) {}
    // Takes over the handle a fresh entry starts with.
    Handle(internal::Entry* e, AdoptTag) : entry_(e) {}

    // Another handle to this tensor, with an entry of its own (alias() and
    // the in-place ops; core/tensor.h): on the thread whose scope holds this
    // one, it shares this entry's reference (Note [Lent references]).
    Derived new_alias(const char* op) const {
      if (!entry_) internal::throw_null(op);
      return Derived(internal::lend(entry_.get(), op), kAdopt);
    }
    // Copies add a handle to the entry, destruction drops one (policy_internal::CountedSlot).
    // Dropping does not dispose a scoped tensor (its scope does); the last handle of a detached
    // tensor disposes it (Note [Entry lifetime]).

    // Gives the reference back now (idempotent); the entry leaves its scope.
    void dispose() {
      if (entry_) internal::dispose(entry_.get());
    }
    bool is_disposed() const {
      return !entry_ || entry_->held.load(std::memory_order_acquire) == 0;
    }

    // Re-registers the tensor in the scope enclosing its current one (or
    // detaches it when there is none). Returns a handle to it, for
    // `x = (a + b).move_to_outer_dispose_scope();`.
    Derived move_to_outer_dispose_scope() const {
      checked_impl("move_to_outer_dispose_scope");
      internal::move_to_outer(entry_.get());
      return self();
    }
    // Removes the tensor from scoped management: its handles own it now.
    Derived detach_from_dispose_scope() const {
      checked_impl("detach_from_dispose_scope");
      internal::detach(entry_.get());
      return self();
    }
    // Registers the tensor in `other` (a scope of this thread).
    Derived move_to_other_dispose_scope(const DisposeScope& other) const {
      checked_impl("move_to_other_dispose_scope");
      internal::attach(internal::state_of(other), entry_.get(), "move_to_other_dispose_scope");
      return self();
    }
    // True while the tensor is registered in some scope.
    bool is_in_dispose_scope() const {
      return entry_ && entry_->owner.load(std::memory_order_acquire) != 0 &&
             !is_disposed();
    }

    const TensorImpl& checked_impl(const char* op) const {
      if (!entry_) internal::throw_null(op);
      const uintptr_t held = entry_->held.load(std::memory_order_acquire);
      if (held == 0) internal::throw_disposed(entry_.get(), op);
      return *internal::impl_of(held);
    }
    void release_reference() { dispose(); }

   private:
    friend struct internal::Access;
    Derived self() const { return Derived(static_cast<const Derived&>(*this)); }

    policy_internal::CountedSlot<internal::Entry> entry_;
  };
};
static_assert(OwnershipPolicy<Policy>);

template <class T>
concept ScopeHandle = requires { typename T::policy_type; } &&
                      std::is_same_v<typename T::policy_type, Policy>;

namespace internal {
// True for a scope handle and for ranges, optionals and tuple-likes holding
// one (what with_rc_scope must not return: the scope would dispose them).
template <class T, class = void>
struct HoldsScopeHandle : std::false_type {};
template <class T>
inline constexpr bool kHoldsScopeHandle = HoldsScopeHandle<std::remove_cvref_t<T>>::value;
template <class T>
  requires ScopeHandle<T>
struct HoldsScopeHandle<T, void> : std::true_type {};
template <class T>
  requires(!ScopeHandle<T> && requires { typename T::value_type; })
struct HoldsScopeHandle<T, void> : std::bool_constant<kHoldsScopeHandle<typename T::value_type>> {};
template <class A, class B>
struct HoldsScopeHandle<std::pair<A, B>, void>
    : std::bool_constant<kHoldsScopeHandle<A> || kHoldsScopeHandle<B>> {};
template <class... Ts>
struct HoldsScopeHandle<std::tuple<Ts...>, void> : std::bool_constant<(kHoldsScopeHandle<Ts> || ...)> {};
}  // namespace internal

// One dynamic scope (TorchSharp's DisposeScope). Ends when destroyed or
// `dispose()`d, disposing what is registered in it.
class DisposeScope {
 public:
  DisposeScope();  // opens a scope on this thread (innermost from now on)
  // Neither copyable nor movable, like std::lock_guard: a scope ends on the
  // thread that opened it (`auto d = new_dispose_scope();` still works: C++17
  // guaranteed copy elision).
  DisposeScope(const DisposeScope&) = delete;
  DisposeScope& operator=(const DisposeScope&) = delete;
  ~DisposeScope();

  // Ends the scope now (idempotent), disposing everything registered in it.
  // LifetimeError on another thread than the one that opened it.
  void dispose();
  bool is_disposed() const { return state_ == nullptr; }

  // Disposes everything registered now; the scope stays open.
  void dispose_everything();
  // Disposes everything registered now except `keep...`, which stay registered.
  template <ScopeHandle... Ts>
  void dispose_everything_but(const Ts&... keep) {
    const internal::Entry* entries[] = {internal::Access::entry(keep)..., nullptr};
    dispose_everything_but_entries(entries, sizeof...(Ts));
  }
  template <ScopeHandle T>
  void dispose_everything_but(const std::vector<T>& keep) {
    std::vector<const internal::Entry*> entries;
    entries.reserve(keep.size());
    for (const T& t : keep) entries.push_back(internal::Access::entry(t));
    dispose_everything_but_entries(entries.data(), entries.size());
  }

  // Registers `t` here (TorchSharp's Attach): a detached tensor, or one in
  // another scope of this thread. Returns a handle to it.
  template <ScopeHandle T>
  T attach(const T& t) {
    t.checked_impl("attach");
    internal::attach(state_checked("attach"), internal::Access::entry(t), "attach");
    return t;
  }
  template <ScopeHandle T>
  void attach(const std::vector<T>& ts) {
    for (const T& t : ts) attach(t);
  }

  // Number of tensors registered here (a tensor disposed by another thread
  // stays registered, empty, until the scope ends).
  int64_t size() const;

 private:
  friend internal::ScopeState* internal::state_of(const DisposeScope& s);
  void end() noexcept;
  void dispose_everything_but_entries(const internal::Entry* const* keep, size_t n);
  internal::ScopeState* state_checked(const char* op) const;

  internal::ScopeState* state_;
};

// `auto d = new_dispose_scope();` (TorchSharp's torch.NewDisposeScope()).
inline DisposeScope new_dispose_scope() { return DisposeScope(); }

// Number of scopes open on this thread.
int64_t depth();

// Unscoped tensors: off by default (creating a tensor with no open scope is a
// LifetimeError). set_allow_unscoped is process-wide; AllowUnscoped overrides
// it for a block on the current thread only.
void set_allow_unscoped(bool allow);
bool allow_unscoped();  // for this thread: its AllowUnscoped override, else the process setting
class AllowUnscoped {
 public:
  explicit AllowUnscoped(bool allow = true);
  ~AllowUnscoped();
  AllowUnscoped(const AllowUnscoped&) = delete;
  AllowUnscoped& operator=(const AllowUnscoped&) = delete;

 private:
  int old_;  // the thread's previous override: -1 none, 0 or 1
};

// Per-thread statistics (TorchSharp's DisposeScopeManager.Statistics), exact.
// A disposal is "in scope" when the tensor was registered in a scope at that
// moment, "outside" otherwise. Each tensor's disposal counts once.
struct Statistics {
  int64_t created_outside_scope = 0;
  int64_t disposed_outside_scope = 0;
  int64_t created_in_scope = 0;
  int64_t disposed_in_scope = 0;
  int64_t attached_to_scope = 0;
  int64_t detached_from_scope = 0;
  // Tensors created minus tensors disposed, on this thread.
  int64_t live() const {
    return created_outside_scope + created_in_scope - disposed_outside_scope - disposed_in_scope;
  }
  void reset() { *this = Statistics(); }
  std::string to_string() const;
};
// This thread's statistics (a reference: reset() it to start counting afresh).
Statistics& thread_statistics();

// ---- ocaml-torch forms ------------------------------------------------------

// Runs `fn` inside a fresh scope and returns its result, which must not be a
// tensor (tensors cannot escape: use with_rc_scope_tensor(s)). Everything
// created inside is disposed when `fn` returns or throws.
template <class Fn>
auto with_rc_scope(Fn&& fn) -> std::invoke_result_t<Fn&> {
  using R = std::invoke_result_t<Fn&>;
  static_assert(!internal::kHoldsScopeHandle<R>,
                "with_rc_scope: the callback returns a tensor (or a container holding one), which "
                "would be disposed with the scope; use with_rc_scope_tensor, or "
                "with_rc_scope_tensors for a std::vector");
  DisposeScope s;
  return fn();
}

namespace internal {
// Moves `e` from the just-ending scope `inner` to the scope enclosing it. With
// no enclosing scope, detaches it if unscoped tensors are allowed, otherwise
// throws (the inner scope then disposes it).
void hand_out(ScopeState* inner, Entry* e, const char* op);
}  // namespace internal

// Runs `fn` in a fresh scope; its result (a tensor) moves to the enclosing
// scope and everything else created inside is disposed. The result holds one
// reference (testing::use_count == 1 unless other tensors share it).
template <class Fn>
  requires ScopeHandle<std::remove_cvref_t<std::invoke_result_t<Fn&>>>
auto with_rc_scope_tensor(Fn&& fn) -> std::remove_cvref_t<std::invoke_result_t<Fn&>> {
  using T = std::remove_cvref_t<std::invoke_result_t<Fn&>>;
  DisposeScope s;
  T out = fn();
  out.checked_impl("with_rc_scope_tensor");
  internal::hand_out(internal::state_of(s), internal::Access::entry(out), "with_rc_scope_tensor");
  return out;
}

// As with_rc_scope_tensor, for a vector of tensors.
template <class Fn>
auto with_rc_scope_tensors(Fn&& fn) -> std::remove_cvref_t<std::invoke_result_t<Fn&>> {
  using V = std::remove_cvref_t<std::invoke_result_t<Fn&>>;
  static_assert(ScopeHandle<typename V::value_type>,
                "with_rc_scope_tensors: the callback must return a std::vector of scope tensors");
  DisposeScope s;
  V out = fn();
  for (const auto& t : out) t.checked_impl("with_rc_scope_tensors");
  for (const auto& t : out) internal::hand_out(internal::state_of(s), internal::Access::entry(t), "with_rc_scope_tensors");
  return out;
}

namespace testing {
// The number of references on `t`'s TensorImpl (ocaml-torch's get_refcount;
// named like std::shared_ptr::use_count, since manual's testing::refcount is
// the frees a handle still owes): every undisposed entry counts one, lent or
// not (Note [Lent references]; this thread's scopes are walked to count the
// lent ones, so call it on the thread that owns them).
template <ScopeHandle T>
int64_t use_count(const T& t) {
  return internal::references(t.checked_impl("use_count"));
}
}  // namespace testing

}  // namespace custody::scope

namespace custody {
// Long-lived state (parameters) may be created with no scope open, and leaves
// the scope it was created in (core/policy_traits.h).
template <>
struct PolicyTraits<scope::Policy> : DefaultPolicyTraits {
  using Unscoped = scope::AllowUnscoped;
  template <class T>
  static void persist(const T& t) {
    if (t.is_in_dispose_scope()) t.detach_from_dispose_scope();
  }
};
}  // namespace custody

#endif  // CUSTODY_POLICIES_SCOPE_SCOPE_H_
