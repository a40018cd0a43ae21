// Copyright 2026 The custody Authors.
//
// held_dead (custody/report/held_dead.h): exact figures on a history written by
// hand, then a recorded one, where a tensor kept past its last use must be
// found at the function that made it, with its bytes × steps.

#include "custody/report/held_dead.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/onednn/onednn.h"
#include "core/sites.h"
#include "core/stats.h"
#include "gtest/gtest.h"
#include "policies/tensor_ptr/make.h"

namespace {

using custody::MemoryEvent;
using custody::MemoryEventKind;
using custody::report::HeldDead;
using custody::report::held_dead;
using custody::report::SiteHeld;
using custody::sites::Site;

MemoryEvent event(MemoryEventKind kind, int64_t bytes = 0, const void* address = nullptr, Site site = {}) {
  MemoryEvent e{0, 0, 0, kind, bytes, address, std::move(site)};
  return e;
}

Site fake_site(uintptr_t pc) {
  void* pcs[2] = {reinterpret_cast<void*>(pc), reinterpret_cast<void*>(pc + 8)};
  return Site::from_frames(pcs, 2);
}

// Marks at 0, 6 and 12 end the set-up and two steps; time moves with the
// kernels (z: a tensor from before the history), two per step and one after.
TEST(HeldDeadTest, ExactFiguresOnAWrittenHistory) {
  int a = 0, b = 0, c = 0, z = 0;
  const Site x = fake_site(0x1000), y = fake_site(0x2000);
  const std::vector<MemoryEvent> h = {
      event(MemoryEventKind::kMark),               // 0   t = 0
      event(MemoryEventKind::kAlloc, 100, &a, x),  // 1   0
      event(MemoryEventKind::kUse, 0, &a),         // 2   0 -> 0.5 after its kernel: a's last use
      event(MemoryEventKind::kTensorCreated),      // 3   0.5   (ends the kernel's run of kUse)
      event(MemoryEventKind::kUse, 0, &z),         // 4   0.5
      event(MemoryEventKind::kAlloc, 10, &b, y),   // 5   1     the peak, 110 bytes: a already dead
      event(MemoryEventKind::kMark),               // 6   1
      event(MemoryEventKind::kUse, 0, &b),         // 7   1 -> 1.5: b's last use
      event(MemoryEventKind::kTensorDestroyed),    // 8   1.5
      event(MemoryEventKind::kUse, 0, &z),         // 9   1.5
      event(MemoryEventKind::kFree, 100, &a),      // 10  2
      event(MemoryEventKind::kFree, 10, &b),       // 11  2
      event(MemoryEventKind::kMark),               // 12  2
      event(MemoryEventKind::kAlloc, 1, &c, x),    // 13  2     never freed
      event(MemoryEventKind::kUse, 0, &z),         // 14  2     the history ends at 3
  };
  const custody::report::StepClock clock(h);
  EXPECT_DOUBLE_EQ(clock.at(2), 0);
  EXPECT_DOUBLE_EQ(clock.after(2), 0.5);
  EXPECT_DOUBLE_EQ(clock.at(5), 1);
  EXPECT_DOUBLE_EQ(clock.after(7), 1.5);
  EXPECT_DOUBLE_EQ(clock.at(10), 2);
  EXPECT_DOUBLE_EQ(clock.at(h.size()), 3);
  // A kernel's operands (consecutive kUse events) are one tick.
  const std::vector<MemoryEvent> one_kernel = {event(MemoryEventKind::kUse, 0, &a),
                                               event(MemoryEventKind::kUse, 0, &b),
                                               event(MemoryEventKind::kFree, 100, &a)};
  const custody::report::StepClock k(one_kernel);
  EXPECT_DOUBLE_EQ(k.after(0), 1);
  EXPECT_DOUBLE_EQ(k.at(2), 1);
  const HeldDead r = held_dead(h);
  EXPECT_EQ(r.steps, 2);
  EXPECT_DOUBLE_EQ(r.held_dead_byte_steps, 100 * 1.5 + 10 * 0.5 + 1 * 1.0);
  EXPECT_DOUBLE_EQ(r.byte_steps, 100 * 2.0 + 10 * 1.0 + 1 * 1.0);
  EXPECT_DOUBLE_EQ(r.bound_byte_steps, 100 * 0.5 + 10 * 0.5);
  EXPECT_DOUBLE_EQ(r.byte_steps - r.bound_byte_steps, r.held_dead_byte_steps);
  EXPECT_EQ(r.peak_bytes, 110);
  EXPECT_DOUBLE_EQ(r.peak_step, 1);  // event 5
  EXPECT_EQ(r.dead_at_peak_bytes, 100);
  EXPECT_NEAR(r.held_dead_share(), 156.0 / 211.0, 1e-12);
  ASSERT_EQ(r.sites.size(), 2u);
  const SiteHeld& first = r.sites[0];
  EXPECT_EQ(first.pc, reinterpret_cast<const void*>(0x1000));  // "??" is not custody's: the first frame
  EXPECT_EQ(first.allocations, 2);
  EXPECT_EQ(first.bytes, 101);
  EXPECT_DOUBLE_EQ(first.held_dead_byte_steps, 151);
  EXPECT_EQ(first.dead_at_peak_bytes, 100);
  EXPECT_EQ(first.unfreed_bytes, 1);
  EXPECT_EQ(r.sites[1].pc, reinterpret_cast<const void*>(0x2000));
  EXPECT_DOUBLE_EQ(r.sites[1].held_dead_byte_steps, 5);
}

MemoryEvent alloc(int64_t bytes, const void* address, custody::MemoryCategory c) {
  MemoryEvent e = event(MemoryEventKind::kAlloc, bytes, address);
  e.category = c;
  return e;
}

MemoryEvent collector_free(int64_t bytes, const void* address) {
  MemoryEvent e = event(MemoryEventKind::kFree, bytes, address);
  e.by_collector = true;
  return e;
}

// Categories as recorded, temporaries and unnamed activations read from the
// kernels; the timeline stacked by them with the bound's schedule.
TEST(HeldDeadTest, CategoriesAndTheTimeline) {
  using custody::MemoryCategory;
  int p = 0, x = 0, tmp = 0, keep = 0, g = 0;
  const std::vector<MemoryEvent> h = {
      alloc(8, &p, MemoryCategory::kParameter),    // 0  never used: still a parameter
      event(MemoryEventKind::kMark),               // 1
      alloc(4, &x, MemoryCategory::kInput),        // 2
      alloc(16, &tmp, MemoryCategory::kActivation),  // 3  made by kernel 0, last used by kernel 1: temporary
      event(MemoryEventKind::kUse, 0, &x),         // 4  kernel 0
      event(MemoryEventKind::kUse, 0, &tmp),       // 5
      alloc(32, &keep, MemoryCategory::kUnknown),  // 6  made by kernel 1, last used by kernel 3: activation
      event(MemoryEventKind::kUse, 0, &tmp),       // 7  kernel 1
      event(MemoryEventKind::kUse, 0, &keep),      // 8
      event(MemoryEventKind::kFree, 16, &tmp),     // 9
      alloc(2, &g, MemoryCategory::kGradient),     // 10 made by kernel 2, used by 2 and 3: temporary
      event(MemoryEventKind::kUse, 0, &g),         // 11 kernel 2
      event(MemoryEventKind::kTensorCreated),      // 12
      event(MemoryEventKind::kUse, 0, &keep),      // 13 kernel 3
      event(MemoryEventKind::kUse, 0, &g),         // 14
      event(MemoryEventKind::kFree, 32, &keep),    // 15
      event(MemoryEventKind::kFree, 2, &g),        // 16
      event(MemoryEventKind::kMark),               // 17
  };
  const HeldDead r = held_dead(h);
  const auto at = [](MemoryCategory c) { return static_cast<size_t>(c); };
  EXPECT_EQ(r.peak_bytes, 8 + 4 + 16 + 32);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kParameter)], 8);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kInput)], 4);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kTemporary)], 16);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kActivation)], 32);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kGradient)], 0);
  // x was last used by kernel 0, dead at the peak (event 6).
  EXPECT_EQ(r.dead_at_peak_by_category[at(MemoryCategory::kInput)], 4);
  EXPECT_EQ(r.dead_at_peak_bytes, 4 + 8);  // and the parameter, never used
  // One sample per kAlloc and kFree, by category, with the bound's schedule.
  ASSERT_EQ(r.timeline.size(), 8u);
  EXPECT_EQ(r.timeline[3].total(), 60);                 // event 6: the peak
  EXPECT_EQ(r.timeline[3].bound, 16 + 32);  // x is past its last use, the parameter never used
  EXPECT_EQ(r.timeline[4].by_category[at(MemoryCategory::kTemporary)], 0);  // event 9: tmp freed
  EXPECT_EQ(r.timeline[5].by_category[at(MemoryCategory::kTemporary)], 2);  // event 10: g is one too
  EXPECT_EQ(r.timeline.back().total(), 8 + 4);
  // resolve_category on its own.
  using custody::report::resolve_category;
  EXPECT_EQ(resolve_category(MemoryCategory::kUnknown, 3, 5, true), MemoryCategory::kActivation);
  EXPECT_EQ(resolve_category(MemoryCategory::kUnknown, 3, 4, true), MemoryCategory::kTemporary);
  EXPECT_EQ(resolve_category(MemoryCategory::kGradient, 3, 9, true), MemoryCategory::kGradient);
  EXPECT_EQ(resolve_category(MemoryCategory::kGradient, 3, 3, false), MemoryCategory::kTemporary);
  EXPECT_EQ(resolve_category(MemoryCategory::kInput, 3, 3, false), MemoryCategory::kInput);
  EXPECT_EQ(resolve_category(MemoryCategory::kOptimizerState, 0, 0, false), MemoryCategory::kOptimizerState);
}

MemoryEvent saved(const void* address, const char* op, Site site) {
  MemoryEvent e = event(MemoryEventKind::kSaved, 0, address, std::move(site));
  e.op = op;
  return e;
}

// What an autograd node saved is autograd_saved (a parameter stays one), shown
// at the site that saved it with the node's name.
TEST(HeldDeadTest, TensorsSavedForBackwardAreTheirOwnCategoryAtTheSiteThatSavedThem) {
  using custody::MemoryCategory;
  int p = 0, h = 0;
  const Site made = fake_site(0x1000), saving = fake_site(0x3000);
  std::vector<MemoryEvent> history = {
      alloc(8, &p, MemoryCategory::kParameter),  // 0
      event(MemoryEventKind::kMark),             // 1
      alloc(32, &h, MemoryCategory::kUnknown),   // 2  the op's output
      event(MemoryEventKind::kUse, 0, &p),       // 3  kernel 0
      event(MemoryEventKind::kUse, 0, &h),       // 4
      saved(&p, "matmul", saving),               // 5
      saved(&h, "relu", saving),                 // 6  (the first save names it)
      saved(&h, "mul", made),                    // 7
      event(MemoryEventKind::kTensorCreated),    // 8  kernel 1 uses nothing the test names
      event(MemoryEventKind::kUse, 0, &p),       // 9
      event(MemoryEventKind::kMark),             // 10 the step ends with h still held
      event(MemoryEventKind::kFree, 32, &h),     // 11
  };
  history[2].site = made;
  const HeldDead r = held_dead(history);
  const auto at = [](MemoryCategory c) { return static_cast<size_t>(c); };
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kAutogradSaved)], 32);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kParameter)], 8);
  EXPECT_EQ(r.peak_by_category[at(MemoryCategory::kActivation)], 0);
  EXPECT_GT(r.held_dead_by_category[at(MemoryCategory::kAutogradSaved)], 0);
  const SiteHeld* at_save = nullptr;
  for (const SiteHeld& s : r.sites) {
    EXPECT_NE(s.pc, made.frames()[0]) << "h is shown where it was saved, not where it was made";
    if (s.pc == saving.frames()[0]) at_save = &s;
  }
  ASSERT_NE(at_save, nullptr);
  EXPECT_EQ(at_save->saved_by, "relu");
  EXPECT_EQ(at_save->category, MemoryCategory::kAutogradSaved);
  EXPECT_EQ(at_save->bytes, 32);
  using custody::report::resolve_category;
  EXPECT_EQ(resolve_category(MemoryCategory::kUnknown, 0, 0, false, /*saved=*/true), MemoryCategory::kAutogradSaved);
  EXPECT_EQ(resolve_category(MemoryCategory::kParameter, 0, 0, false, /*saved=*/true), MemoryCategory::kParameter);
  EXPECT_EQ(resolve_category(MemoryCategory::kInput, 0, 0, false, /*saved=*/true), MemoryCategory::kInput);
}

// Note [Garbage awaiting collection]: an allocation freed by a finalizer after
// collection k was reachable at collection k-1.
TEST(HeldDeadTest, GarbageAwaitingCollectionIsWhatFollowsTheLastCollectionThatFoundItReachable) {
  int a = 0, b = 0, c = 0, z = 0;
  const std::vector<MemoryEvent> h = {
      event(MemoryEventKind::kMark),               // 0  t = 0
      event(MemoryEventKind::kAlloc, 10, &a),      // 1  0
      event(MemoryEventKind::kAlloc, 20, &b),      // 2  0
      event(MemoryEventKind::kAlloc, 40, &c),      // 3  0
      event(MemoryEventKind::kUse, 0, &a),         // 4  0 -> 0.25: a, b and c's last use
      event(MemoryEventKind::kUse, 0, &b),         // 5
      event(MemoryEventKind::kUse, 0, &c),         // 6
      event(MemoryEventKind::kTensorCreated),      // 7  0.25
      event(MemoryEventKind::kUse, 0, &z),         // 8  0.25 -> 0.5
      event(MemoryEventKind::kCollection),         // 9  0.5: finds nothing (a, b reachable)
      event(MemoryEventKind::kUse, 0, &z),         // 10 0.5 -> 0.75
      event(MemoryEventKind::kCollection),         // 11 0.75: finds a
      collector_free(10, &a),                      // 12 0.75
      event(MemoryEventKind::kUse, 0, &z),         // 13 0.75 -> 1
      event(MemoryEventKind::kFree, 20, &b),       // 14 1: b disposed by the program
      event(MemoryEventKind::kMark),               // 15 1
      event(MemoryEventKind::kCollection),         // 16 1: finds c
      collector_free(40, &c),                      // 17 1
  };
  const HeldDead r = held_dead(h);
  EXPECT_EQ(r.collections, 3);
  EXPECT_DOUBLE_EQ(r.held_dead_byte_steps, 10 * 0.5 + 20 * 0.75 + 40 * 0.75);
  // a: reachable at 0.5, found at 0.75: at most 0.25 awaiting. b: the program's. c: reachable
  // at 0.75, found at 1: at most 0.25 awaiting.
  EXPECT_DOUBLE_EQ(r.awaiting_collection_byte_steps, 10 * 0.25 + 40 * 0.25);
  // With no earlier collection recorded, all of a collector free's dead time may have been garbage.
  const std::vector<MemoryEvent> first = {event(MemoryEventKind::kMark), event(MemoryEventKind::kAlloc, 8, &a),
                                          event(MemoryEventKind::kUse, 0, &a), event(MemoryEventKind::kTensorCreated),
                                          event(MemoryEventKind::kUse, 0, &z), event(MemoryEventKind::kMark),
                                          event(MemoryEventKind::kCollection), collector_free(8, &a)};
  const HeldDead f = held_dead(first);
  EXPECT_GT(f.held_dead_byte_steps, 0);
  EXPECT_DOUBLE_EQ(f.awaiting_collection_byte_steps, f.held_dead_byte_steps);
}

// What held each allocation is what its free says (Note [Held by], core/stats.h): the dead
// byte-time adds up by holder, a collector's split into what the program still held and what
// may have been garbage awaiting the collection.
TEST(HeldDeadTest, DeadTimeAddsUpByWhatHeldIt) {
  int a = 0, b = 0, c = 0, d = 0, z = 0;
  const Site scope_site = fake_site(0x3000);
  MemoryEvent by_scope = event(MemoryEventKind::kFree, 20, &b);
  by_scope.holder = "the dispose scope";
  by_scope.holder_verb = "opened at";
  by_scope.holder_site = scope_site;
  MemoryEvent by_node = event(MemoryEventKind::kFree, 5, &d);
  by_node.holder = "the autograd node";
  by_node.holder_name = "relu";
  MemoryEvent by_alias = collector_free(40, &c);
  by_alias.holder = "its gc alias";
  const std::vector<MemoryEvent> h = {
      event(MemoryEventKind::kMark),               // 0  t = 0
      event(MemoryEventKind::kAlloc, 10, &a),      // 1  0
      event(MemoryEventKind::kAlloc, 20, &b),      // 2  0
      event(MemoryEventKind::kAlloc, 40, &c),      // 3  0
      event(MemoryEventKind::kAlloc, 5, &d),       // 4  0
      event(MemoryEventKind::kUse, 0, &a),         // 5  0 -> 0.25: every last use
      event(MemoryEventKind::kUse, 0, &b),         // 6
      event(MemoryEventKind::kUse, 0, &c),         // 7
      event(MemoryEventKind::kUse, 0, &d),         // 8
      event(MemoryEventKind::kTensorCreated),      // 9  0.25
      event(MemoryEventKind::kUse, 0, &z),         // 10 0.25 -> 0.5
      event(MemoryEventKind::kFree, 10, &a),       // 11 0.5: no holder said: its last handle
      by_node,                                     // 12 0.5
      event(MemoryEventKind::kCollection),         // 13 0.5: finds nothing (c reachable)
      event(MemoryEventKind::kUse, 0, &z),         // 14 0.5 -> 0.75
      by_scope,                                    // 15 0.75
      event(MemoryEventKind::kUse, 0, &z),         // 16 0.75 -> 1
      event(MemoryEventKind::kMark),               // 17 1 (the step's end)
      event(MemoryEventKind::kCollection),         // 18 1: finds c
      by_alias,                                    // 19 1
  };
  const HeldDead r = held_dead(h);
  const auto share = [&](std::string_view holder) {
    for (const custody::report::HeldByShare& s : r.held_by) {
      if (s.holder == holder) return s.held_dead_byte_steps;
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(share("its last handle"), 10 * 0.25);
  EXPECT_DOUBLE_EQ(share("the autograd node relu"), 5 * 0.25);
  // The scope's site folds to its first frame (a fake program counter here, printed as such).
  const auto scope = std::find_if(r.held_by.begin(), r.held_by.end(), [](const auto& s) {
    return absl::StartsWith(s.holder, "the dispose scope opened at ");
  });
  ASSERT_NE(scope, r.held_by.end());
  EXPECT_DOUBLE_EQ(scope->held_dead_byte_steps, 20 * 0.5);
  EXPECT_EQ(r.held_by[0].holder, "garbage awaiting a collection");  // most held first
  EXPECT_DOUBLE_EQ(share("its gc alias, still reachable"), 40 * 0.25);
  EXPECT_DOUBLE_EQ(share("garbage awaiting a collection"), 40 * 0.5);
  double sum = 0;
  for (const custody::report::HeldByShare& s : r.held_by) sum += s.held_dead_byte_steps;
  EXPECT_DOUBLE_EQ(sum, r.held_dead_byte_steps);
  EXPECT_EQ(r.held_by.size(), 5u);
}

TEST(HeldDeadTest, LibraryFramesAreCustodysStdAndAbseils) {
  using custody::report::is_library_frame;
  EXPECT_TRUE(is_library_frame("custody::internal::Ops<>::empty()"));
  EXPECT_TRUE(is_library_frame("custody::BasicTensor<>::add()"));
  EXPECT_TRUE(is_library_frame("std::_Function_handler<>::_M_invoke()"));
  EXPECT_FALSE(is_library_frame("custody::workloads::mlp::DisposeRunner::step()"));
  EXPECT_FALSE(is_library_frame("(anonymous namespace)::make_kept()"));
  EXPECT_FALSE(is_library_frame("main"));
  // Demangled in full: a function template's name starts with its return type.
  EXPECT_TRUE(is_library_frame("void* custody::internal::allocate_or_throw<custody::Onednn>(long, char const*)"));
  EXPECT_TRUE(is_library_frame("absl::StatusOr<void*> custody::internal::allocate_once<custody::Onednn>(unsigned long)"));
  EXPECT_FALSE(is_library_frame("std::vector<int> custody::workloads::mlp::make<float>(int)"));
  EXPECT_FALSE(is_library_frame("custody::workloads::mlp::Trainer<custody::BasicTensor<A, B> >::step()::{lambda()#1}::operator()() const"));
}

// ---- a recorded history ------------------------------------------------------------

using T = custody::tensor_ptr::TensorPtrOn<custody::Onednn>;
constexpr int64_t kKeptBytes = 256 * 256 * 4;

constexpr int kMakeKeptLine = __LINE__ + 1;  // the line of the allocating call
ABSL_ATTRIBUTE_NOINLINE T make_kept() { return T::ones({256, 256}); }
ABSL_ATTRIBUTE_NOINLINE T make_scratch() { return custody::tensor_ptr::ones<custody::Onednn>({64, 64}); }

// Each step makes a 256 KiB tensor, reads it once at the start, and keeps it
// to the end of the step while 40 small ops run (the waste); the scratch
// tensors are released as soon as they are read.
TEST(HeldDeadTest, FindsATensorKeptPastItsLastUseAtTheFunctionThatMadeIt) {
  custody::MemoryStats& stats = custody::Onednn::stats();
  stats.record_history(true, /*with_sites=*/true);
  stats.mark();
  constexpr int kSteps = 4;
  for (int s = 0; s < kSteps; ++s) {
    T kept = make_kept();
    T total = kept.sum();  // its last use
    for (int i = 0; i < 40; ++i) {
      T scratch = make_scratch();
      T r = scratch.mul(2.0);
      scratch.reset();
      r.reset();
    }
    kept.reset();
    total.reset();
    stats.mark();
  }
  stats.record_history(false);
  const std::vector<MemoryEvent> history = stats.history();
  stats.clear_history();
  const HeldDead r = held_dead(history);
  EXPECT_EQ(r.steps, kSteps);
  ASSERT_FALSE(r.sites.empty());
  const SiteHeld& top = r.sites[0];
  EXPECT_TRUE(absl::StrContains(top.frame, "make_kept")) << top.frame << "\n" << top.stack;
  // At its file:line (core/symbolize.h), with the op that allocated it.
  EXPECT_TRUE(absl::StartsWith(top.frame, absl::StrCat("custody/report/held_dead_test.cc:", kMakeKeptLine, " ")))
      << top.frame;
  EXPECT_EQ(top.ops, std::vector<std::string>{"ones"});
  EXPECT_EQ(top.allocations, kSteps);
  EXPECT_EQ(top.bytes, kSteps * kKeptBytes);
  // Dead for nearly all of each step (40 of the step's ~41 small rounds).
  EXPECT_GT(top.held_dead_byte_steps, 0.8 * kKeptBytes * kSteps) << top.held_dead_byte_steps;
  EXPECT_LT(top.held_dead_byte_steps, 1.0 * kKeptBytes * kSteps);
  EXPECT_TRUE(absl::StrContains(top.stack, "make_kept")) << top.stack;
  // The scratch tensors, released right after their use, hold little dead.
  for (const SiteHeld& s : r.sites) {
    if (absl::StrContains(s.frame, "make_scratch")) {
      EXPECT_LT(s.held_dead_byte_steps, 0.01 * s.byte_steps) << s.frame;
    }
  }
  // The totals reconcile: what the program held minus the bound's schedule.
  double sum = 0;
  for (const SiteHeld& s : r.sites) sum += s.held_dead_byte_steps;
  EXPECT_NEAR(sum, r.held_dead_byte_steps, 1e-6 * r.byte_steps);
  EXPECT_NEAR(r.byte_steps - r.bound_byte_steps, r.held_dead_byte_steps, 1e-6 * r.byte_steps);
  EXPECT_GE(r.dead_at_peak_bytes, 0);
}

constexpr int kReluLine = __LINE__ + 2;  // the line that records relu
ABSL_ATTRIBUTE_NOINLINE T forward_keeping_the_graph(const T& x) {
  T h = x.relu();
  return h.sum();
}

// A loss kept past its backward (no backward at all here) holds what relu
// saved: the report finds it at the call that recorded relu, under its name.
TEST(HeldDeadTest, FindsATensorSavedForBackwardAtTheOpThatSavedIt) {
  custody::MemoryStats& stats = custody::Onednn::stats();
  T x = make_kept();
  x.requires_grad_();
  stats.record_history(true, /*with_sites=*/true);
  stats.mark();
  std::vector<T> losses;  // kept across steps, as pytorch/pytorch #4890's running total
  for (int s = 0; s < 3; ++s) {
    losses.push_back(forward_keeping_the_graph(x));
    for (int i = 0; i < 10; ++i) make_scratch().mul(2.0);
    stats.mark();
  }
  losses.clear();
  stats.mark();
  stats.record_history(false);
  const std::vector<MemoryEvent> history = stats.history();
  stats.clear_history();
  const HeldDead r = held_dead(history);
  ASSERT_FALSE(r.sites.empty());
  const SiteHeld& top = r.sites[0];
  EXPECT_EQ(top.saved_by, "relu") << top.frame;
  EXPECT_EQ(top.category, custody::MemoryCategory::kAutogradSaved);
  EXPECT_TRUE(absl::StrContains(top.frame, "forward_keeping_the_graph")) << top.frame << "\n" << top.stack;
  EXPECT_TRUE(absl::StartsWith(top.frame, absl::StrCat("custody/report/held_dead_test.cc:", kReluLine, " ")))
      << top.frame;
  EXPECT_EQ(top.ops, std::vector<std::string>{"relu"});
  EXPECT_EQ(top.bytes, 3 * kKeptBytes);
  EXPECT_GT(r.held_dead_by_category[static_cast<size_t>(custody::MemoryCategory::kAutogradSaved)], 0);
}

// A tensor made on one thread and released on another is counted once; the
// ones made and released on the same thread are not.
TEST(HeldDeadTest, CountsTheFreesMadeOnAnotherThread) {
  custody::MemoryStats& stats = custody::Onednn::stats();
  stats.record_history(true);
  stats.mark();
  T here = make_scratch();
  T moved = make_scratch();
  std::thread([t = std::move(moved)]() mutable { t.reset(); }).join();
  T there;
  std::thread([&there] { there = make_scratch(); }).join();
  here.reset();
  there.reset();  // made on the other thread, freed here
  stats.mark();
  stats.record_history(false);
  const std::vector<MemoryEvent> history = stats.history();
  stats.clear_history();
  const HeldDead r = held_dead(history);
  EXPECT_EQ(r.cross_thread_frees, 2);
  EXPECT_EQ(r.out_of_order_allocs, 0);
}

// A free recorded after its address was given out again (a recorder out of
// order) is counted, not silently paired with the new block.
TEST(HeldDeadTest, CountsAllocationsAtAnAddressStillOpen) {
  int a = 0, b = 0;
  const std::vector<MemoryEvent> in_order = {
      event(MemoryEventKind::kMark),          event(MemoryEventKind::kAlloc, 8, &a),
      event(MemoryEventKind::kFree, 8, &a),   event(MemoryEventKind::kAlloc, 8, &a),
      event(MemoryEventKind::kAlloc, 8, &b),  event(MemoryEventKind::kFree, 8, &a),
      event(MemoryEventKind::kFree, 8, &b),   event(MemoryEventKind::kMark),
  };
  EXPECT_EQ(held_dead(in_order).out_of_order_allocs, 0);
  std::vector<MemoryEvent> late = in_order;
  std::swap(late[2], late[3]);  // the second block's allocation before the first's free
  // The late free closes the second block: the peak comes out 8, not 16.
  EXPECT_EQ(held_dead(late).out_of_order_allocs, 1);
}

}  // namespace
