// Copyright 2026 The custody Authors.
//
// tests/extra_policy/contract_suite.h — the counted policy's own rule: a copy
// is one more reference, and the tensor goes with the last one.

#ifndef CUSTODY_TESTS_EXTRA_POLICY_CONTRACT_SUITE_H_
#define CUSTODY_TESTS_EXTRA_POLICY_CONTRACT_SUITE_H_

#include "gtest/gtest.h"
#include "testing/harness.h"
#include "tests/extra_policy/counted.h"
#include "tests/extra_policy/testing.h"

namespace custody::testing {

template <class T>
class CountedContractTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(CountedContractTest);

TYPED_TEST_P(CountedContractTest, CopiesShareAndTheLastOneFrees) {
  using T = TypeParam;
  const int64_t live0 = TestFixture::stats().live_tensors;
  {
    T a = T::ones({4});
    T b = a;
    EXPECT_EQ(a.use_count(), 2);
    a.release();
    EXPECT_THROW(a.numel(), LifetimeError);
    EXPECT_EQ(b.use_count(), 1);
    EXPECT_EQ(TestFixture::stats().live_tensors, live0 + 1);
  }
  EXPECT_EQ(TestFixture::stats().live_tensors, live0);
}

REGISTER_TYPED_TEST_SUITE_P(CountedContractTest, CopiesShareAndTheLastOneFrees);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_EXTRA_POLICY_CONTRACT_SUITE_H_
