// Copyright 2026 The custody Authors.
//
// testing/disposable_checks.h — the behaviours the TorchSharp-style policies
// share (those whose handles have dispose() and is_disposed(): dispose, scope,
// gc), tested once here and called from each of those policies' contract
// suites, which add what is their own:
//
//   TYPED_TEST_P(MyContractTest, DisposeIsIdempotent) {
//     custody::testing::ExpectDisposeIsIdempotent<TypeParam>();
//   }

#ifndef CUSTODY_TESTING_DISPOSABLE_CHECKS_H_
#define CUSTODY_TESTING_DISPOSABLE_CHECKS_H_

#include "core/error.h"
#include "core/sites.h"
#include "core/stats.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "testing/harness.h"

namespace custody::testing {

// A handle with dispose() and is_disposed() (TorchSharp's IDisposable tensor).
template <class T>
concept DisposableTensor = requires(T t, const T ct) {
  t.dispose();
  { ct.is_disposed() } -> std::convertible_to<bool>;
};

// A default handle names no tensor: it is disposed, every use is a
// LifetimeError, and disposing or releasing it is harmless.
template <DisposableTensor T>
void ExpectDefaultHandleIsUnusable() {
  T a;
  EXPECT_TRUE(a.is_disposed());
  EXPECT_THROW((void)a.dim(), LifetimeError);
  EXPECT_NO_THROW(a.dispose());
  EXPECT_NO_THROW(custody::release(a));
  EXPECT_TRUE(a.is_disposed());
}

// dispose() gives the reference back once, however often it is called,
// through the handle or a copy, and release() after it is a no-op.
template <DisposableTensor T>
void ExpectDisposeIsIdempotent() {
  using B = typename T::backend_type;
  const StatsSnapshot before = B::stats().snapshot();
  T a = T::ones({16});
  T copy = a;
  EXPECT_EQ(B::stats().snapshot().live_tensors, before.live_tensors + 1);
  a.dispose();
  EXPECT_TRUE(a.is_disposed());
  EXPECT_TRUE(copy.is_disposed()) << "a copy of a handle names the same reference";
  EXPECT_EQ(B::stats().snapshot().live_tensors, before.live_tensors) << "dispose() gives it back now";
  EXPECT_EQ(B::stats().snapshot().bytes_in_use, before.bytes_in_use);
  EXPECT_NO_THROW(a.dispose());
  EXPECT_NO_THROW(copy.dispose());
  EXPECT_NO_THROW(custody::release(a));
  EXPECT_EQ(B::stats().snapshot().live_tensors, before.live_tensors) << "disposing again counts once";
}

// With site tracking on, the LifetimeError of a disposed tensor names the op
// and the site that created it, down to the test's own frame `frame`.
template <DisposableTensor T>
void ExpectUseAfterDisposeNamesTheCreationSite(const char* frame) {
  T a;
  {
    sites::ScopedTracking tracking(true);
    a = T::zeros({3});
  }
  a.dispose();
  CUSTODY_EXPECT_THROWS(LifetimeError, a.sum(), "sum: ", "created at", frame);
}

}  // namespace custody::testing

#endif  // CUSTODY_TESTING_DISPOSABLE_CHECKS_H_
