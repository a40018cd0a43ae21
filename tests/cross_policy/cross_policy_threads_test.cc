// Copyright 2026 The custody Authors.
//
// A tensor shared between policies crosses threads (core/convert.h): for every
// ordered pair (P, Q) on onednn, a P tensor made on the main thread is shared
// as Q, read concurrently by worker threads (views and reductions made there,
// in Q's idiom for a thread), the Q reference given back on a worker and the P
// reference on the main thread; nothing is left. Part of CI's ThreadSanitizer
// run (.ci/run: the filter *Thread*).

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/convert.h"
#include "gtest/gtest.h"
#include "custody/lists/policies.h"

namespace {

using custody::BasicTensor;
using custody::Onednn;
using custody::lists::for_each_type;
using custody::PolicyIdiom;
using custody::lists::Policies;

template <class T>
float sum_of(const T& t) {
  T s = t.sum();
  const float v = s.template item<float>();
  custody::release(s);
  return v;
}

template <class P, class Q>
void shared_across_threads() {
  using TP = BasicTensor<P, Onednn>;
  using TQ = BasicTensor<Q, Onednn>;
  SCOPED_TRACE(std::string(P::name) + " -> " + Q::name);
  const int64_t before = Onednn::stats().snapshot().live_tensors;
  std::atomic<int> failures{0};
  {
    [[maybe_unused]] typename PolicyIdiom<P>::Region p_region;
    [[maybe_unused]] typename PolicyIdiom<Q>::Region q_region;
    TP a = TP::arange(0, 64, 1, custody::ScalarType::Float);
    TQ s = custody::share_as<Q>(a);
    std::vector<std::thread> readers;
    for (int i = 0; i < 2; ++i) {
      readers.emplace_back([&] {
        [[maybe_unused]] typename PolicyIdiom<Q>::Guard guard;  // scope: a dispose scope on this thread
        for (int step = 0; step < 50; ++step) {
          TQ view = s.narrow(0, 8, 8);
          if (sum_of(view) != 92.0f) failures++;
          custody::release(view);
        }
      });
    }
    for (std::thread& t : readers) t.join();
    std::thread releaser([&s] { custody::release(s); });  // Q's reference back on another thread
    releaser.join();
    EXPECT_FLOAT_EQ(sum_of(a), 2016.0f);  // P's handle unaffected
    custody::release(a);
  }
  PolicyIdiom<P>::settle();
  PolicyIdiom<Q>::settle();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Onednn::stats().snapshot().live_tensors, before);
}

TEST(CrossPolicyThreadsTest, SharedAcrossThreads) {
  for_each_type(Policies{}, [&]<class P>() {
    for_each_type(Policies{}, [&]<class Q>() { shared_across_threads<P, Q>(); });
  });
}

}  // namespace
