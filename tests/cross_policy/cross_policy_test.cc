// Copyright 2026 The custody Authors.
//
// share_as and transfer (core/convert.h) for every ordered pair of policies
// (P = Q included) on the backend CUSTODY_TEST_BACKEND names: both handles of
// a share valid and independent, views across the boundary sharing storage, a
// transfer leaving its source released (LifetimeError), and nothing left once
// each regime has given its reference back its own way. A deliberately broken
// transfer (P's reference never given back) is caught.

#include "core/convert.h"

#include <cstdint>
#include <vector>

#include "backends/aten/aten.h"
#include "backends/onednn/onednn.h"
#include "core/error.h"
#include "gtest/gtest.h"
#include "custody/lists/policies.h"

namespace {

using custody::BasicTensor;
using custody::LifetimeError;
using custody::share_as;
using custody::transfer;
using custody::lists::for_each_type;
using custody::PolicyIdiom;
using custody::lists::Policies;

template <class B>
int64_t live_tensors() {
  return B::stats().snapshot().live_tensors;
}

template <class T>
float sum_of(const T& t) {
  T s = t.sum();
  const float v = s.template item<float>();
  custody::release(s);
  return v;
}

template <class P, class Q, class B>
void share_and_transfer() {
  using TP = BasicTensor<P, B>;
  using TQ = BasicTensor<Q, B>;
  SCOPED_TRACE(std::string(P::name) + " -> " + Q::name + " on " + B::name);
  const int64_t before = live_tensors<B>();
  {
    [[maybe_unused]] typename PolicyIdiom<P>::Region p_region;  // what each policy's idiom needs open
    [[maybe_unused]] typename PolicyIdiom<Q>::Region q_region;
    TP a = TP::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, std::vector<int64_t>{2, 3});
    TQ s = share_as<Q>(a);
    EXPECT_EQ(s.template data_ptr<float>(), a.template data_ptr<float>());
    TQ st = s.t();  // a view on the Q side
    TP updated = a.add_(10.0);  // written through P: seen through Q's view
    custody::release(updated);
    EXPECT_FLOAT_EQ(sum_of(st), 81.0f);
    custody::release(a);  // P's reference back the P way: the Q handles still hold the tensor
    EXPECT_FLOAT_EQ(sum_of(s), 81.0f);
    custody::release(st);
    custody::release(s);

    TP b = TP::ones(std::vector<int64_t>{4});
    const float* data = b.template data_ptr<float>();
    TQ t = transfer<Q>(std::move(b));
    EXPECT_EQ(t.template data_ptr<float>(), data);  // the same tensor, not a copy
    EXPECT_THROW(b.numel(), LifetimeError);          // the source was released
    EXPECT_FLOAT_EQ(sum_of(t), 4.0f);
    custody::release(t);
  }
  PolicyIdiom<P>::settle();
  PolicyIdiom<Q>::settle();
  EXPECT_EQ(live_tensors<B>(), before) << "a tensor was left behind";
}

template <class B>
void every_pair() {
  for_each_type(Policies{}, [&]<class P>() {
    for_each_type(Policies{}, [&]<class Q>() { share_and_transfer<P, Q, B>(); });
  });
}

TEST(CrossPolicyTest, ShareAndTransferOnOnednn) { every_pair<custody::Onednn>(); }
TEST(CrossPolicyTest, ShareAndTransferOnAten) { every_pair<custody::Aten>(); }

// A transfer that forgets to give P's reference back leaves the tensor alive
// under the policies whose references only code gives back (those whose idiom
// says kLosesOnError: a dropped handle gives nothing back): the check above
// (live tensors back where they were) sees it.
template <class P, class B>
int64_t left_behind(bool broken) {
  using T = BasicTensor<P, B>;
  using Q = custody::tensor_ptr::Policy;
  const int64_t before = live_tensors<B>();
  int64_t left = 0;
  {
    typename PolicyIdiom<P>::Guard cleanup;  // gives back what the broken transfer left, after we counted
    {
      T b = T::ones(std::vector<int64_t>{4});
      BasicTensor<Q, B> t = broken ? share_as<Q>(b) : transfer<Q>(std::move(b));
      custody::release(t);
    }
    left = live_tensors<B>() - before;
  }
  EXPECT_EQ(live_tensors<B>(), before);
  return left;
}

TEST(CrossPolicyTest, ABrokenTransferIsCaught) {
  int checked = 0;
  for_each_type(Policies{}, [&]<class P>() {
    if constexpr (PolicyIdiom<P>::kLosesOnError) {
      SCOPED_TRACE(P::name);
      EXPECT_EQ((left_behind<P, custody::Onednn>(/*broken=*/false)), 0);
      EXPECT_EQ((left_behind<P, custody::Onednn>(/*broken=*/true)), 1);
      ++checked;
    }
  });
  EXPECT_GE(checked, 2) << "POLICIES has two policies whose dropped handles give nothing back";
}

// Making the Q handle follows Q's rules: into scope with no scope open is a
// LifetimeError, and the source keeps its reference.
TEST(CrossPolicyTest, TransferIntoScopeNeedsAScopeAndLeavesTheSourceOnError) {
  using TP = BasicTensor<custody::tensor_ptr::Policy, custody::Onednn>;
  const int64_t before = live_tensors<custody::Onednn>();
  {
    TP a = TP::ones(std::vector<int64_t>{3});
    EXPECT_THROW(transfer<custody::scope::Policy>(std::move(a)), LifetimeError);
    EXPECT_EQ(a.numel(), 3);  // untouched
  }
  EXPECT_EQ(live_tensors<custody::Onednn>(), before);
}

}  // namespace
