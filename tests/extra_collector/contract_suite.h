// Copyright 2026 The custody Authors.
//
// tests/extra_collector/contract_suite.h — the deferred policy's own rules: a
// dropped handle's reference is queued and its tensor lives until a safe point
// (collect(), the reclaimer on an allocation failure, the pressure trigger);
// release is immediate; a copy is one more reference; misuse is an error.

#ifndef CUSTODY_TESTS_EXTRA_COLLECTOR_CONTRACT_SUITE_H_
#define CUSTODY_TESTS_EXTRA_COLLECTOR_CONTRACT_SUITE_H_

#include <cstdint>
#include <optional>
#include <thread>
#include <utility>

#include "core/error.h"
#include "core/reclaim.h"
#include "gtest/gtest.h"
#include "testing/harness.h"
#include "tests/extra_collector/deferred.h"
#include "tests/extra_collector/testing.h"

namespace custody::testing {

template <class T>
class DeferredContractTest : public ConformanceTest<T> {
 protected:
  // Each test starts from an empty queue, so its counts are exact.
  void SetUp() override {
    deferred::collect();
    ConformanceTest<T>::SetUp();
  }
  static int64_t queued() { return deferred::stats().queued; }
};
TYPED_TEST_SUITE_P(DeferredContractTest);

TYPED_TEST_P(DeferredContractTest, ADroppedHandleLivesUntilCollect) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::stats().live_tensors;
  const int64_t bytes0 = TestFixture::stats().bytes_in_use;
  const deferred::Stats s0 = deferred::stats();
  { T a = T::ones({256}); }
  EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 1) << "a dropped handle gives nothing back";
  EXPECT_EQ(TestFixture::queued(), 1);
  EXPECT_EQ(deferred::stats().queued_bytes, 256 * 4);
  EXPECT_EQ(deferred::collect(), 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, live0);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, bytes0);
  const deferred::Stats s1 = deferred::stats();
  EXPECT_EQ(s1.collections - s0.collections, 1);
  EXPECT_EQ(s1.given_back - s0.given_back, 1);
  EXPECT_EQ(s1.queued, 0);
  EXPECT_EQ(s1.queued_bytes, 0);
  // An assignment over a handle drops its reference the same way.
  T b = T::ones({8});
  b = T::zeros({8});
  EXPECT_EQ(TestFixture::queued(), 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 2);
  EXPECT_EQ(deferred::collect(), 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 1);
}

TYPED_TEST_P(DeferredContractTest, ReleaseGivesTheReferenceBackNow) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::stats().live_tensors;
  {
    T a = T::ones({16});
    custody::release(a);
    EXPECT_EQ(TestFixture::stats().live_tensors, live0);
    custody::release(a);  // idempotent
  }
  EXPECT_EQ(TestFixture::queued(), 0) << "a released handle has nothing to queue when dropped";
}

TYPED_TEST_P(DeferredContractTest, CopiesAreReferences) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::stats().live_tensors;
  T a = T::ones({4});
  T b = a;
  EXPECT_EQ(a.use_count(), 2);
  custody::release(a);
  EXPECT_EQ(b.use_count(), 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 1) << "the copy keeps the tensor";
  { T c = b; }
  EXPECT_EQ(b.use_count(), 2) << "the dropped copy's reference is queued";
  EXPECT_EQ(deferred::collect(), 1);
  EXPECT_EQ(b.use_count(), 1);
  // A move hands the reference over: nothing is queued, the source is empty.
  T d = std::move(b);
  EXPECT_EQ(d.use_count(), 1);
  EXPECT_EQ(b.use_count(), 0);
  b = T();
  EXPECT_EQ(TestFixture::queued(), 0);
  custody::release(d);
  EXPECT_EQ(TestFixture::stats().live_tensors, live0);
}

TYPED_TEST_P(DeferredContractTest, DropsOnOtherThreadsAreGivenBackByACollectHere) {
  using T = TypeParam;
  T a = T::ones({4});
  std::thread([t = a]() mutable {
    T u = t;
    EXPECT_EQ(u.numel(), 4);
  }).join();
  EXPECT_EQ(a.use_count(), 3) << "both handles the thread dropped are queued";
  EXPECT_EQ(deferred::collect(), 2);
  EXPECT_EQ(a.use_count(), 1);
}

TYPED_TEST_P(DeferredContractTest, ThePressureTriggerGivesBackOnceNBytesAreQueued) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::stats().live_tensors;
  const deferred::Stats s0 = deferred::stats();
  T a = T::ones({1024});
  T b = T::ones({1024});
  const auto each = static_cast<int64_t>(a.impl().storage()->nbytes());
  std::optional<T> c, d;
  {
    deferred::ScopedPressureTrigger trigger(2 * each);
    a = T();
    c.emplace(T::zeros({1}));  // one storage queued: under the trigger
    EXPECT_EQ(TestFixture::queued(), 1);
    EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 3);
    b = T();
    EXPECT_EQ(TestFixture::queued(), 2) << "dropping is no safe point";
    d.emplace(T::zeros({1}));  // two: the allocation gives back the queue
    EXPECT_EQ(TestFixture::queued(), 0);
    EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 2);
    const deferred::Stats s1 = deferred::stats();
    EXPECT_EQ(s1.collections - s0.collections, 1);
    EXPECT_EQ(s1.given_back - s0.given_back, 2);
  }
  // Without the trigger, allocations give back nothing.
  T e = T::ones({1024});
  T f = T::ones({1024});
  e = T();
  f = T();
  c.reset();
  T g = T::zeros({1});
  EXPECT_EQ(TestFixture::queued(), 3);
}

TYPED_TEST_P(DeferredContractTest, TheReclaimerGivesBackOnAnAllocationFailureAndTheRetrySucceeds) {
  using T = TypeParam;
  { T a = T::ones({64}); }
  ASSERT_EQ(TestFixture::queued(), 1);
  const StatsSnapshot before = TestFixture::stats();
  const deferred::Stats s0 = deferred::stats();
  inject_allocation_failure(1);
  std::optional<T> b;
  EXPECT_NO_THROW(b.emplace(T::zeros({4})));
  const int64_t fired = injected_failures();
  inject_allocation_failure(0);
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(TestFixture::stats().num_alloc_retries, before.num_alloc_retries + 1);
  EXPECT_EQ(TestFixture::queued(), 0);
  EXPECT_EQ(deferred::stats().given_back - s0.given_back, 1);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors)
      << "the queued tensor went, b came";
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->numel(), 4);
}

TYPED_TEST_P(DeferredContractTest, APressureTriggerOfNoBytesIsAnError) {
  CUSTODY_EXPECT_THROWS(InvalidArgument, deferred::ScopedPressureTrigger(0),
                        "ScopedPressureTrigger", "positive", "got 0");
  CUSTODY_EXPECT_THROWS(InvalidArgument, deferred::ScopedPressureTrigger(-4096), "got -4096");
}

TYPED_TEST_P(DeferredContractTest, UseAfterReleaseOrMoveIsALifetimeErrorNamingTheOp) {
  using T = TypeParam;
  T a = T::ones({2});
  custody::release(a);
  CUSTODY_EXPECT_THROWS(LifetimeError, a.numel(), "numel", "deferred handle");
  T b = T::ones({2});
  T c = std::move(b);
  CUSTODY_EXPECT_THROWS(LifetimeError, b.sum(), "sum", "deferred handle");
  CUSTODY_EXPECT_THROWS(LifetimeError, T().alias(), "alias");
  EXPECT_EQ(c.numel(), 2);
}

REGISTER_TYPED_TEST_SUITE_P(DeferredContractTest, ADroppedHandleLivesUntilCollect,
                            ReleaseGivesTheReferenceBackNow, CopiesAreReferences,
                            DropsOnOtherThreadsAreGivenBackByACollectHere,
                            ThePressureTriggerGivesBackOnceNBytesAreQueued,
                            TheReclaimerGivesBackOnAnAllocationFailureAndTheRetrySucceeds,
                            APressureTriggerOfNoBytesIsAnError,
                            UseAfterReleaseOrMoveIsALifetimeErrorNamingTheOp);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_EXTRA_COLLECTOR_CONTRACT_SUITE_H_
