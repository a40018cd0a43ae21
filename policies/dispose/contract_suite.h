// Copyright 2026 The custody Authors.
//
// The dispose policy's own contract (docs/design.md §5.3, TorchSharp technique 2), run
// on every backend; and the test idiom the generic suites use under this
// policy: every alias a test body creates on its thread is disposed when the
// body ends (what `using var` on each temporary would do in C#).

#ifndef CUSTODY_POLICIES_DISPOSE_CONTRACT_SUITE_H_
#define CUSTODY_POLICIES_DISPOSE_CONTRACT_SUITE_H_

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/sites.h"
#include "policies/dispose/dispose.h"
#include "policies/dispose/testing.h"
#include "testing/disposable_checks.h"
#include "testing/harness.h"

namespace custody::testing {

template <class T>
class DisposeContractTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(DisposeContractTest);

TYPED_TEST_P(DisposeContractTest, DisposeGivesTheReferenceBackNow) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::zeros({256});
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  a.dispose();
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(DisposeContractTest, DestructorDoesNotDispose) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  { T a = T::zeros({4}); }
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1)
      << "a handle going out of scope is a C# reference going out of scope: nothing is freed";
}

TYPED_TEST_P(DisposeContractTest, CopyingAHandleCopiesTheReference) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({2});
  T b = a;  // same alias
  b.dispose();
  EXPECT_TRUE(a.is_disposed());
  EXPECT_THROW((void)a.numel(), LifetimeError);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(DisposeContractTest, DisposeIsIdempotent) {
  using T = TypeParam;
  const int64_t live = dispose::live_references();
  custody::testing::ExpectDisposeIsIdempotent<T>();  // testing/disposable_checks.h
  EXPECT_EQ(dispose::live_references(), live) << "the policy's own count agrees";
}

TYPED_TEST_P(DisposeContractTest, AliasIsAnIndependentReference) {
  using T = TypeParam;
  T a = T::full(std::vector<int64_t>{3}, 2.0f);
  T b = a.alias();
  a.dispose();
  EXPECT_EQ(values_of(b), std::vector<double>({2, 2, 2}));
  b.dispose();
}

TYPED_TEST_P(DisposeContractTest, EveryOpResultIsAFreshAliasToDispose) {
  using T = TypeParam;
  T a = T::ones({2});
  const int64_t live = dispose::live_references();
  T r = a.add_(1);  // in-place: a fresh alias of the same tensor
  EXPECT_EQ(dispose::live_references(), live + 1);
  EXPECT_EQ(&r.impl(), &a.impl());
  r.dispose();
  EXPECT_EQ(values_of(a), std::vector<double>({2, 2}));
}

TYPED_TEST_P(DisposeContractTest, DisposingGuardDisposesAtBlockEnd) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  {
    auto x = dispose::disposing(T::ones({8}));
    auto y = dispose::disposing(x.mul(3));
    EXPECT_EQ(y.sum().template item<float>(), 24.0f);
  }
  // Only the sum() temporary (not guarded) remains.
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
}

TYPED_TEST_P(DisposeContractTest, DisposingGuardDisposesOnException) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  try {
    auto x = dispose::disposing(T::ones({8}));
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(DisposeContractTest, LeakReportListsUnreachableUndisposedAliases) {
  using T = TypeParam;
  const size_t before = dispose::leak_report().size();
  { T lost = T::zeros({2, 5}, ScalarType::Int); }
  T kept = T::zeros({1});
  const auto report = dispose::leak_report();
  ASSERT_EQ(report.size(), before + 1) << "only the unreachable alias is a leak";
  EXPECT_EQ(report.back().dtype, "int32");
  EXPECT_EQ(report.back().sizes, std::vector<int64_t>({2, 5}));
  EXPECT_NE(dispose::leak_report_string().find("int32 [2, 5]"), std::string::npos);
}

TYPED_TEST_P(DisposeContractTest, LeakReportNamesTheCreationSiteWhenTracking) {
  using T = TypeParam;
  dispose::set_track_sites(true);
  { T lost = T::zeros({3}); }
  dispose::set_track_sites(false);
  const auto report = dispose::leak_report();
  ASSERT_FALSE(report.empty());
  EXPECT_NE(report.back().site.find("#0"), std::string::npos) << report.back().site;
}

TYPED_TEST_P(DisposeContractTest, UseAfterDisposeNamesTheOpAndAlias) {
  using T = TypeParam;
  T a = T::zeros({2});
  a.dispose();
  CUSTODY_EXPECT_THROWS(LifetimeError, a.exp(), "exp: this tensor was disposed");
}

TYPED_TEST_P(DisposeContractTest, ReleaseIsDisposeAndIdempotent) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({16});
  custody::release(a);
  custody::release(a);
  EXPECT_TRUE(a.is_disposed());
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(DisposeContractTest, DisposeReturnsTheBytesExactly) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::empty({1000}, ScalarType::Double);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use + 8000);
  a.dispose();
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages);
}

TYPED_TEST_P(DisposeContractTest, AViewIsItsOwnAliasAndKeepsTheStorage) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  T base = T::arange(0, 6, 1, ScalarType::Float);
  T view = base.narrow(0, 2, 3);
  base.dispose();
  EXPECT_FALSE(view.is_disposed());
  EXPECT_EQ(values_of(view), std::vector<double>({2, 3, 4}));
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages + 1);
  view.dispose();
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(DisposeContractTest, DisposingAnInPlaceResultLeavesTheInput) {
  using T = TypeParam;
  T a = T::zeros({3});
  T r = a.fill_(5);
  r.dispose();
  EXPECT_FALSE(a.is_disposed());
  EXPECT_EQ(values_of(a), std::vector<double>({5, 5, 5}));
  a.dispose();
}

TYPED_TEST_P(DisposeContractTest, OverwritingAHandleLosesTheOldAliasAsInCSharp) {
  using T = TypeParam;
  const size_t leaks0 = dispose::leak_report().size();
  T x = T::ones({4});
  x = x.add(1);  // `x = x + 1` in C#: the first tensor is now unreachable and undisposed
  EXPECT_EQ(dispose::leak_report().size(), leaks0 + 1) << dispose::leak_report_string();
  EXPECT_EQ(dispose::leak_report().back().sizes, std::vector<int64_t>({4}));
  x.dispose();
}

TYPED_TEST_P(DisposeContractTest, ChainedTemporariesEachNeedADispose) {
  // Technique 2's pitfall: every intermediate of a chain is an alias to dispose.
  using T = TypeParam;
  const int64_t live = dispose::live_references();
  const size_t leaks0 = dispose::leak_report().size();
  T a = T::ones({4});
  T r = a.mul(2).add(1).exp().sum();
  EXPECT_EQ(dispose::live_references(), live + 5);
  EXPECT_EQ(dispose::leak_report().size(), leaks0 + 3) << "mul, add and exp are unreachable";
  a.dispose();
  r.dispose();
  EXPECT_EQ(dispose::live_references(), live + 3);
}

TYPED_TEST_P(DisposeContractTest, ReachableUndisposedAliasesAreNotLeaks) {
  using T = TypeParam;
  const size_t leaks0 = dispose::leak_report().size();
  std::vector<T> kept;
  for (int i = 0; i < 5; ++i) kept.push_back(T::ones({2}));
  EXPECT_EQ(dispose::leak_report().size(), leaks0);
  for (T& t : kept) t.dispose();
  EXPECT_EQ(dispose::leak_report().size(), leaks0);
}

TYPED_TEST_P(DisposeContractTest, DisposedUnreachableAliasesAreNotLeaks) {
  using T = TypeParam;
  const size_t leaks0 = dispose::leak_report().size();
  {
    T a = T::ones({2});
    a.dispose();
  }
  EXPECT_EQ(dispose::leak_report().size(), leaks0);
}

TYPED_TEST_P(DisposeContractTest, LeakReportStringHintsAtSiteTrackingWhenOff) {
  using T = TypeParam;
  sites::ScopedTracking off(false);
  { T lost = T::zeros({7}, ScalarType::Long); }
  const std::string s = dispose::leak_report_string();
  EXPECT_NE(s.find("int64 [7]"), std::string::npos) << s;
  EXPECT_NE(s.find("CUSTODY_TRACK_SITES=1"), std::string::npos) << s;
}

TYPED_TEST_P(DisposeContractTest, UseAfterDisposeShowsTheCreationSiteWhenTracking) {
  custody::testing::ExpectUseAfterDisposeNamesTheCreationSite<TypeParam>("DisposeContractTest");
}

TYPED_TEST_P(DisposeContractTest, EveryAccessorOfADisposedAliasThrows) {
  using T = TypeParam;
  T a = T::ones({2, 2});
  a.dispose();
  EXPECT_THROW((void)a.sizes(), LifetimeError);
  EXPECT_THROW((void)a.template item<float>(), LifetimeError);
  EXPECT_THROW((void)a.template to_vector<float>(), LifetimeError);
  EXPECT_THROW((void)a.alias(), LifetimeError);
  EXPECT_THROW((void)a.reshape({4}), LifetimeError);
  T b = T::ones({2, 2});
  EXPECT_THROW((void)b.add(a), LifetimeError) << "a disposed operand is refused too";
  b.dispose();
}

TYPED_TEST_P(DisposeContractTest, MovedFromHandleIsUnusableAndTheTargetOwnsTheAlias) {
  using T = TypeParam;
  T a = T::ones({2});
  T b = std::move(a);
  EXPECT_THROW((void)a.dim(), LifetimeError);  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(b.is_disposed());
  b.dispose();
}

TYPED_TEST_P(DisposeContractTest, DisposingGuardOnACopyDisposesTheSharedAlias) {
  using T = TypeParam;
  T a = T::ones({2});
  {
    auto guard = dispose::disposing(a);  // same alias as `a`
  }
  EXPECT_TRUE(a.is_disposed()) << "a copied handle is the same C# reference";
}

TYPED_TEST_P(DisposeContractTest, DisposingGuardsNestAndEachDisposesItsOwn) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  {
    auto outer = dispose::disposing(T::ones({4}));
    {
      auto inner = dispose::disposing(outer.mul(2));
      EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 2);
    }
    EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
    EXPECT_FALSE(outer.is_disposed());
  }
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(DisposeContractTest, AFailingOpCreatesNoAlias) {
  using T = TypeParam;
  T a = T::ones({2, 3});
  const int64_t live = dispose::live_references();
  const StatsSnapshot before = TestFixture::stats();
  EXPECT_THROW((void)a.matmul(a), ShapeError);
  EXPECT_THROW((void)a.view({7}), ShapeError);
  EXPECT_EQ(dispose::live_references(), live);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  a.dispose();
}

TYPED_TEST_P(DisposeContractTest, FromBlobDeleterRunsWhenTheLastAliasIsDisposed) {
  using T = TypeParam;
  int deleted = 0;
  BackendBuffer<typename T::backend_type> data({1, 2, 3, 4});
  T blob = T::from_blob(data.data(), std::vector<int64_t>{4}, ScalarType::Float,
                        [&deleted](void*) { ++deleted; });
  T view = blob.narrow(0, 1, 2);
  T al = blob.alias();
  blob.dispose();
  al.dispose();
  EXPECT_EQ(deleted, 0);
  view.dispose();
  EXPECT_EQ(deleted, 1);
  view.dispose();
  EXPECT_EQ(deleted, 1) << "disposing twice frees once";
}

TYPED_TEST_P(DisposeContractTest, AHandlePassedToAnotherThreadIsDisposedThere) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  T a = T::ones({32});
  std::thread th([a]() mutable {
    EXPECT_EQ(values_of(a), std::vector<double>(32, 1.0));
    a.dispose();
  });
  th.join();
  EXPECT_TRUE(a.is_disposed()) << "the thread's copy is the same alias";
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(DisposeContractTest, AliasOfAViewSharesTheTensorNotTheAlias) {
  using T = TypeParam;
  T base = T::zeros({2, 2});
  T row = base.select(0, 1);
  T row2 = row.alias();
  row.dispose();
  row2.fill_(3);
  EXPECT_EQ(values_of(base), std::vector<double>({0, 0, 3, 3}));
  EXPECT_FALSE(row2.is_disposed());
  row2.dispose();
  base.dispose();
}

TYPED_TEST_P(DisposeContractTest, ConcurrentHandleCopiesKeepTheAliasConsistent) {
  using T = TypeParam;
  T a = T::ones({8});
  const int64_t live = dispose::live_references();
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&a] {
      for (int k = 0; k < 2000; ++k) {
        T copy = a;  // adds and drops a handle on the shared alias
        (void)copy.numel();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(dispose::live_references(), live);
  a.dispose();
  EXPECT_EQ(dispose::live_references(), live - 1);
}

TYPED_TEST_P(DisposeContractTest, RacingDisposesThroughCopiesGiveTheReferenceBackOnce) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  const int64_t live = dispose::live_references();
  for (int round = 0; round < 20; ++round) {
    T a = T::ones({4});
    std::atomic<bool> go{false};
    std::atomic<int> disposed_here{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i) {
      // Each thread disposes its own copy, and drops it: sometimes the last handle.
      threads.emplace_back([c = a, &go]() mutable {
        while (!go.load()) {
        }
        c.dispose();
      });
    }
    go = true;
    a.dispose();
    for (auto& t : threads) t.join();
    EXPECT_TRUE(a.is_disposed());
    EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors) << "round " << round;
  }
  EXPECT_EQ(dispose::live_references(), live);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(DisposeContractTest, AliasesOfAnExitedThreadStayUsable) {
  using T = TypeParam;
  const StatsSnapshot before = TestFixture::stats();
  const int64_t live = dispose::live_references();
  const size_t leaks = dispose::leak_report().size();
  std::vector<T> made;
  // More than one slab's worth, made on a thread that then exits.
  std::thread([&made] {
    for (int i = 0; i < 300; ++i) {
      made.push_back(T::full(std::vector<int64_t>{2}, static_cast<float>(i)));
    }
  }).join();
  EXPECT_EQ(dispose::live_references(), live + 300);
  EXPECT_EQ(dispose::leak_report().size(), leaks) << "reachable from here, so not leaks";
  for (int i = 0; i < 300; i += 37) {
    EXPECT_EQ(values_of(made[i]), std::vector<double>({1.0 * i, 1.0 * i}));
  }
  // A new thread takes over the exited thread's registry (or another orphan).
  std::thread([] {
    T t = T::ones({1});
    t.dispose();
  }).join();
  for (T& t : made) t.dispose();
  made.clear();  // the last handles go here: the slots go back to a registry of no running thread
  EXPECT_EQ(dispose::live_references(), live);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

TYPED_TEST_P(DisposeContractTest, DefaultHandleIsUnusable) {
  custody::testing::ExpectDefaultHandleIsUnusable<TypeParam>();
}

// ---- autograd (Note [Autograd under dispose], policies/dispose/dispose.h) ----------

TYPED_TEST_P(DisposeContractTest, DisposingASavedInputKeepsBackwardAndDisposingTheLossFreesTheGraph) {
  using T = TypeParam;
  auto live = [] { return ConformanceTest<T>::stats().live_tensors; };
  T x = T::from_vector(std::vector<float>{1, 2, 3});
  x.requires_grad_();
  const int64_t live0 = live();
  T c = T::from_vector(std::vector<float>{4, 5, 6});
  T y = x.mul(c);
  T loss = y.sum();
  c.dispose();
  y.dispose();
  EXPECT_EQ(live(), live0 + 2) << "the loss, and c held by the graph";
  loss.backward();
  EXPECT_EQ(live(), live0 + 2) << "c given back as backward passed mul; x.grad made";
  auto g = dispose::disposing(x.grad());
  EXPECT_EQ(g.template to_vector<float>(), std::vector<float>({4, 5, 6}));
  loss.dispose();
  EXPECT_EQ(live(), live0 + 1) << "x.grad";
  T e = x.exp();
  T kept = e.sum();  // an output disposed without backward: its graph goes with it
  e.dispose();
  EXPECT_EQ(live(), live0 + 3) << "kept, and the view of e its graph saved";
  kept.dispose();
  EXPECT_EQ(live(), live0 + 1);
}

REGISTER_TYPED_TEST_SUITE_P(DisposeContractTest,
                            DisposeGivesTheReferenceBackNow,
                            DestructorDoesNotDispose,
                            CopyingAHandleCopiesTheReference,
                            DisposeIsIdempotent,
                            AliasIsAnIndependentReference,
                            EveryOpResultIsAFreshAliasToDispose,
                            DisposingGuardDisposesAtBlockEnd,
                            DisposingGuardDisposesOnException,
                            LeakReportListsUnreachableUndisposedAliases,
                            LeakReportNamesTheCreationSiteWhenTracking,
                            UseAfterDisposeNamesTheOpAndAlias,
                            ReleaseIsDisposeAndIdempotent,
                            DisposeReturnsTheBytesExactly,
                            AViewIsItsOwnAliasAndKeepsTheStorage,
                            DisposingAnInPlaceResultLeavesTheInput,
                            OverwritingAHandleLosesTheOldAliasAsInCSharp,
                            ChainedTemporariesEachNeedADispose,
                            ReachableUndisposedAliasesAreNotLeaks,
                            DisposedUnreachableAliasesAreNotLeaks,
                            LeakReportStringHintsAtSiteTrackingWhenOff,
                            UseAfterDisposeShowsTheCreationSiteWhenTracking,
                            EveryAccessorOfADisposedAliasThrows,
                            MovedFromHandleIsUnusableAndTheTargetOwnsTheAlias,
                            DisposingGuardOnACopyDisposesTheSharedAlias,
                            DisposingGuardsNestAndEachDisposesItsOwn,
                            AFailingOpCreatesNoAlias,
                            FromBlobDeleterRunsWhenTheLastAliasIsDisposed,
                            AHandlePassedToAnotherThreadIsDisposedThere,
                            AliasOfAViewSharesTheTensorNotTheAlias,
                            ConcurrentHandleCopiesKeepTheAliasConsistent,
                            RacingDisposesThroughCopiesGiveTheReferenceBackOnce,
                            AliasesOfAnExitedThreadStayUsable,
                            DefaultHandleIsUnusable,
    DisposingASavedInputKeepsBackwardAndDisposingTheLossFreesTheGraph);

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_DISPOSE_CONTRACT_SUITE_H_
