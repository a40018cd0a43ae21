// Copyright 2026 The custody Authors.
//
// tests/cross_policy/cross_policy_fuzz_test.cc — the lifetime fuzzer's model
// (tests/fuzz/lifetime_fuzz.h) over programs in two policies at once: a table of
// kSides x kSideSlots handles, side 0 of policy P and side 1 of policy Q, with
// tensors handed between the sides by share_as and transfer (core/convert.h).
// After every step each handle must be valid exactly when the model says, with
// the model's count of references on its TensorImpl, and the backend's live
// tensors, storages and bytes must be the model's; at the end, once each
// regime has given back what it keeps (the policies' test Guards), nothing is
// left.
//
// The backend: an input of `size` bytes runs on host backend size % N of the N
// of ALL_HOST_BACKENDS, as the lifetime fuzzer's do (tests/fuzz/lifetime_fuzz.h).
//
// Byte encoding: the first byte picks (P, Q) among the ordered pairs of
// POLICIES (P = Q included); then steps, each an opcode byte and its operands
// (0 past the end). `side` = a byte % 2, `s`, `d` = a byte % kSideSlots.
//   op % 7:
//   0 CREATE   side s k    slot (side, s) = ones(kShapes[k % 6]) of that side's policy
//   1 SHARE    side s d    slot (other side, d) = share_as<other policy>(slot (side, s)): one more
//                          reference, the source untouched (LifetimeError when the source is dead)
//   2 TRANSFER side s d    slot (other side, d) = transfer<other policy>(move(slot (side, s))): a new
//                          reference, the source's given back its policy's way and the source dead
//   3 VIEW     side s d    slot (side, d) = slot (side, s).narrow(0, 0, 1): a new tensor, same storage
//   4 RELEASE  side s      custody::release of the slot (manual: a LifetimeError past zero)
//   5 CLEAR    side s      the slot's handle dropped: what that does is its policy's rule (DropRule)
//   6 SETTLE               each policy's settle() (gc: a collection): the model must not change
// Handles are never copied between slots, so every reference has one handle.

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "custody/lists/policies.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {
namespace {

inline constexpr int kSides = 2;
inline constexpr int kSideSlots = 4;
inline constexpr int kCrossOps = 7;

// What dropping the last handle of a live reference does, per policy: gives it
// back (tensor_ptr), leaves it to the policy's cleanup (dispose and manual leak
// it; scope keeps it to its scope's end), or, in this model, nothing: gc's
// handles are disposed before they are dropped, as the lifetime fuzzer's plain
// mode does, so the model never leaves garbage to the collector.
enum class DropRule { kReleases, kKeeps, kDisposeFirst };
template <class P>
constexpr DropRule drop_rule() {
  if constexpr (std::is_same_v<P, tensor_ptr::Policy>) {
    return DropRule::kReleases;
  } else if constexpr (std::is_same_v<P, gc::Policy>) {
    return DropRule::kDisposeFirst;
  } else {
    static_assert(std::is_same_v<P, dispose::Policy> || std::is_same_v<P, scope::Policy> ||
                      std::is_same_v<P, manual::Policy>,
                  "a new policy: say here what dropping its last handle does");
    return DropRule::kKeeps;
  }
}

template <class P, class Q, class B>
struct CrossHarness {
  using Backend = B;
  using TP = BasicTensor<P, Backend>;
  using TQ = BasicTensor<Q, Backend>;

  TP p[kSideSlots];  // side 0; on the stack: visible to gc's conservative scan
  TQ q[kSideSlots];  // side 1
  Model m;
  int slot[kSides][kSideSlots];  // model reference of each slot, -1 for a default handle
  StatsSnapshot base = Backend::stats().snapshot();
  int step = 0;

  CrossHarness() {
    for (auto& side : slot) {
      for (int& r : side) r = -1;
    }
  }

  [[noreturn]] void fail(const std::string& why) {
    Fail(std::string(P::name) + " / " + Q::name + ": " + why, step);
  }
  bool valid(int side, int s) const { return slot[side][s] >= 0 && m.refs[slot[side][s]].live; }
  const MTensor& tensor_of(int side, int s) const { return m.tensors[m.refs[slot[side][s]].tensor]; }

  // Calls fn(handle) with slot (side, s)'s handle, whichever policy it is.
  template <class Fn>
  decltype(auto) with(int side, int s, Fn&& fn) {
    return side == 0 ? fn(p[s]) : fn(q[s]);
  }

  template <class Fn>
  void expect_lifetime_error(Fn&& fn, const char* what) {
    try {
      fn();
    } catch (const LifetimeError&) {
      return;
    } catch (const std::exception& e) {
      fail(std::string(what) + ": expected LifetimeError, got: " + e.what());
    }
    fail(std::string(what) + ": succeeded, the model expected a LifetimeError");
  }

  // Drops slot (side, s)'s handle `h` (of policy X), after X's rule for a last handle.
  template <class X>
  void drop(BasicTensor<X, Backend>& h, int side, int s) {
    const int r = slot[side][s];
    if (r >= 0 && m.refs[r].live) {
      constexpr DropRule rule = drop_rule<X>();
      if constexpr (rule == DropRule::kDisposeFirst) custody::release(h);
      if constexpr (rule != DropRule::kKeeps) m.release(r);
    }
    slot[side][s] = -1;
    h = BasicTensor<X, Backend>();
  }
  void drop_any(int side, int s) {
    if (side == 0) {
      drop<P>(p[s], 0, s);
    } else {
      drop<Q>(q[s], 1, s);
    }
  }

  template <class T>
  void put(int side, int d, T t, int r) {
    drop_any(side, d);
    if constexpr (std::is_same_v<T, TP> && std::is_same_v<TP, TQ>) {
      (side == 0 ? p[d] : q[d]) = std::move(t);
    } else if constexpr (std::is_same_v<T, TP>) {
      p[d] = std::move(t);
    } else {
      q[d] = std::move(t);
    }
    slot[side][d] = r;
  }

  void create(Reader& in) {
    const int side = in.next() % kSides, s = in.next() % kSideSlots;
    const std::vector<int64_t>& shape = Shapes()[in.next() % Shapes().size()];
    const IntSpan sizes(shape.data(), shape.size());
    const StatsSnapshot before = Backend::stats().snapshot();
    const auto made = [&](int64_t numel) {
      const int64_t bytes = Backend::stats().snapshot().bytes_in_use - before.bytes_in_use;
      if (bytes < numel * static_cast<int64_t>(sizeof(float))) fail("create: too few bytes");
      return m.new_ref(m.new_tensor(m.new_storage(bytes), shape, ContiguousStrides(shape)), -1);
    };
    if (side == 0) {
      TP t = TP::ones(sizes);
      const int r = made(t.numel());
      put(0, s, std::move(t), r);
    } else {
      TQ t = TQ::ones(sizes);
      const int r = made(t.numel());
      put(1, s, std::move(t), r);
    }
  }

  // share_as (move_source false) or transfer (true) from (side, s) to (other side, d).
  void hand_over(Reader& in, bool move_source) {
    const int side = in.next() % kSides, s = in.next() % kSideSlots, d = in.next() % kSideSlots;
    const char* what = move_source ? "transfer" : "share_as";
    if (!valid(side, s)) {
      if (side == 0) {
        expect_lifetime_error([&] { (void)(move_source ? transfer<Q>(std::move(p[s])) : share_as<Q>(p[s])); }, what);
      } else {
        expect_lifetime_error([&] { (void)(move_source ? transfer<P>(std::move(q[s])) : share_as<P>(q[s])); }, what);
      }
      return;
    }
    const int source = slot[side][s];
    const int r = m.new_ref(m.refs[source].tensor, -1);
    if (side == 0) {
      TQ t = move_source ? transfer<Q>(std::move(p[s])) : share_as<Q>(p[s]);
      put(1, d, std::move(t), r);
    } else {
      TP t = move_source ? transfer<P>(std::move(q[s])) : share_as<P>(q[s]);
      put(0, d, std::move(t), r);
    }
    if (move_source) m.release(source);  // given back the source policy's way: the handle is dead
  }

  void view(Reader& in) {
    const int side = in.next() % kSides, s = in.next() % kSideSlots, d = in.next() % kSideSlots;
    if (!valid(side, s)) {
      with(side, s, [&](auto& src) { expect_lifetime_error([&] { (void)src.narrow(0, 0, 1); }, "view"); });
      return;
    }
    const MTensor& src = tensor_of(side, s);
    std::vector<int64_t> sizes = src.sizes;
    sizes[0] = 1;
    const int r = m.new_ref(m.new_tensor(src.storage, sizes, src.strides), -1);
    if (side == 0) {
      TP t = p[s].narrow(0, 0, 1);
      put(0, d, std::move(t), r);
    } else {
      TQ t = q[s].narrow(0, 0, 1);
      put(1, d, std::move(t), r);
    }
  }

  // custody::release: idempotent, but for manual's free of a reference already
  // freed (past zero: a LifetimeError).
  void release(Reader& in) {
    const int side = in.next() % kSides, s = in.next() % kSideSlots;
    const int r = slot[side][s];
    const bool past_zero = r >= 0 && !m.refs[r].live &&
                           (side == 0 ? std::is_same_v<P, manual::Policy> : std::is_same_v<Q, manual::Policy>);
    bool threw = false;
    try {
      with(side, s, [](auto& h) { custody::release(h); });
    } catch (const LifetimeError&) {
      threw = true;
    }
    if (threw != past_zero) fail(threw ? "release: unexpected LifetimeError" : "free past zero did not throw");
    if (r >= 0) m.release(r);
  }

  void check() {
    for (int side = 0; side < kSides; ++side) {
      for (int s = 0; s < kSideSlots; ++s) {
        const std::string where = "slot " + std::to_string(side) + "." + std::to_string(s);
        with(side, s, [&](auto& h) {
          if (!valid(side, s)) {
            expect_lifetime_error([&] { (void)h.numel(); }, (where + " should be dead").c_str());
            return;
          }
          const MTensor& t = tensor_of(side, s);
          if (h.numel() != Numel(t.sizes)) fail(where + ": numel differs from the model");
          if (h.impl().use_count() != t.refs) {
            fail(where + ": use_count " + std::to_string(h.impl().use_count()) + ", model " +
                 std::to_string(t.refs));
          }
        });
      }
    }
    const StatsSnapshot now = Backend::stats().snapshot();
    if (now.live_tensors - base.live_tensors != m.live_tensors() ||
        now.live_storages - base.live_storages != m.live_storages() ||
        now.bytes_in_use - base.bytes_in_use != m.bytes()) {
      fail("stats: live tensors/storages/bytes " + std::to_string(now.live_tensors - base.live_tensors) + "/" +
           std::to_string(now.live_storages - base.live_storages) + "/" +
           std::to_string(now.bytes_in_use - base.bytes_in_use) + ", model " + std::to_string(m.live_tensors()) +
           "/" + std::to_string(m.live_storages()) + "/" + std::to_string(m.bytes()));
    }
  }

  void run(Reader& in) {
    for (step = 0; step < kMaxSteps && !in.done(); ++step) {
      switch (in.next() % kCrossOps) {
        case 0: create(in); break;
        case 1: hand_over(in, /*move_source=*/false); break;
        case 2: hand_over(in, /*move_source=*/true); break;
        case 3: view(in); break;
        case 4: release(in); break;
        case 5: {
          const int side = in.next() % kSides;
          drop_any(side, in.next() % kSideSlots);
          break;
        }
        case 6:
          PolicyIdiom<P>::settle();
          PolicyIdiom<Q>::settle();
          break;
      }
      check();
      count_step();
    }
    for (int side = 0; side < kSides; ++side) {
      for (int s = 0; s < kSideSlots; ++s) drop_any(side, s);
    }
    check();
  }
};

template <class P, class Q, class Backend>
void run_pair(Reader& in) {
  const StatsSnapshot base = Backend::stats().snapshot();
  {
    // What each regime keeps once its handles are gone (a scope's entries, dispose's and manual's
    // leaked references) goes back when its Guard ends.
    [[maybe_unused]] typename PolicyIdiom<P>::Guard p_guard;
    [[maybe_unused]] typename PolicyIdiom<Q>::Guard q_guard;
    CrossHarness<P, Q, Backend> h;
    h.run(in);
  }
  PolicyIdiom<P>::settle();
  PolicyIdiom<Q>::settle();
  const StatsSnapshot end = Backend::stats().snapshot();
  if (end.live_tensors != base.live_tensors || end.bytes_in_use != base.bytes_in_use) {
    Fail(std::string(P::name) + " / " + Q::name + " on " + Backend::name + ": left " +
             std::to_string(end.live_tensors - base.live_tensors) + " tensors, " +
             std::to_string(end.bytes_in_use - base.bytes_in_use) + " bytes after the cleanup",
         -1);
  }
}

}  // namespace
}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using custody::lists::Policies;
  custody::fuzz::Reader in{data, size};
  constexpr int kPolicies = static_cast<int>(Policies::size);
  const int pair = in.next() % (kPolicies * kPolicies);
  const size_t backend = size % custody::fuzz::kBackends;
  size_t b = 0;
  custody::lists::for_each_type(custody::fuzz::Backends{}, [&]<class B>() {
    if (b++ != backend) return;
    int i = 0;
    custody::lists::for_each_type(Policies{}, [&]<class P>() {
      custody::lists::for_each_type(Policies{}, [&]<class Q>() {
        if (i++ == pair) custody::fuzz::run_pair<P, Q, B>(in);
      });
    });
  });
  ++custody::fuzz::counts().programs;
  ++custody::fuzz::counts().programs_on[backend];
  return 0;
}
