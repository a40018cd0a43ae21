// Copyright 2026 The custody Authors.
//
// The dispose policy's own contract (DESIGN §5.3, TorchSharp technique 2), run
// on every backend; and the test idiom the generic suites use under this
// policy: every alias a test body creates on its thread is disposed when the
// body ends (what `using var` on each temporary would do in C#).

#ifndef CUSTODY_POLICIES_DISPOSE_CONTRACT_SUITE_H_
#define CUSTODY_POLICIES_DISPOSE_CONTRACT_SUITE_H_

#include <string>
#include <vector>

#include "policies/dispose/dispose.h"
#include "tests/conformance/harness.h"

namespace custody::testing {

template <>
struct PolicyIdiom<dispose::Policy> {
  struct Guard {
    uint64_t since = dispose::testing::next_serial();
    ~Guard() { dispose::testing::dispose_created_on_this_thread_since(since); }
  };
  static void settle() {}
};

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
  T a = T::ones({2});
  const int64_t live = dispose::live_aliases();
  a.dispose();
  a.dispose();
  custody::release(a);
  EXPECT_EQ(dispose::live_aliases(), live - 1) << "disposing twice counts once";
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
  const int64_t live = dispose::live_aliases();
  T r = a.add_(1);  // in-place: a fresh alias of the same tensor
  EXPECT_EQ(dispose::live_aliases(), live + 1);
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
  try {
    (void)a.exp();
    FAIL() << "no throw";
  } catch (const LifetimeError& e) {
    EXPECT_NE(std::string(e.what()).find("exp: this tensor was disposed"), std::string::npos) << e.what();
  }
}

TYPED_TEST_P(DisposeContractTest, DefaultHandleIsUnusable) {
  using T = TypeParam;
  T a;
  EXPECT_TRUE(a.is_disposed());
  EXPECT_THROW((void)a.dim(), LifetimeError);
  a.dispose();  // harmless
}

REGISTER_TYPED_TEST_SUITE_P(DisposeContractTest, DisposeGivesTheReferenceBackNow,
                            DestructorDoesNotDispose, CopyingAHandleCopiesTheReference,
                            DisposeIsIdempotent, AliasIsAnIndependentReference,
                            EveryOpResultIsAFreshAliasToDispose, DisposingGuardDisposesAtBlockEnd,
                            DisposingGuardDisposesOnException,
                            LeakReportListsUnreachableUndisposedAliases,
                            LeakReportNamesTheCreationSiteWhenTracking,
                            UseAfterDisposeNamesTheOpAndAlias, DefaultHandleIsUnusable);

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_DISPOSE_CONTRACT_SUITE_H_
