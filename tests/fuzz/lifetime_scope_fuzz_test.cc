// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_scope_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// scope: the program starts with one dispose scope open; creating anything with none open is a
// LifetimeError (the default rule). Copies share an entry; dispose() is idempotent; a scoped
// entry whose handles are all dropped stays in its scope until the scope ends; a detached one is
// given back by its last handle. EXTRA x: x%5 = 0 open a scope (at most 4), 1 close scope #k of the
// open ones (out of order too), 2 move_to_outer_dispose_scope, 3 detach_from_dispose_scope,
// 4 attach to the innermost scope; is_in_dispose_scope() is checked against the model. THREAD
// disposes a copy on another thread (allowed: Note [Scope thread affinity]).
// Lent references (policies/scope/scope.h, Note [Lent references]): an ALIAS of a registered
// entry made while a scope is open lends the source's reference to the alias; both are lent until
// detached (or moved out of the last scope). A lent entry disposed by another thread leaves its
// tensor alive (a model pin) until the scope it is registered in ends; use_count() counts
// references as the user sees them (scope::testing::use_count).

#include <cstddef>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "policies/scope/scope.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<scope::Policy> : DefaultRules<scope::Policy> {
  struct State {
    std::vector<std::unique_ptr<scope::DisposeScope>> scopes;  // outermost first
    std::vector<int> ids;                                      // their model ids
    std::vector<char> lent;                                    // by model ref
    std::vector<std::pair<int, int>> pins;                     // (scope id, model tensor)
    int next_id = 0;
    bool is_lent(int r) const { return r < static_cast<int>(lent.size()) && lent[r]; }
    void set_lent(int r, bool v) {
      if (r >= static_cast<int>(lent.size())) lent.resize(r + 1, 0);
      lent[r] = v;
    }
    State() { open(); }
    void open() {
      scopes.push_back(std::make_unique<scope::DisposeScope>());
      ids.push_back(next_id++);
    }
  };
  template <class H>
  static bool can_create(H& h) { return !h.state.scopes.empty(); }
  template <class H>
  static int scope_for_new(H& h) { return h.state.ids.empty() ? -1 : h.state.ids.back(); }
  static bool last_handle_releases(const MRef& r) { return r.scope < 0; }
  // Aliases lend their reference (Note [Lent references]): counted as the user sees them.
  template <class H>
  static int64_t use_count(H& h, int s) { return scope::testing::use_count(h.slots[s]); }
  template <class H>
  static void on_alias(H& h, int a, int r) {
    if (h.m.refs[a].scope >= 0 && h.m.refs[r].scope >= 0) {
      h.state.set_lent(a, true);
      h.state.set_lent(r, true);
    }
  }
  template <class H>
  static void thread(H& h, int s) {
    const int r = h.m.slot[s];
    const int64_t numel = h.m.valid(s) ? Numel(h.m.tensor_of(s).sizes) : -1;
    bool ok = true;
    if (r >= 0) h.m.refs[r].handles++;
    std::thread th([t = h.slots[s], numel, &ok]() mutable {
      ok = numel_as_modelled(t, numel);
      t.dispose();
    });
    th.join();
    if (!ok) h.fail("thread: the handle did not behave as the model says");
    if (r >= 0) {
      h.m.refs[r].handles--;
      const MRef& ref = h.m.refs[r];
      if (ref.live && h.state.is_lent(r)) {  // the share holds it until the entry's scope ends
        h.m.pin(ref.tensor);
        h.state.pins.emplace_back(ref.scope, ref.tensor);
      }
      h.m.release(r);
    }
  }
  template <class H>
  static void close(H& h, size_t k) {
    const int id = h.state.ids[k];
    h.state.scopes[k]->dispose();
    h.state.scopes.erase(h.state.scopes.begin() + k);
    h.state.ids.erase(h.state.ids.begin() + k);
    for (size_t r = 0; r < h.m.refs.size(); ++r) {
      if (h.m.refs[r].live && h.m.refs[r].scope == id) h.m.release(static_cast<int>(r));
    }
    auto& pins = h.state.pins;
    for (size_t i = 0; i < pins.size();) {
      if (pins[i].first == id) {
        h.m.unpin(pins[i].second);
        pins.erase(pins.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
  template <class H>
  static void extra(H& h, Reader& in) {
    const int x = in.next() % 5;
    State& st = h.state;
    if (x == 0) {
      if (st.scopes.size() < 4) st.open();
      return;
    }
    if (x == 1) {
      const uint8_t k = in.next();
      if (!st.scopes.empty()) close(h, k % st.scopes.size());
      return;
    }
    const int s = in.slot();
    const int r = h.m.slot[s];
    if (x == 4 && st.scopes.empty()) return;
    const bool threw = h.expect_lifetime_error(
        [&] {
          if (x == 2) h.slots[s].move_to_outer_dispose_scope();
          if (x == 3) h.slots[s].detach_from_dispose_scope();
          if (x == 4) st.scopes.back()->attach(h.slots[s]);
        },
        "scope op");
    if (threw == h.m.valid(s)) h.fail("scope op " + std::to_string(x) + ": disagrees with the model");
    if (threw) return;
    MRef& ref = h.m.refs[r];
    if (x == 2) {
      if (ref.scope >= 0) {
        size_t p = 0;
        while (st.ids[p] != ref.scope) ++p;
        ref.scope = p == 0 ? -1 : st.ids[p - 1];
        if (ref.scope < 0) st.set_lent(r, false);  // detached: a reference of its own
      }
    } else if (x == 3) {
      ref.scope = -1;
      st.set_lent(r, false);
    } else {
      ref.scope = st.ids.back();
    }
  }
  template <class H>
  static void check_slot(H& h, int s) {
    const bool in_scope = h.m.refs[h.m.slot[s]].scope >= 0;
    if (h.slots[s].is_in_dispose_scope() != in_scope) h.fail("is_in_dispose_scope differs from the model");
  }
  // Every scope ends, innermost first: what they hold goes back.
  template <class H>
  static void finish(H& h) {
    while (!h.state.scopes.empty()) close(h, h.state.scopes.size() - 1);
  }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::scope::Policy>(data, size);
  return 0;
}
