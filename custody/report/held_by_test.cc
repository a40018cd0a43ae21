// Copyright 2026 The custody Authors.
//
// What held memory past its last use (Note [Held by], core/stats.h), as every
// policy says it, found by custody/report on a recorded history: a program
// keeps one tensor past its last use and leaks another, under every policy on
// every host backend, and the report names each at the line that made it
// (taken with __LINE__ here, so moving a line moves what is expected), with
// the op that allocated it and what held it.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/policy_idiom.h"
#include "core/policy_traits.h"
#include "core/stats.h"
#include "custody/lists/host_backends.h"
#include "custody/lists/policies.h"
#include "custody/report/held_dead.h"
#include "gtest/gtest.h"

// Not in namespace custody: the report folds custody's own frames away (Note [Folding sites]).
namespace held_by_test {
namespace {

using custody::MemoryEvent;
using custody::MemoryStats;
using custody::PolicyIdiom;
using custody::PolicyTraits;
using custody::report::held_dead;
using custody::report::HeldByShare;
using custody::report::HeldDead;
using custody::report::SiteHeld;
namespace lists = custody::lists;

constexpr const char* kFile = "custody/report/held_by_test.cc";

struct Lines {
  int region = 0, kept = 0, released = 0, leaked = 0;
};

// Makes `leak` (still held when the recording ends), then keeps `kept` past
// its last use (its relu) through 16 rounds of small ops and releases it (or,
// with `leave_to_region`, leaves it to the region around it: a dispose scope
// under scope).
template <class T>
Lines program(bool leave_to_region, T& leak) {
  using Idiom = PolicyIdiom<typename T::policy_type>;
  Lines at;
  leak = T::zeros({100}); at.leaked = __LINE__;
  {
    [[maybe_unused]] typename Idiom::Region region; at.region = __LINE__;
    T kept = T::ones({64, 64}); at.kept = __LINE__;
    T out = kept.relu();  // kept's last use
    for (int i = 0; i < 16; ++i) {
      T s = T::ones({4});
      T d = s.mul(2.0);
      custody::release(s);
      custody::release(d);
    }
    custody::release(out);
    if (!leave_to_region) {
      custody::release(kept); at.released = __LINE__;
    }
  }
  Idiom::settle();
  return at;
}

std::string line(int n) { return absl::StrCat(kFile, ":", n); }

const SiteHeld* site_at(const HeldDead& h, int n) {
  for (const SiteHeld& s : h.sites) {
    if (absl::StartsWith(s.frame, line(n) + " ")) return &s;
  }
  return nullptr;
}

const HeldByShare* holder(const HeldDead& h, std::string_view what) {
  for (const HeldByShare& b : h.held_by) {
    if (b.holder == what) return &b;
  }
  return nullptr;
}

template <class T>
HeldDead record(bool leave_to_region, Lines* at) {
  using B = typename T::backend_type;
  [[maybe_unused]] typename PolicyTraits<typename T::policy_type>::Unscoped allow;  // the leak
  MemoryStats& stats = B::stats();
  T leak;
  stats.record_history(true, /*with_sites=*/true);
  stats.mark();
  *at = program<T>(leave_to_region, leak);
  stats.mark();
  stats.record_history(false);
  const std::vector<MemoryEvent> history = stats.history();
  stats.clear_history();
  custody::release(leak);
  PolicyIdiom<typename T::policy_type>::settle();
  return held_dead(history);
}

TEST(HeldByTest, EveryPolicyNamesTheLineTheOpAndTheHolder) {
  lists::for_each_tensor<lists::Policies, lists::HostBackends>([]<class T>() {
    using P = typename T::policy_type;
    const std::string name = absl::StrCat(P::name, " on ", T::backend_type::name);
    SCOPED_TRACE(name);
    Lines at;
    const HeldDead h = record<T>(/*leave_to_region=*/false, &at);
    const SiteHeld* kept = site_at(h, at.kept);
    ASSERT_NE(kept, nullptr) << "no site at " << line(at.kept) << "; top: "
                             << (h.sites.empty() ? "none" : h.sites[0].frame);
    EXPECT_EQ(kept->ops, std::vector<std::string>{"ones"});
    EXPECT_GT(kept->held_dead_byte_steps, 0);
    // What the policy said held it, and the line that let it go.
    const std::string_view policy = P::name;
    // custody::release(kept) drops tensor_ptr's last handle; the others
    // dispose (free) the reference made at kept's line, whose site the policy
    // kept (a history recording sites holds site tracking on: core/sites.h).
    const std::string expected =
        policy == "tensor_ptr" ? "its last handle" : absl::StrCat("the reference made at ", line(at.kept));
    const std::string label = absl::StrCat(expected, ", released at ", line(at.released));
    EXPECT_EQ(kept->held_by, label);
    const HeldByShare* b = holder(h, expected);
    ASSERT_NE(b, nullptr) << label;
    EXPECT_EQ(b->released_at, line(at.released));
    // The leak: never freed, at its line, with its op.
    const SiteHeld* leaked = site_at(h, at.leaked);
    ASSERT_NE(leaked, nullptr) << line(at.leaked);
    EXPECT_EQ(leaked->unfreed_bytes, 400);
    EXPECT_NE(holder(h, "still held at the end"), nullptr);
    EXPECT_EQ(leaked->ops, std::vector<std::string>{"zeros"});
    // The holders share out the held-dead byte-time exactly.
    double sum = 0;
    for (const HeldByShare& s : h.held_by) sum += s.held_dead_byte_steps;
    EXPECT_NEAR(sum, h.held_dead_byte_steps, 1e-9 * h.byte_steps);
  });
}

// Left to its region, a tensor is held by what the region is: under scope the
// dispose scope, named by the line that opened it.
TEST(HeldByTest, ATensorLeftToItsDisposeScopeIsHeldByTheScopeOpenedAtItsLine) {
  lists::for_each_tensor<lists::Policies, lists::HostBackends>([]<class T>() {
    using P = typename T::policy_type;
    if (std::string_view(P::name) != "scope") return;
    SCOPED_TRACE(T::backend_type::name);
    Lines at;
    const HeldDead h = record<T>(/*leave_to_region=*/true, &at);
    const SiteHeld* kept = site_at(h, at.kept);
    ASSERT_NE(kept, nullptr);
    const std::string expected = absl::StrCat("the dispose scope opened at ", line(at.region));
    EXPECT_TRUE(absl::StartsWith(kept->held_by, expected)) << kept->held_by;
    ASSERT_FALSE(h.held_by.empty());
    EXPECT_EQ(h.held_by[0].holder, expected);
  });
}

}  // namespace
}  // namespace held_by_test
