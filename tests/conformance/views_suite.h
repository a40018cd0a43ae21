// Copyright 2026 The custody Authors.
//
// Views: alias, reshape/view, narrow, select, transpose, permute, squeeze,
// unsqueeze, expand, flatten, contiguous — sizes, strides, offsets, values,
// and that they share storage with their base.

#ifndef CUSTODY_TESTS_CONFORMANCE_VIEWS_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_VIEWS_SUITE_H_

#include <vector>

#include "testing/harness.h"

namespace custody::testing {

template <class T>
class ViewsTest : public ConformanceTest<T> {
 protected:
  // [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]] as float32.
  static T grid() { return T::arange(0, 12, 1, ScalarType::Float).reshape({3, 4}); }
};
TYPED_TEST_SUITE_P(ViewsTest);

TYPED_TEST_P(ViewsTest, ReshapeOfContiguousIsAView) {
  auto g = TestFixture::grid();
  auto r = g.reshape({2, 6});
  EXPECT_TRUE(r.is_same_storage(g));
  EXPECT_EQ(sizes_vec(r.strides()), std::vector<int64_t>({6, 1}));
  auto inferred = g.reshape({-1, 3});
  EXPECT_EQ(sizes_vec(inferred.sizes()), std::vector<int64_t>({4, 3}));
}

TYPED_TEST_P(ViewsTest, ReshapeOfTransposeCopies) {
  auto g = TestFixture::grid();
  auto r = g.t().reshape({12});
  EXPECT_FALSE(r.is_same_storage(g));
  EXPECT_EQ(values_of(r), std::vector<double>({0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

TYPED_TEST_P(ViewsTest, ViewSplitsAndMergesCompatibleDims) {
  auto g = TestFixture::grid();
  auto v = g.view({3, 2, 2});
  EXPECT_EQ(sizes_vec(v.strides()), std::vector<int64_t>({4, 2, 1}));
  auto n = g.narrow(1, 0, 2).view({3, 2, 1});  // non-contiguous but viewable
  EXPECT_TRUE(n.is_same_storage(g));
  EXPECT_EQ(values_of(n), std::vector<double>({0, 1, 4, 5, 8, 9}));
}

TYPED_TEST_P(ViewsTest, NarrowHasOffsetAndSharesData) {
  auto g = TestFixture::grid();
  auto n = g.narrow(1, 1, 2);
  EXPECT_EQ(n.storage_offset(), 1);
  EXPECT_EQ(sizes_vec(n.sizes()), std::vector<int64_t>({3, 2}));
  EXPECT_FALSE(n.is_contiguous());
  EXPECT_EQ(values_of(n), std::vector<double>({1, 2, 5, 6, 9, 10}));
  auto neg = g.narrow(0, -1, 1);
  EXPECT_EQ(values_of(neg), std::vector<double>({8, 9, 10, 11}));
}

TYPED_TEST_P(ViewsTest, SelectDropsADim) {
  auto g = TestFixture::grid();
  auto c = g.select(1, -1);
  EXPECT_EQ(c.dim(), 1);
  EXPECT_EQ(c.storage_offset(), 3);
  EXPECT_EQ(values_of(c), std::vector<double>({3, 7, 11}));
  auto s = g.select(0, 2).select(0, 1);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.template item<float>(), 9.0f);
}

TYPED_TEST_P(ViewsTest, TransposeAndPermuteSwapStrides) {
  auto g = TestFixture::grid();
  auto t = g.transpose(0, 1);
  EXPECT_EQ(sizes_vec(t.strides()), std::vector<int64_t>({1, 4}));
  EXPECT_EQ(sizes_vec(t.dim_order()), std::vector<int64_t>({1, 0}));
  auto c = g.reshape({3, 2, 2}).permute({2, 0, 1});
  EXPECT_EQ(sizes_vec(c.sizes()), std::vector<int64_t>({2, 3, 2}));
  EXPECT_EQ(sizes_vec(c.strides()), std::vector<int64_t>({1, 4, 2}));
  EXPECT_EQ(values_of(c.select(0, 1)), std::vector<double>({1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(values_of(g.t().t()), values_of(g));
}

TYPED_TEST_P(ViewsTest, SqueezeAndUnsqueeze) {
  using T = TypeParam;
  auto a = T::zeros({1, 3, 1, 2});
  EXPECT_EQ(sizes_vec(a.squeeze().sizes()), std::vector<int64_t>({3, 2}));
  EXPECT_EQ(sizes_vec(a.squeeze(2).sizes()), std::vector<int64_t>({1, 3, 2}));
  EXPECT_EQ(sizes_vec(a.squeeze(1).sizes()), std::vector<int64_t>({1, 3, 1, 2})) << "size != 1: no-op";
  auto b = T::zeros({3});
  EXPECT_EQ(sizes_vec(b.unsqueeze(0).sizes()), std::vector<int64_t>({1, 3}));
  EXPECT_EQ(sizes_vec(b.unsqueeze(-1).sizes()), std::vector<int64_t>({3, 1}));
  EXPECT_EQ(sizes_vec(T::scalar(1.0f).unsqueeze(0).sizes()), std::vector<int64_t>({1}));
}

TYPED_TEST_P(ViewsTest, ExpandUsesZeroStrides) {
  using T = TypeParam;
  auto a = T::from_vector(std::vector<float>{1, 2, 3}, {3, 1});
  auto e = a.expand({2, 3, 4});
  EXPECT_EQ(sizes_vec(e.strides()), std::vector<int64_t>({0, 1, 0}));
  EXPECT_TRUE(e.is_same_storage(a));
  auto v = values_of(e);
  EXPECT_EQ(v.size(), 24u);
  EXPECT_EQ(v[4], 2);
  EXPECT_EQ(v[23], 3);
  EXPECT_EQ(sizes_vec(a.expand({-1, 5}).sizes()), std::vector<int64_t>({3, 5}));
}

TYPED_TEST_P(ViewsTest, FlattenRanges) {
  using T = TypeParam;
  auto a = T::zeros({2, 3, 4});
  EXPECT_EQ(sizes_vec(a.flatten().sizes()), std::vector<int64_t>({24}));
  EXPECT_EQ(sizes_vec(a.flatten(1).sizes()), std::vector<int64_t>({2, 12}));
  EXPECT_EQ(sizes_vec(a.flatten(0, 1).sizes()), std::vector<int64_t>({6, 4}));
  EXPECT_EQ(sizes_vec(T::scalar(1.0f).flatten().sizes()), std::vector<int64_t>({1}));
  auto t = TestFixture::grid().t().flatten();
  EXPECT_EQ(values_of(t), std::vector<double>({0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

TYPED_TEST_P(ViewsTest, ContiguousCopiesOnlyWhenNeeded) {
  auto g = TestFixture::grid();
  EXPECT_EQ(&g.contiguous().impl(), &g.impl());
  auto c = g.t().contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.is_same_storage(g));
  EXPECT_EQ(values_of(c), values_of(g.t()));
}

TYPED_TEST_P(ViewsTest, ViewsOfViewsCompose) {
  auto g = TestFixture::grid();
  auto v = g.t().narrow(0, 1, 2).select(1, 2);  // column 1..2 of row 2
  EXPECT_EQ(values_of(v), std::vector<double>({9, 10}));
  v.fill_(-1);
  EXPECT_EQ(values_of(g.select(0, 2)), std::vector<double>({8, -1, -1, 11}));
}

TYPED_TEST_P(ViewsTest, AliasIsSameTensorNotAView) {
  auto g = TestFixture::grid();
  auto a = g.alias();
  EXPECT_EQ(&a.impl(), &g.impl());
  EXPECT_EQ(a.storage_offset(), 0);
}

TYPED_TEST_P(ViewsTest, ViewsOfZeroSizedTensors) {
  using T = TypeParam;
  auto e = T::zeros({0, 3});
  EXPECT_EQ(sizes_vec(e.t().sizes()), std::vector<int64_t>({3, 0}));
  EXPECT_EQ(sizes_vec(e.reshape({3, 0, 1}).sizes()), std::vector<int64_t>({3, 0, 1}));
  EXPECT_EQ(e.narrow(1, 1, 2).numel(), 0);
}

REGISTER_TYPED_TEST_SUITE_P(ViewsTest, ReshapeOfContiguousIsAView, ReshapeOfTransposeCopies,
                            ViewSplitsAndMergesCompatibleDims, NarrowHasOffsetAndSharesData,
                            SelectDropsADim, TransposeAndPermuteSwapStrides, SqueezeAndUnsqueeze,
                            ExpandUsesZeroStrides, FlattenRanges, ContiguousCopiesOnlyWhenNeeded,
                            ViewsOfViewsCompose, AliasIsSameTensorNotAView, ViewsOfZeroSizedTensors);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_VIEWS_SUITE_H_
