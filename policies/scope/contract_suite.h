// Copyright 2026 The custody Authors.
//
// The scope policy's own contract (docs/design.md §5.4: TorchSharp technique 3 and
// ocaml-torch's rc scopes), run on every backend; and the test idiom the
// generic suites use under this policy: a dispose scope around each test body
// (and around each thread's work in the threads suite).

#ifndef CUSTODY_POLICIES_SCOPE_CONTRACT_SUITE_H_
#define CUSTODY_POLICIES_SCOPE_CONTRACT_SUITE_H_

#include <atomic>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/sites.h"
#include "policies/scope/scope.h"
#include "policies/scope/testing.h"
#include "testing/disposable_checks.h"
#include "testing/harness.h"

namespace custody::testing {

template <class T>
class ScopeContractTest : public ConformanceTest<T> {
 protected:
  static int64_t live() { return ConformanceTest<T>::stats().live_tensors; }
  static int64_t bytes() { return ConformanceTest<T>::stats().bytes_in_use; }
  // Runs `fn` on a fresh thread, which has no dispose scope open.
  template <class Fn>
  static void on_fresh_thread(Fn fn) {
    std::thread th(fn);
    th.join();
  }
};
TYPED_TEST_SUITE_P(ScopeContractTest);

// A helper that creates tensors without a scope of its own: they land in the caller's.
template <class T>
T make_temporaries_and_sum(int n) {
  T acc = T::zeros({4});
  for (int i = 0; i < n; ++i) acc = acc.add(T::ones({4}));
  return acc;
}

// ---- scopes dispose what was created in them --------------------------------

TYPED_TEST_P(ScopeContractTest, TensorsCreatedInAScopeDieWithIt) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live(), bytes0 = TestFixture::bytes();
  {
    auto d = scope::new_dispose_scope();
    T a = T::ones({256});
    T b = a.mul(2).exp();  // temporaries included
    EXPECT_EQ(TestFixture::live(), live0 + 3);
    EXPECT_EQ(d.size(), 3);
  }
  EXPECT_EQ(TestFixture::live(), live0);
  EXPECT_EQ(TestFixture::bytes(), bytes0);
}

TYPED_TEST_P(ScopeContractTest, HandleDestructorDoesNotDisposeAScopedTensor) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  const int64_t live0 = TestFixture::live();
  { T a = T::zeros({8}); }
  EXPECT_EQ(TestFixture::live(), live0 + 1) << "the scope, not the handle, owns the tensor";
  d.dispose();
  EXPECT_EQ(TestFixture::live(), live0) << "the scope's end gives it back";
}

TYPED_TEST_P(ScopeContractTest, NestedScopesReturnTheLiveCountToItsValueBefore) {
  using T = TypeParam;
  T outer = T::ones({4});
  for (int depth = 1; depth <= 3; ++depth) {
    const int64_t live0 = TestFixture::live(), bytes0 = TestFixture::bytes();
    const int64_t depth0 = scope::depth();
    {
      auto d1 = scope::new_dispose_scope();
      T x = outer.add(1);
      {
        auto d2 = scope::new_dispose_scope();
        T y = x.mul(x).sum();
        if (depth > 1) {
          auto d3 = scope::new_dispose_scope();
          T z = y.add(outer).neg();
          EXPECT_EQ(scope::depth(), depth0 + 3);
        }
        EXPECT_EQ(TestFixture::live(), live0 + 3);
      }
      EXPECT_EQ(TestFixture::live(), live0 + 1) << "the inner scope gave back only its own";
    }
    EXPECT_EQ(TestFixture::live(), live0);
    EXPECT_EQ(TestFixture::bytes(), bytes0);
    EXPECT_EQ(scope::depth(), depth0);
  }
}

TYPED_TEST_P(ScopeContractTest, TheInnermostScopeRegisters) {
  using T = TypeParam;
  auto d1 = scope::new_dispose_scope();
  T a = T::ones({2});
  T b;
  {
    auto d2 = scope::new_dispose_scope();
    b = T::zeros({2});
    EXPECT_EQ(d1.size(), 1);
    EXPECT_EQ(d2.size(), 1);
  }
  EXPECT_FALSE(a.is_disposed());
  EXPECT_TRUE(b.is_disposed()) << "b was created while d2 was innermost";
}

TYPED_TEST_P(ScopeContractTest, ScopesAreDynamic) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  {
    auto d = scope::new_dispose_scope();
    T s = make_temporaries_and_sum<T>(5);
    EXPECT_EQ(values_of(s), std::vector<double>({5, 5, 5, 5}));
    EXPECT_EQ(d.size(), 1 + 5 * 2) << "the callee's temporaries registered in the caller's scope";
  }
  EXPECT_EQ(TestFixture::live(), live0);
}

// ---- dispose_everything(_but) ------------------------------------------------

TYPED_TEST_P(ScopeContractTest, DisposeEverythingDisposesAllAndKeepsTheScopeOpen) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  auto d = scope::new_dispose_scope();
  T a = T::ones({3});
  T b = a.add(a);
  d.dispose_everything();
  EXPECT_TRUE(a.is_disposed());
  EXPECT_TRUE(b.is_disposed());
  EXPECT_EQ(TestFixture::live(), live0);
  T c = T::zeros({3});  // the scope is still open and registers
  EXPECT_EQ(d.size(), 1);
  d.dispose();
  EXPECT_TRUE(c.is_disposed());
}

TYPED_TEST_P(ScopeContractTest, DisposeEverythingButKeepsOnlyTheNamedAndTheyDieWithTheScope) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  T kept1, kept2, gone;
  {
    auto d = scope::new_dispose_scope();
    kept1 = T::ones({2});
    kept2 = T::full(std::vector<int64_t>{2}, 3.0f);
    gone = kept1.add(kept2);
    T also_gone = gone.mul(2);
    d.dispose_everything_but(kept1, kept2);
    EXPECT_FALSE(kept1.is_disposed());
    EXPECT_FALSE(kept2.is_disposed());
    EXPECT_TRUE(gone.is_disposed());
    EXPECT_TRUE(also_gone.is_disposed());
    EXPECT_EQ(TestFixture::live(), live0 + 2);
    EXPECT_EQ(d.size(), 2);
    EXPECT_EQ(values_of(kept2), std::vector<double>({3, 3}));
  }
  EXPECT_TRUE(kept1.is_disposed()) << "kept tensors stay registered and die with the scope";
  EXPECT_TRUE(kept2.is_disposed());
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, DisposeEverythingButTakesAVector) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  std::vector<T> keep = {T::ones({1}), T::zeros({1})};
  T tmp = keep[0].add(keep[1]);
  d.dispose_everything_but(keep);
  EXPECT_FALSE(keep[0].is_disposed());
  EXPECT_FALSE(keep[1].is_disposed());
  EXPECT_TRUE(tmp.is_disposed());
}

// ---- moving tensors out --------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, ATensorMovedOutOfAnInnerScopeLivesUntilTheOuterEnds) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  T result;
  {
    auto outer = scope::new_dispose_scope();
    {
      auto inner = scope::new_dispose_scope();
      T x = T::ones({4});
      result = x.mul(5).move_to_outer_dispose_scope();
      EXPECT_EQ(outer.size(), 1);
    }
    EXPECT_FALSE(result.is_disposed());
    EXPECT_EQ(values_of(result), std::vector<double>({5, 5, 5, 5}));
    EXPECT_EQ(TestFixture::live(), live0 + 1);
  }
  EXPECT_TRUE(result.is_disposed());
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, AccumulatorLoopFromTheGuide) {
  // tensor = (tensor + x.log()).MoveToOuterDisposeScope() inside a per-step scope.
  using T = TypeParam;
  auto d0 = scope::new_dispose_scope();
  T acc = T::zeros({3});
  const int64_t live0 = TestFixture::live();
  for (int i = 0; i < 10; ++i) {
    auto d1 = scope::new_dispose_scope();
    T x = T::full(std::vector<int64_t>{3}, 1.0f).exp();  // log(x) == 1
    acc = acc.add(x.log()).move_to_outer_dispose_scope();
  }
  EXPECT_NEAR(values_of(acc)[0], 10.0, 1e-4);
  EXPECT_EQ(TestFixture::live(), live0 + 10) << "each step's acc moved out to d0 (the guide's note)";
  EXPECT_EQ(d0.size(), 11);
}

template <class T>
T build_in_own_scope() {
  auto d = scope::new_dispose_scope();
  T t = T::zeros({2});
  for (int i = 0; i < 3; ++i) t = t.add(1);
  return t.move_to_outer_dispose_scope();
}

TYPED_TEST_P(ScopeContractTest, ReturningFromAFunctionWithItsOwnScope) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  const int64_t live0 = TestFixture::live();
  T t = build_in_own_scope<T>();
  EXPECT_EQ(values_of(t), std::vector<double>({3, 3}));
  EXPECT_EQ(TestFixture::live(), live0 + 1) << "only the result survives the callee's scope";
  EXPECT_TRUE(t.is_in_dispose_scope());
}

TYPED_TEST_P(ScopeContractTest, MoveToOuterWithNoOuterScopeDetaches) {
  using T = TypeParam;
  T kept;
  this->on_fresh_thread([&] {
    auto only = scope::new_dispose_scope();
    kept = T::ones({2}).move_to_outer_dispose_scope();
    EXPECT_FALSE(kept.is_in_dispose_scope());
  });
  EXPECT_FALSE(kept.is_disposed());
  EXPECT_EQ(values_of(kept), std::vector<double>({1, 1}));
  kept.dispose();
}

TYPED_TEST_P(ScopeContractTest, MoveToOuterOfADetachedTensorIsANoOp) {
  using T = TypeParam;
  T a = T::ones({1}).detach_from_dispose_scope();
  (void)a.move_to_outer_dispose_scope();
  EXPECT_FALSE(a.is_in_dispose_scope());
  a.dispose();
}

TYPED_TEST_P(ScopeContractTest, DetachedTensorSurvivesItsScopeAndItsLastHandleGivesItBack) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live(), bytes0 = TestFixture::bytes();
  {
    T kept;
    {
      auto d = scope::new_dispose_scope();
      kept = T::ones({128}).detach_from_dispose_scope();
      EXPECT_EQ(d.size(), 0);
    }
    EXPECT_FALSE(kept.is_disposed());
    T copy = kept;  // another handle to the same entry
    EXPECT_EQ(TestFixture::live(), live0 + 1);
  }
  EXPECT_EQ(TestFixture::live(), live0) << "detached tensors belong to their handles: nothing leaks";
  EXPECT_EQ(TestFixture::bytes(), bytes0);
}

TYPED_TEST_P(ScopeContractTest, DetachedTensorCanBeDisposedByHand) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  T a = T::ones({4}).detach_from_dispose_scope();
  EXPECT_EQ(TestFixture::live(), live0 + 1);
  a.dispose();
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, AttachRegistersADetachedTensor) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  T a = T::ones({2}).detach_from_dispose_scope();
  {
    auto d = scope::new_dispose_scope();
    d.attach(a);
    EXPECT_TRUE(a.is_in_dispose_scope());
    EXPECT_EQ(d.size(), 1);
  }
  EXPECT_TRUE(a.is_disposed());
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, MoveToOtherDisposeScope) {
  using T = TypeParam;
  auto keeper = scope::new_dispose_scope();
  T a;
  {
    auto work = scope::new_dispose_scope();
    a = T::ones({2}).move_to_other_dispose_scope(keeper);
    T tmp = T::zeros({2});
    EXPECT_EQ(keeper.size(), 1);
    EXPECT_EQ(work.size(), 1);
  }
  EXPECT_FALSE(a.is_disposed());
  keeper.dispose();
  EXPECT_TRUE(a.is_disposed());
}

TYPED_TEST_P(ScopeContractTest, AttachToAnEndedScopeIsALifetimeError) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  d.dispose();
  T a = T::ones({1});
  EXPECT_THROW(d.attach(a), LifetimeError);
  EXPECT_THROW((void)a.move_to_other_dispose_scope(d), LifetimeError);
  EXPECT_THROW(d.dispose_everything(), LifetimeError);
}

// ---- scope stack ----------------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, ScopesClosedOutOfOrderAreUnlinkedSafely) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  const int64_t depth0 = scope::depth();
  auto outer = scope::new_dispose_scope();
  T a = T::ones({2});
  auto middle = scope::new_dispose_scope();
  T b = T::ones({2});
  auto inner = scope::new_dispose_scope();
  T c = T::ones({2});
  middle.dispose();  // not innermost
  EXPECT_TRUE(b.is_disposed());
  EXPECT_FALSE(a.is_disposed());
  EXPECT_FALSE(c.is_disposed());
  EXPECT_EQ(scope::depth(), depth0 + 2);
  T d = T::zeros({2});  // still lands in `inner`
  EXPECT_EQ(inner.size(), 2);
  T e = c.move_to_outer_dispose_scope();  // inner's outer is now `outer`
  EXPECT_EQ(outer.size(), 2);
  outer.dispose();  // out of order again
  EXPECT_TRUE(c.is_disposed());
  EXPECT_FALSE(d.is_disposed());
  inner.dispose();
  EXPECT_EQ(scope::depth(), depth0);
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, EndingAScopeIsIdempotent) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  T a = T::ones({1});
  d.dispose();
  d.dispose();
  EXPECT_TRUE(d.is_disposed());
  EXPECT_EQ(d.size(), 0);
  EXPECT_TRUE(a.is_disposed());
}

TYPED_TEST_P(ScopeContractTest, AScopeEndsOnlyOnItsOwnThread) {
  using T = TypeParam;
  static_assert(!std::is_move_constructible_v<scope::DisposeScope>,
                "a scope is not movable: it ends on the thread that opened it");
  auto d = scope::new_dispose_scope();
  T a = T::ones({2});
  std::string message;
  this->on_fresh_thread([&] {
    try {
      d.dispose();
    } catch (const LifetimeError& e) {
      message = e.what();
    }
    EXPECT_THROW(d.dispose_everything(), LifetimeError);
    EXPECT_THROW((void)a.detach_from_dispose_scope(), LifetimeError);
    EXPECT_THROW((void)a.move_to_outer_dispose_scope(), LifetimeError);
  });
  EXPECT_NE(message.find("another thread"), std::string::npos) << message;
  EXPECT_FALSE(a.is_disposed());
  EXPECT_TRUE(a.is_in_dispose_scope());
}

TYPED_TEST_P(ScopeContractTest, DisposingAScopedTensorFromAnotherThreadGivesItBackOnce) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  auto d = scope::new_dispose_scope();
  T a = T::ones({64});
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([a]() mutable { a.dispose(); });
  for (auto& t : threads) t.join();
  EXPECT_TRUE(a.is_disposed());
  EXPECT_FALSE(a.is_in_dispose_scope());
  EXPECT_EQ(TestFixture::live(), live0) << "given back exactly once";
  EXPECT_EQ(d.size(), 1) << "the empty entry stays registered until the scope ends";
  d.dispose();
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, AHandleDroppedOnAnotherThreadWhileTheOwnerDisposesFreesOnce) {
  // The owner thread skips the atomics only when every anchor of the entry is
  // its own (scope.cc, Note [Scope owner fast paths]). Here another thread
  // drops its copies of 256 tensors while the owner, in the same order,
  // disposes them, drops its own handles or ends their scope: each entry must
  // end with one disposal and one free, whichever thread comes last (a lost
  // update leaves a tensor live or frees an entry twice; tsan runs this in CI).
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  constexpr int kTensors = 256;
  for (int round = 0; round < 60; ++round) {
    std::optional<scope::DisposeScope> d;
    d.emplace();
    std::vector<T> mine, theirs;
    for (int i = 0; i < kTensors; ++i) mine.push_back(T::ones({1}));
    theirs = mine;
    std::atomic<bool> go{false};
    std::thread other([&theirs, &go] {
      while (!go.load(std::memory_order_acquire)) {
      }
      for (T& t : theirs) t = T();  // drops the other thread's handles
    });
    go.store(true, std::memory_order_release);
    for (T& t : mine) {
      switch (round % 3) {
        case 0: t.dispose(); break;
        case 1: t = T(); break;  // the owner's handle goes; the scope keeps the tensor
        case 2: break;           // the scope ends below
      }
    }
    d.reset();
    other.join();
    ASSERT_EQ(TestFixture::live(), live0) << "round " << round;
    for (const T& t : mine) ASSERT_TRUE(t.is_disposed()) << "round " << round;
  }
}

TYPED_TEST_P(ScopeContractTest, CodeRunByADisposalSeesNoHalfEndedScope) {
  // A from_blob deleter runs when the scope gives the blob back; tensors it
  // creates land in the enclosing scope, and the scope's other tensors are fine.
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  BackendBuffer<typename T::backend_type> data({1, 2, 3});
  int64_t made_in_deleter = 0;
  auto outer = scope::new_dispose_scope();
  T survivor;
  {
    auto d = scope::new_dispose_scope();
    T before = T::ones({2});
    T blob = T::from_blob(data.data(), std::vector<int64_t>{3}, ScalarType::Float, [&](void*) {
      T made = T::zeros({1});
      made_in_deleter = made.numel();
      survivor = made;
    });
    T after = blob.mul(2);
  }
  EXPECT_EQ(made_in_deleter, 1);
  EXPECT_FALSE(survivor.is_disposed()) << "registered in the enclosing scope";
  EXPECT_EQ(outer.size(), 1);
  outer.dispose();
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, WithRcScopeRefusesContainersOfTensorsAtCompileTime) {
  using T = TypeParam;
  static_assert(scope::internal::kHoldsScopeHandle<T>);
  static_assert(scope::internal::kHoldsScopeHandle<std::vector<T>>);
  static_assert(scope::internal::kHoldsScopeHandle<std::optional<T>>);
  static_assert(scope::internal::kHoldsScopeHandle<std::pair<int, T>>);
  static_assert(scope::internal::kHoldsScopeHandle<std::tuple<float, std::vector<T>>>);
  static_assert(!scope::internal::kHoldsScopeHandle<std::vector<double>>);
  static_assert(!scope::internal::kHoldsScopeHandle<std::string>);
  SUCCEED();
}

TYPED_TEST_P(ScopeContractTest, AllowUnscopedIsPerThread) {
  using T = TypeParam;
  std::atomic<int> stage{0};
  bool other_allowed = true;
  std::thread other([&] {
    while (stage.load() < 1) std::this_thread::yield();
    other_allowed = scope::allow_unscoped();
    stage = 2;
  });
  {
    scope::AllowUnscoped allow;
    EXPECT_TRUE(scope::allow_unscoped());
    stage = 1;
    while (stage.load() < 2) std::this_thread::yield();
  }
  other.join();
  EXPECT_FALSE(other_allowed) << "an AllowUnscoped block affects only its own thread";
  EXPECT_FALSE(scope::allow_unscoped());
  (void)sizeof(T);
}

// ---- no scope ------------------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, CreatingATensorWithNoScopeIsALifetimeErrorThatSaysToAddOne) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  std::string message;
  this->on_fresh_thread([&] {
    try {
      (void)T::ones({2});
    } catch (const LifetimeError& e) {
      message = e.what();
    }
  });
  EXPECT_NE(message.find("no dispose scope"), std::string::npos) << message;
  EXPECT_NE(message.find("new_dispose_scope"), std::string::npos) << message;
  EXPECT_EQ(TestFixture::live(), live0) << "the refused tensor was given back";
}

TYPED_TEST_P(ScopeContractTest, UnscopedTensorsWhenAllowedAreCountedOutside) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  scope::Statistics seen;
  this->on_fresh_thread([&] {
    scope::AllowUnscoped allow;
    scope::thread_statistics().reset();
    T a = T::ones({2});
    T b = a.add(1);
    b.dispose();
    b.dispose();
    seen = scope::thread_statistics();
    // `a` is given back by its last handle.
  });
  EXPECT_FALSE(scope::allow_unscoped()) << "AllowUnscoped restores the default";
  EXPECT_EQ(seen.created_outside_scope, 2);
  EXPECT_EQ(seen.disposed_outside_scope, 1);
  EXPECT_EQ(seen.created_in_scope, 0);
  EXPECT_EQ(TestFixture::live(), live0);
}

// ---- early dispose and statistics --------------------------------------------

TYPED_TEST_P(ScopeContractTest, DisposeGivesBackNowAndTwiceCountsOnce) {
  using T = TypeParam;
  custody::testing::ExpectDisposeIsIdempotent<T>();  // testing/disposable_checks.h; then scope's counts
  scope::Statistics& st = scope::thread_statistics();
  auto d = scope::new_dispose_scope();
  st.reset();
  const int64_t live0 = TestFixture::live();
  T a = T::ones({64});
  T copy = a;
  a.dispose();
  copy.dispose();
  custody::release(a);
  EXPECT_EQ(TestFixture::live(), live0);
  EXPECT_EQ(st.created_in_scope, 1);
  EXPECT_EQ(st.disposed_in_scope, 1) << "disposing twice counts once";
  EXPECT_EQ(d.size(), 0) << "a disposed tensor leaves its scope";
  d.dispose();
  EXPECT_EQ(st.disposed_in_scope, 1) << "the scope's end does not count it again";
  EXPECT_EQ(st.live(), 0);
}

TYPED_TEST_P(ScopeContractTest, StatisticsAreExactAndReset) {
  using T = TypeParam;
  scope::Statistics& st = scope::thread_statistics();
  st.reset();
  {
    auto d = scope::new_dispose_scope();
    T a = T::ones({2});
    T b = a.add(a);
    T c = b.detach_from_dispose_scope();
    EXPECT_EQ(st.created_in_scope, 2);
    EXPECT_EQ(st.detached_from_scope, 1);
    d.attach(c);
    EXPECT_EQ(st.attached_to_scope, 1);
    EXPECT_EQ(st.live(), 2);
  }
  EXPECT_EQ(st.disposed_in_scope, 2);
  EXPECT_EQ(st.live(), 0);
  const std::string s = st.to_string();
  EXPECT_NE(s.find("created in scope 2"), std::string::npos) << s;
  EXPECT_NE(s.find("live 0"), std::string::npos) << s;
  st.reset();
  EXPECT_EQ(st.created_in_scope, 0);
  EXPECT_EQ(st.disposed_in_scope, 0);
  EXPECT_EQ(st.attached_to_scope, 0);
}

TYPED_TEST_P(ScopeContractTest, HandleCopiesShareTheEntryAliasIsIndependent) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  T a = T::full(std::vector<int64_t>{2}, 4.0f);
  T copy = a;
  T al = a.alias();
  copy.dispose();
  EXPECT_TRUE(a.is_disposed()) << "a copy of a handle is the same C# reference";
  EXPECT_FALSE(al.is_disposed()) << "alias() is a new reference";
  EXPECT_EQ(values_of(al), std::vector<double>({4, 4}));
}

// ---- lent references (Note [Lent references]) ----------------------------------------

TYPED_TEST_P(ScopeContractTest, AnAliasOnTheOwningThreadSharesItsSourcesReference) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  const int64_t live0 = TestFixture::live();
  T a = T::full(std::vector<int64_t>{2}, 3.0f);
  T b = a.alias();
  T c = b.add_(1);  // an in-place op's result is another alias
  EXPECT_EQ(a.impl().use_count(), 1) << "one reference on the TensorImpl, lent to three entries";
  EXPECT_EQ(scope::testing::use_count(a), 3) << "each entry counts as the user sees it";
  EXPECT_EQ(d.size(), 3);
  a.dispose();
  c.dispose();
  EXPECT_TRUE(a.is_disposed());
  EXPECT_EQ(scope::testing::use_count(b), 1);
  EXPECT_EQ(values_of(b), std::vector<double>({4, 4}));
  EXPECT_EQ(TestFixture::live(), live0 + 1);
  b.dispose();
  EXPECT_EQ(TestFixture::live(), live0) << "the last entry of the share gives the reference back";
}

TYPED_TEST_P(ScopeContractTest, ALentAliasOutlivesItsSourcesScope) {
  using T = TypeParam;
  auto outer = scope::new_dispose_scope();
  const int64_t live0 = TestFixture::live();
  T kept;
  {
    auto inner = scope::new_dispose_scope();
    T a = T::ones({3});
    kept = a.alias().move_to_outer_dispose_scope();
  }
  EXPECT_EQ(TestFixture::live(), live0 + 1);
  EXPECT_EQ(scope::testing::use_count(kept), 1);
  EXPECT_EQ(values_of(kept), std::vector<double>({1, 1, 1}));
  outer.dispose();
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, ADetachedAliasTakesAReferenceOfItsOwn) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  T b;
  {
    auto d = scope::new_dispose_scope();
    T a = T::ones({2});
    b = a.alias();
    b.detach_from_dispose_scope();
    EXPECT_EQ(a.impl().use_count(), 2) << "detached: a reference any thread may give back";
  }
  EXPECT_EQ(TestFixture::live(), live0 + 1);
  std::thread([t = std::move(b)]() mutable { t.dispose(); }).join();
  EXPECT_EQ(TestFixture::live(), live0) << "its last handle's thread gave it back at once";
}

TYPED_TEST_P(ScopeContractTest, ALentAliasDisposedOnAnotherThreadIsGoneAtOnceItsMemoryAtScopeEnd) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  {
    auto d = scope::new_dispose_scope();
    T a = T::ones({2});
    T b = a.alias();
    a.dispose();
    std::thread([t = b]() mutable { t.dispose(); }).join();
    EXPECT_TRUE(b.is_disposed()) << "disposed for every thread at once";
    EXPECT_THROW((void)b.numel(), LifetimeError);
    EXPECT_EQ(TestFixture::live(), live0 + 1) << "the share holds the TensorImpl until the scope ends";
    b.dispose();  // idempotent, on the owning thread too
  }
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, AnAliasMadeOnAnotherThreadHasAReferenceOfItsOwn) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  T a = T::ones({2});
  int64_t during = 0;
  TestFixture::on_fresh_thread([&] {
    auto theirs = scope::new_dispose_scope();
    T b = a.alias();
    during = a.impl().use_count();
  });
  EXPECT_EQ(during, 2) << "a's entry belongs to this thread's scope: nothing to lend across threads";
  EXPECT_EQ(a.impl().use_count(), 1);
}

// ---- lifetime errors ---------------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, UseAfterScopeEndIsALifetimeErrorNamingTheOpAndTheCause) {
  using T = TypeParam;
  T escaped;
  {
    auto d = scope::new_dispose_scope();
    escaped = T::ones({2});
  }
  CUSTODY_EXPECT_THROWS(LifetimeError, escaped.sum(), "sum:", "scope it was registered in has ended",
                        "move_to_outer_dispose_scope");
}

TYPED_TEST_P(ScopeContractTest, UseAfterDisposeEverythingSaysSo) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  T a = T::ones({2});
  d.dispose_everything();
  CUSTODY_EXPECT_THROWS(LifetimeError, a.numel(), "dispose_everything_but");
}

TYPED_TEST_P(ScopeContractTest, LifetimeErrorNamesTheCreationSiteWhenTracking) {
  using T = TypeParam;
  custody::testing::ExpectUseAfterDisposeNamesTheCreationSite<T>("ScopeContractTest");
  // And a tensor its scope disposed names both sites.
  sites::ScopedTracking track(true);
  T a;
  {
    auto d = scope::new_dispose_scope();
    a = T::ones({2});
  }
  // The test's own frame is in the sites.
  CUSTODY_EXPECT_THROWS(LifetimeError, a.dim(), "created at", "disposed at", "ScopeContractTest");
}

TYPED_TEST_P(ScopeContractTest, DefaultHandleIsUnusable) {
  using T = TypeParam;
  custody::testing::ExpectDefaultHandleIsUnusable<T>();  // testing/disposable_checks.h
  T a;
  EXPECT_FALSE(a.is_in_dispose_scope());
  EXPECT_THROW((void)a.move_to_outer_dispose_scope(), LifetimeError);
}

// ---- exceptions (G9) ---------------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, AnExceptionInsideADisposeScopeLeaksNothingAndPropagates) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live(), bytes0 = TestFixture::bytes();
  EXPECT_THROW(
      {
        auto d = scope::new_dispose_scope();
        T a = T::ones({32});
        T b = a.add(1);
        (void)b.matmul(T::ones({3, 3}));  // ShapeError from inside the scope
      },
      ShapeError);
  EXPECT_EQ(TestFixture::live(), live0);
  EXPECT_EQ(TestFixture::bytes(), bytes0);
}

TYPED_TEST_P(ScopeContractTest, AnExceptionInsideEveryRcScopeFormLeaksNothingAndPropagates) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live(), bytes0 = TestFixture::bytes();
  struct Boom : std::runtime_error {
    Boom() : std::runtime_error("boom") {}
  };
  EXPECT_THROW(scope::with_rc_scope([] {
                 T a = T::ones({16});
                 (void)a.exp();
                 throw Boom();
               }),
               Boom);
  EXPECT_THROW((void)scope::with_rc_scope_tensor([]() -> T {
                 T a = T::ones({16});
                 (void)a.exp();
                 throw Boom();
               }),
               Boom);
  EXPECT_THROW((void)scope::with_rc_scope_tensors([]() -> std::vector<T> {
                 std::vector<T> out{T::ones({16})};
                 (void)out[0].index_select(0, T::from_vector(std::vector<int64_t>{99}));
                 return out;
               }),
               Error);
  EXPECT_EQ(TestFixture::live(), live0);
  EXPECT_EQ(TestFixture::bytes(), bytes0);
}

// ---- ocaml-torch forms ---------------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, WithRcScopeDisposesEverythingAndReturnsTheValue) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  const float v = scope::with_rc_scope([] {
    T t = T::scalar(41.0f).add(T::scalar(1.0f));
    return t.template item<float>();
  });
  EXPECT_EQ(v, 42.0f);
  std::vector<double> sq = scope::with_rc_scope([] {
    T t = T::from_vector(std::vector<float>{1, 42, 1337});
    return values_of(t.mul(t));
  });
  EXPECT_EQ(sq, std::vector<double>({1, 1764, 1787569}));
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, WithRcScopeTensorTransfersWithRefcountOne) {
  // ocaml-torch's rc-scope example: nested with_rc_scope_tensor, refcount 1 inside and after.
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  int64_t inner_rc = 0, out_rc = 0;
  T outer_result = scope::with_rc_scope_tensor([&] {
    T t_out = scope::with_rc_scope_tensor([&] {
      T t_inner = T::zeros({1});
      inner_rc = scope::testing::use_count(t_inner);
      return t_inner;
    });
    out_rc = scope::testing::use_count(t_out);
    return t_out.add(1);
  });
  EXPECT_EQ(inner_rc, 1);
  EXPECT_EQ(out_rc, 1);
  EXPECT_EQ(scope::testing::use_count(outer_result), 1);
  EXPECT_EQ(values_of(outer_result), std::vector<double>({1}));
  EXPECT_EQ(TestFixture::live(), live0 + 1) << "only the final result survives, in the test's scope";
  outer_result.dispose();
}

TYPED_TEST_P(ScopeContractTest, WithRcScopeTensorsMovesAVectorOut) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  std::vector<T> out = scope::with_rc_scope_tensors([] {
    T a = T::ones({2});
    T tmp = a.mul(10);
    return std::vector<T>{tmp.add(1), tmp.sub(1)};
  });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values_of(out[0]), std::vector<double>({11, 11}));
  EXPECT_EQ(values_of(out[1]), std::vector<double>({9, 9}));
  EXPECT_EQ(scope::testing::use_count(out[0]), 1);
  EXPECT_EQ(TestFixture::live(), live0 + 2);
  for (T& t : out) t.dispose();
}

TYPED_TEST_P(ScopeContractTest, WithRcScopeTensorReturningAnOuterTensorLeavesItAlone) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  T a = T::ones({2});
  T same = scope::with_rc_scope_tensor([&] { return a; });
  EXPECT_FALSE(a.is_disposed());
  EXPECT_EQ(d.size(), 1);
  EXPECT_EQ(&same.impl(), &a.impl());
}

TYPED_TEST_P(ScopeContractTest, WithRcScopeTensorWithNoOuterScopeIsALifetimeError) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  bool threw = false;
  this->on_fresh_thread([&] {
    try {
      (void)scope::with_rc_scope_tensor([] { return T::ones({2}); });
    } catch (const LifetimeError& e) {
      threw = std::string(e.what()).find("with_rc_scope_tensor") != std::string::npos;
    }
  });
  EXPECT_TRUE(threw);
  EXPECT_EQ(TestFixture::live(), live0) << "the result died with the inner scope";
}

// ---- views and threads -------------------------------------------------------------

TYPED_TEST_P(ScopeContractTest, AViewMovedOutKeepsTheStorageOfItsDisposedBase) {
  using T = TypeParam;
  auto d = scope::new_dispose_scope();
  T row;
  {
    auto inner = scope::new_dispose_scope();
    T base = T::arange(0, 6, 1, ScalarType::Float).reshape({2, 3});
    row = base.select(0, 1).move_to_outer_dispose_scope();
  }
  EXPECT_EQ(values_of(row), std::vector<double>({3, 4, 5}));
}

TYPED_TEST_P(ScopeContractTest, ATensorHandedToAnotherThreadSurvivesTheFirstThreadsScope) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live();
  T handed;
  std::atomic<bool> stage1{false};
  std::thread producer([&] {
    auto d = scope::new_dispose_scope();
    T tmp = T::ones({8});
    handed = tmp.mul(7).detach_from_dispose_scope();
    stage1 = true;
  });  // the producer's scope ends here, disposing tmp
  producer.join();
  ASSERT_TRUE(stage1.load());
  double sum = 0;
  std::thread consumer([&] {
    auto d = scope::new_dispose_scope();
    d.attach(handed);
    sum = values_of(handed.sum())[0];
  });  // the consumer's scope disposes it
  consumer.join();
  EXPECT_EQ(sum, 56.0);
  EXPECT_TRUE(handed.is_disposed());
  EXPECT_EQ(TestFixture::live(), live0);
}

TYPED_TEST_P(ScopeContractTest, ChangingAnotherThreadsScopeIsALifetimeError) {
  using T = TypeParam;
  T mine = T::ones({2});  // registered in this thread's (the fixture's) scope
  std::string message;
  this->on_fresh_thread([&] {
    auto d = scope::new_dispose_scope();
    try {
      d.attach(mine);
    } catch (const LifetimeError& e) {
      message = e.what();
    }
  });
  EXPECT_NE(message.find("another thread"), std::string::npos) << message;
  EXPECT_FALSE(mine.is_disposed());
}

TYPED_TEST_P(ScopeContractTest, SixteenThreadsOfTwoThousandStepsEndWithZeroLiveTensors) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::live(), bytes0 = TestFixture::bytes();
  constexpr int kThreads = 16, kSteps = 2000;
  std::atomic<int> wrong{0};
  std::atomic<int64_t> thread_live{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      scope::thread_statistics().reset();
      {
        auto outer = scope::new_dispose_scope();
        T acc = T::zeros({4});
        for (int step = 0; step < kSteps; ++step) {
          auto d = scope::new_dispose_scope();
          T x = T::full(std::vector<int64_t>{4}, static_cast<float>(i));
          acc = acc.add(x.mul(0.5f).relu()).move_to_outer_dispose_scope();
          if (step % 500 == 0) outer.dispose_everything_but(acc);
        }
        if (values_of(acc)[0] != 0.5 * i * kSteps) wrong++;
      }
      thread_live += scope::thread_statistics().live();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(thread_live.load(), 0) << "per-thread statistics balance";
  EXPECT_EQ(TestFixture::live(), live0);
  EXPECT_EQ(TestFixture::bytes(), bytes0);
}

// ---- autograd (Note [Autograd under scope], policies/scope/scope.h) ----------------

// The loss moved out of the step's scope keeps its graph: the scope's end disposes the
// user's entries only, and backward after it reads what the graph saved.
TYPED_TEST_P(ScopeContractTest, AGraphOutlivesTheScopeItWasBuiltInWhenItsLossMovesOut) {
  using T = TypeParam;
  T w = T::from_vector(std::vector<float>{1, 2, 3});
  w.requires_grad_();
  const int64_t live0 = TestFixture::live();
  T loss;
  {
    auto step = scope::new_dispose_scope();
    T x = T::from_vector(std::vector<float>{0.5f, 0.25f, 0.125f});
    T y = x.mul(w).exp();
    loss = y.sum().move_to_outer_dispose_scope();
  }  // x, the product, y disposed; the graph keeps x and y's data
  EXPECT_GT(TestFixture::live(), live0 + 1) << "the graph still holds what it saved";
  loss.backward();
  T g = w.grad();
  const std::vector<float> got = g.template to_vector<float>();
  const float x[] = {0.5f, 0.25f, 0.125f}, wv[] = {1, 2, 3};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[static_cast<size_t>(i)], x[i] * std::exp(x[i] * wv[i]), 1e-5);
  g.dispose();
  loss.dispose();
  EXPECT_EQ(TestFixture::live(), live0 + 1) << "the graph went with the loss; w's gradient stays";
}

// TorchSharp #1057, #1197: a parameter made outside the step's scope keeps its gradient
// when the step's scope ends; a graph whose loss is not moved out goes with the scope.
TYPED_TEST_P(ScopeContractTest, AParameterKeepsItsGradientWhenTheStepsScopeEnds) {
  using T = TypeParam;
  T w = T::from_vector(std::vector<float>{1, 2});
  w.requires_grad_();
  const int64_t live0 = TestFixture::live();
  {
    auto step = scope::new_dispose_scope();
    T loss = w.mul(3.0).mul(w).sum();
    loss.backward();
  }
  EXPECT_EQ(TestFixture::live(), live0 + 1) << "the step's tensors and graph went; w.grad stays";
  T g = w.grad();
  EXPECT_EQ(g.template to_vector<float>(), std::vector<float>({6, 12}));
  EXPECT_TRUE(g.is_in_dispose_scope()) << "grad() is a fresh entry of the current scope";
  {
    auto step = scope::new_dispose_scope();
    T unused = w.mul(w).exp().sum();  // a graph nobody runs backward through
  }
  EXPECT_EQ(TestFixture::live(), live0 + 1) << "its scope's end took the graph with it";
}

REGISTER_TYPED_TEST_SUITE_P(
    ScopeContractTest,
    TensorsCreatedInAScopeDieWithIt,
    HandleDestructorDoesNotDisposeAScopedTensor,
    NestedScopesReturnTheLiveCountToItsValueBefore,
    TheInnermostScopeRegisters,
    ScopesAreDynamic,
    DisposeEverythingDisposesAllAndKeepsTheScopeOpen,
    DisposeEverythingButKeepsOnlyTheNamedAndTheyDieWithTheScope,
    DisposeEverythingButTakesAVector,
    ATensorMovedOutOfAnInnerScopeLivesUntilTheOuterEnds,
    AccumulatorLoopFromTheGuide,
    ReturningFromAFunctionWithItsOwnScope,
    MoveToOuterWithNoOuterScopeDetaches,
    MoveToOuterOfADetachedTensorIsANoOp,
    DetachedTensorSurvivesItsScopeAndItsLastHandleGivesItBack,
    DetachedTensorCanBeDisposedByHand,
    AttachRegistersADetachedTensor,
    MoveToOtherDisposeScope,
    AttachToAnEndedScopeIsALifetimeError,
    ScopesClosedOutOfOrderAreUnlinkedSafely,
    EndingAScopeIsIdempotent,
    AScopeEndsOnlyOnItsOwnThread,
    DisposingAScopedTensorFromAnotherThreadGivesItBackOnce,
    AHandleDroppedOnAnotherThreadWhileTheOwnerDisposesFreesOnce,
    CodeRunByADisposalSeesNoHalfEndedScope,
    WithRcScopeRefusesContainersOfTensorsAtCompileTime,
    AllowUnscopedIsPerThread,
    CreatingATensorWithNoScopeIsALifetimeErrorThatSaysToAddOne,
    UnscopedTensorsWhenAllowedAreCountedOutside,
    DisposeGivesBackNowAndTwiceCountsOnce,
    StatisticsAreExactAndReset,
    HandleCopiesShareTheEntryAliasIsIndependent,
    AnAliasOnTheOwningThreadSharesItsSourcesReference,
    ALentAliasOutlivesItsSourcesScope,
    ADetachedAliasTakesAReferenceOfItsOwn,
    ALentAliasDisposedOnAnotherThreadIsGoneAtOnceItsMemoryAtScopeEnd,
    AnAliasMadeOnAnotherThreadHasAReferenceOfItsOwn,
    UseAfterScopeEndIsALifetimeErrorNamingTheOpAndTheCause,
    UseAfterDisposeEverythingSaysSo,
    LifetimeErrorNamesTheCreationSiteWhenTracking,
    DefaultHandleIsUnusable,
    AnExceptionInsideADisposeScopeLeaksNothingAndPropagates,
    AnExceptionInsideEveryRcScopeFormLeaksNothingAndPropagates,
    WithRcScopeDisposesEverythingAndReturnsTheValue,
    WithRcScopeTensorTransfersWithRefcountOne,
    WithRcScopeTensorsMovesAVectorOut,
    WithRcScopeTensorReturningAnOuterTensorLeavesItAlone,
    WithRcScopeTensorWithNoOuterScopeIsALifetimeError,
    AViewMovedOutKeepsTheStorageOfItsDisposedBase,
    ATensorHandedToAnotherThreadSurvivesTheFirstThreadsScope,
    ChangingAnotherThreadsScopeIsALifetimeError,
    SixteenThreadsOfTwoThousandStepsEndWithZeroLiveTensors,
    AGraphOutlivesTheScopeItWasBuiltInWhenItsLossMovesOut,
    AParameterKeepsItsGradientWhenTheStepsScopeEnds);

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_SCOPE_CONTRACT_SUITE_H_
