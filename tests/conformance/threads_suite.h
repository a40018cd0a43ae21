// Copyright 2026 The custody Authors.
//
// Threads (G7): refcounts are atomic; tensors may be used and released from
// several threads as the policy allows. Each thread works inside the policy's
// idiom (`PolicyIdiom<P>::Guard`, e.g. its own dispose scope) and releases
// every handle it makes by name, so the guards must find nothing to give back
// (ConformanceTest::expect_released_everything).

#ifndef CUSTODY_TESTS_CONFORMANCE_THREADS_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_THREADS_SUITE_H_

#include <atomic>
#include <thread>
#include <vector>

#include "testing/harness.h"

namespace custody::testing {

template <class T>
class ThreadsTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(ThreadsTest);

TYPED_TEST_P(ThreadsTest, G7_IndependentThreadsLeaveNothing) {
  using T = TypeParam;
  using Policy = typename T::policy_type;
  this->expect_released_everything();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      [[maybe_unused]] typename PolicyIdiom<Policy>::Guard guard;
      for (int step = 0; step < 200; ++step) {
        auto a = T::full(std::vector<int64_t>{4, 4}, static_cast<float>(i));
        auto plus = a.add(1.0f);
        auto twice = plus.mul(2.0f);
        auto b = twice.sum();
        if (b.template item<float>() != 16.0f * 2.0f * (i + 1)) failures++;
        for (auto* h : {&a, &plus, &twice, &b}) custody::release(*h);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TYPED_TEST_P(ThreadsTest, G7_SharedInputReadConcurrently) {
  using T = TypeParam;
  using Policy = typename T::policy_type;
  this->expect_released_everything();
  auto shared = T::arange(0, 64, 1, ScalarType::Float);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      [[maybe_unused]] typename PolicyIdiom<Policy>::Guard guard;
      for (int step = 0; step < 200; ++step) {
        auto view = shared.narrow(0, 8, 8);  // takes and drops references on shared storage
        auto alias = shared.alias();
        auto s = view.sum();
        if (s.template item<float>() != 92.0f) failures++;
        custody::release(view);
        custody::release(alias);
        custody::release(s);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto total = shared.sum();
  EXPECT_EQ(values_of(total), std::vector<double>({2016}));
  custody::release(total);
  custody::release(shared);
}

REGISTER_TYPED_TEST_SUITE_P(ThreadsTest, G7_IndependentThreadsLeaveNothing,
                            G7_SharedInputReadConcurrently);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_THREADS_SUITE_H_
