// Copyright 2026 The custody Authors.
//
// The generic lifetime contract G1–G9 (docs/design.md §5.1), for every policy and
// backend. Tests follow only what all policies share: `custody::release(t)`
// gives a handle's reference back (G3), and using a released handle is a
// LifetimeError (G4). What happens to handles nobody releases is the policy's
// business (checked by the fixture's G6 check after the policy's idiom runs);
// the tests that release every handle by name say so
// (`expect_released_everything()`), and for them G6 must hold before the idiom
// cleans up, with nothing left for it to give back.

#ifndef CUSTODY_TESTS_CONFORMANCE_LIFETIME_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_LIFETIME_SUITE_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "testing/harness.h"

namespace custody::testing {

template <class T>
class LifetimeTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(LifetimeTest);

// G1: every op returns a fresh handle; inputs are untouched.
TYPED_TEST_P(LifetimeTest, G1_OpsReturnFreshHandlesAndLeaveInputsUntouched) {
  using T = TypeParam;
  this->expect_released_everything();
  auto a = T::from_vector(std::vector<float>{1, 2, 3});
  auto b = T::from_vector(std::vector<float>{10, 20, 30});
  auto c = a.add(b);
  EXPECT_NE(&c.impl(), &a.impl());
  EXPECT_NE(&c.impl(), &b.impl());
  EXPECT_EQ(values_of(a), std::vector<double>({1, 2, 3}));
  EXPECT_EQ(values_of(b), std::vector<double>({10, 20, 30}));
  custody::release(c);
  // The inputs stay usable after the result is gone.
  auto d = a.mul(b);
  EXPECT_EQ(values_of(d), std::vector<double>({10, 40, 90}));
  custody::release(d);
  custody::release(a);
  custody::release(b);
}

TYPED_TEST_P(LifetimeTest, G1_ContiguousOfContiguousIsAFreshHandleToTheSameTensor) {
  using T = TypeParam;
  this->expect_released_everything();
  auto a = T::zeros({2, 2});
  auto c = a.contiguous();
  EXPECT_EQ(&c.impl(), &a.impl());
  custody::release(c);
  EXPECT_EQ(a.numel(), 4) << "releasing the fresh handle must not release the input";
  custody::release(a);
}

// G2: alias() is a fresh handle to the same TensorImpl.
TYPED_TEST_P(LifetimeTest, G2_AliasSharesTheTensorImpl) {
  using T = TypeParam;
  this->expect_released_everything();
  auto a = T::zeros({3});
  auto b = a.alias();
  EXPECT_EQ(&a.impl(), &b.impl());
  auto filled = b.fill_(7);
  EXPECT_EQ(values_of(a), std::vector<double>({7, 7, 7}));
  custody::release(filled);
  custody::release(b);
  EXPECT_EQ(values_of(a), std::vector<double>({7, 7, 7})) << "the original survives its alias";
  custody::release(a);
}

// G3: release gives the reference back now.
TYPED_TEST_P(LifetimeTest, G3_ReleaseReturnsMemoryEarly) {
  using T = TypeParam;
  this->expect_released_everything();
  const StatsSnapshot before = TestFixture::stats();
  auto a = T::zeros({1024});
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  EXPECT_GE(TestFixture::stats().bytes_in_use, before.bytes_in_use + 4096);
  custody::release(a);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(LifetimeTest, G3_ReleaseOfAliasKeepsTheOther) {
  using T = TypeParam;
  this->expect_released_everything();
  const StatsSnapshot before = TestFixture::stats();
  auto a = T::ones({4});
  auto b = a.alias();
  custody::release(a);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors + 1);
  EXPECT_EQ(values_of(b), std::vector<double>({1, 1, 1, 1}));
  custody::release(b);
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
}

// G4: using a released handle is a LifetimeError, never UB.
TYPED_TEST_P(LifetimeTest, G4_UseAfterReleaseIsLifetimeError) {
  using T = TypeParam;
  this->expect_released_everything();
  auto a = T::ones({2});
  auto other = T::ones({2});
  custody::release(a);
  EXPECT_THROW((void)a.numel(), LifetimeError);
  EXPECT_THROW((void)a.sizes(), LifetimeError);
  EXPECT_THROW((void)a.add(other), LifetimeError);
  EXPECT_THROW((void)other.add(a), LifetimeError);
  EXPECT_THROW((void)a.template item<float>(), LifetimeError);
  EXPECT_THROW((void)a.template to_vector<float>(), LifetimeError);
  EXPECT_THROW((void)a.to_string(), LifetimeError);
  EXPECT_THROW((void)a.alias(), LifetimeError);
  EXPECT_THROW((void)a.add_(1), LifetimeError);
  EXPECT_THROW((void)a.transpose(0, 0), LifetimeError);
  custody::release(other);
}

TYPED_TEST_P(LifetimeTest, G4_LifetimeErrorNamesTheOp) {
  using T = TypeParam;
  auto a = T::ones({2});
  custody::release(a);
  try {
    (void)a.matmul(a);
    FAIL() << "no throw";
  } catch (const LifetimeError& e) {
    EXPECT_NE(std::string(e.what()).find("matmul"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
  }
  // The free functions name themselves too, not an internal accessor.
  auto ok = T::ones({2});
  auto idx = T::zeros({1}, ScalarType::Long);
  auto rows = T::ones({2, 2});
  HandleVector<T> both{ok, a};
  auto names = [](auto&& call, const char* op) {
    try {
      (void)call();
      ADD_FAILURE() << op << ": no throw";
    } catch (const LifetimeError& e) {
      EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
    }
  };
  names([&] { return where(ok.gt(0), a, ok); }, "where");
  names([&] { return cat(both, 0); }, "cat");
  names([&] { return embedding(a, idx); }, "embedding");
  names([&] { return embedding(rows, a); }, "embedding");
}

// G5: views share Storage; it is freed only after the last view.
TYPED_TEST_P(LifetimeTest, G5_ViewsShareStorageAndOutliveTheBase) {
  using T = TypeParam;
  this->expect_released_everything();
  const StatsSnapshot before = TestFixture::stats();
  auto flat = T::arange(0, 12, 1, ScalarType::Float);
  auto base = flat.reshape({3, 4});
  custody::release(flat);  // every handle is released by name: no policy-specific temporaries
  const int64_t bytes_with_base = TestFixture::stats().bytes_in_use;
  auto row = base.select(0, 1);
  auto col = base.narrow(1, 2, 1);
  auto tr = base.t();
  EXPECT_TRUE(row.is_same_storage(base));
  EXPECT_TRUE(tr.is_same_storage(col));
  EXPECT_EQ(TestFixture::stats().bytes_in_use, bytes_with_base) << "views allocate no data";
  custody::release(base);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, bytes_with_base) << "storage must outlive the base";
  EXPECT_EQ(values_of(row), std::vector<double>({4, 5, 6, 7}));
  custody::release(row);
  custody::release(col);
  auto last = tr.select(0, 3);
  EXPECT_EQ(values_of(last), std::vector<double>({3, 7, 11}));
  custody::release(tr);
  custody::release(last);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(TestFixture::stats().live_storages, before.live_storages);
}

TYPED_TEST_P(LifetimeTest, G5_WritesThroughAViewAreSeenByTheBase) {
  using T = TypeParam;
  this->expect_released_everything();
  auto base = T::zeros({2, 3});
  auto row = base.select(0, 1);
  auto filled = row.fill_(5);
  EXPECT_EQ(values_of(base), std::vector<double>({0, 0, 0, 5, 5, 5}));
  auto tr = base.t();
  auto col = tr.select(0, 0);
  auto added = col.add_(1);
  EXPECT_EQ(values_of(base), std::vector<double>({1, 0, 0, 6, 5, 5}));
  for (auto* h : {&base, &row, &filled, &tr, &col, &added}) custody::release(*h);
}

TYPED_TEST_P(LifetimeTest, G5_FromBlobDeleterRunsOnceAfterTheLastView) {
  using T = TypeParam;
  this->expect_released_everything();
  using B = typename T::backend_type;
  int calls = 0;
  void* mem = *B::allocate(6 * sizeof(float));
  {
    const std::vector<int64_t> sizes{2, 3};
    auto t = T::from_blob(mem, sizes, ScalarType::Float, [&calls](void* p) {
      ++calls;
      B::deallocate(p, 6 * sizeof(float));
    });
    auto v = t.t();
    auto w = v.alias();
    custody::release(t);
    custody::release(v);
    EXPECT_EQ(calls, 0);
    custody::release(w);
  }
  TestFixture::settle_policy();
  EXPECT_EQ(calls, 1);
}

// G6: loops of temporaries return exactly to the baseline: those the policy
// gives back by its idiom (the fixture's check after it), and, released by
// name, each step's, before any idiom runs.
TYPED_TEST_P(LifetimeTest, G6_LoopOfTemporariesLeavesNothing) {
  using T = TypeParam;
  auto x = T::rand({8, 8});
  auto w = T::rand({8, 8});
  for (int step = 0; step < 50; ++step) {
    auto y = x.matmul(w).relu().add(1.0f).softmax(1);
    auto loss = y.sum();
    // Each of the 8 softmax rows sums to 1: a step that read a freed or reused
    // buffer would not give 8.
    EXPECT_NEAR(loss.template item<float>(), 8.0f, 1e-5f) << "step " << step;
    custody::release(y);
    custody::release(loss);
  }
}

TYPED_TEST_P(LifetimeTest, G6_StepsReleasedByNameReturnToTheBaselineEachStep) {
  using T = TypeParam;
  this->expect_released_everything();
  auto x = T::rand({8, 8});
  auto w = T::rand({8, 8});
  const StatsSnapshot start = TestFixture::stats();
  for (int step = 0; step < 50; ++step) {
    auto mm = x.matmul(w);
    auto act = mm.relu();
    auto view = act.t();
    auto shifted = view.add(1.0f);
    auto alias = shifted.alias();
    auto in_place = alias.mul_(0.5f);
    auto y = shifted.softmax(1);
    auto loss = y.sum();
    EXPECT_NEAR(loss.template item<float>(), 8.0f, 1e-5f) << "step " << step;
    for (auto* h : {&mm, &act, &view, &shifted, &alias, &in_place, &y, &loss}) custody::release(*h);
    const StatsSnapshot now = TestFixture::stats();
    ASSERT_EQ(now.live_tensors, start.live_tensors) << "step " << step;
    ASSERT_EQ(now.bytes_in_use, start.bytes_in_use) << "step " << step;
  }
  custody::release(x);
  custody::release(w);
}

// G8: in-place ops mutate shared data and return fresh handles.
TYPED_TEST_P(LifetimeTest, G8_InPlaceReturnsFreshHandleToSameTensor) {
  using T = TypeParam;
  this->expect_released_everything();
  auto a = T::ones({3});
  auto alias = a.alias();
  auto r = a.add_(2);
  EXPECT_EQ(&r.impl(), &a.impl());
  EXPECT_EQ(values_of(alias), std::vector<double>({3, 3, 3}));
  auto r2 = r.mul_(a);  // self-aliasing operand
  EXPECT_EQ(values_of(a), std::vector<double>({9, 9, 9}));
  custody::release(r);
  custody::release(r2);
  EXPECT_EQ(values_of(a), std::vector<double>({9, 9, 9}));
  custody::release(alias);
  custody::release(a);
}

TYPED_TEST_P(LifetimeTest, G8_OverlappingInPlaceOperandIsReadBeforeWrite) {
  using T = TypeParam;
  // Dense views that overlap what they write, other than the same view: refused as ATen refuses
  // them (Note [In-place overlap], core/ops_common.cc), leaving the data as it was.
  auto m = T::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2});
  CUSTODY_EXPECT_THROWS(::custody::InvalidArgument, m.add_(m.t()), "add_", "single memory location", "clone()");
  CUSTODY_EXPECT_THROWS(::custody::InvalidArgument, m.copy_(m.t()), "copy_", "single memory location");
  CUSTODY_EXPECT_THROWS(::custody::InvalidArgument, m.mul_(m.select(0, 1)), "mul_", "single memory location");
  auto v = T::from_vector(std::vector<float>{1, 2, 3, 4});
  CUSTODY_EXPECT_THROWS(::custody::InvalidArgument, v.narrow(0, 1, 3).copy_(v.narrow(0, 0, 3)), "copy_",
                        "shape [3]");
  EXPECT_EQ(values_of(m), std::vector<double>({1, 2, 3, 4}));
  EXPECT_EQ(values_of(v), std::vector<double>({1, 2, 3, 4}));
  // The same view, or disjoint parts of one storage: fine.
  m.add_(m);
  v.narrow(0, 0, 2).copy_(v.narrow(0, 2, 2));
  EXPECT_EQ(values_of(m), std::vector<double>({2, 4, 6, 8}));
  EXPECT_EQ(values_of(v), std::vector<double>({3, 4, 3, 4}));
  // Layouts with gaps (ATen computes these): the input is read before anything is written.
  auto g = T::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  g.narrow(0, 1, 2).narrow(1, 1, 2).add_(g.narrow(0, 0, 2).narrow(1, 0, 2));
  EXPECT_EQ(values_of(g), std::vector<double>({1, 2, 3, 4, 6, 8, 7, 12, 14}));
}

// G9: an exception inside an op leaks nothing and propagates unchanged.
TYPED_TEST_P(LifetimeTest, G9_ExceptionsLeakNothing) {
  using T = TypeParam;
  this->expect_released_everything();
  const StatsSnapshot before = TestFixture::stats();
  auto a = T::zeros({2, 3});
  auto b = T::zeros({3, 2});
  auto bad_index = T::from_vector(std::vector<int64_t>{9});
  for (int i = 0; i < 10; ++i) {
    EXPECT_THROW((void)a.add(b), ShapeError);
    EXPECT_THROW((void)a.matmul(a), ShapeError);
    EXPECT_THROW((void)a.index_select(0, bad_index), InvalidArgument);
    EXPECT_THROW((void)T::empty({int64_t{1} << 50}), OutOfMemoryError);
  }
  custody::release(a);
  custody::release(b);
  custody::release(bad_index);
  TestFixture::settle_policy();
  EXPECT_EQ(TestFixture::stats().live_tensors, before.live_tensors);
  EXPECT_EQ(TestFixture::stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST_P(LifetimeTest, G9_UserExceptionsPropagateUnchanged) {
  using T = TypeParam;
  struct Custom : std::runtime_error {
    Custom() : std::runtime_error("mine") {}
  };
  auto body = [] {
    auto t = T::ones({16});
    [[maybe_unused]] auto u = t.exp();
    throw Custom();
  };
  EXPECT_THROW(body(), Custom);
}

REGISTER_TYPED_TEST_SUITE_P(LifetimeTest, G1_OpsReturnFreshHandlesAndLeaveInputsUntouched,
                            G1_ContiguousOfContiguousIsAFreshHandleToTheSameTensor,
                            G2_AliasSharesTheTensorImpl, G3_ReleaseReturnsMemoryEarly,
                            G3_ReleaseOfAliasKeepsTheOther, G4_UseAfterReleaseIsLifetimeError,
                            G4_LifetimeErrorNamesTheOp, G5_ViewsShareStorageAndOutliveTheBase,
                            G5_WritesThroughAViewAreSeenByTheBase,
                            G5_FromBlobDeleterRunsOnceAfterTheLastView,
                            G6_LoopOfTemporariesLeavesNothing,
                            G6_StepsReleasedByNameReturnToTheBaselineEachStep,
                            G8_InPlaceReturnsFreshHandleToSameTensor,
                            G8_OverlappingInPlaceOperandIsReadBeforeWrite, G9_ExceptionsLeakNothing,
                            G9_UserExceptionsPropagateUnchanged);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_LIFETIME_SUITE_H_
