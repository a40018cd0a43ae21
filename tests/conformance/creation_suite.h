// Copyright 2026 The custody Authors.
//
// Creation: every factory of the op set v1 — shapes, dtypes, strides,
// dynamism, values — and the conversions back to the host.

#ifndef CUSTODY_TESTS_CONFORMANCE_CREATION_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_CREATION_SUITE_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/random.h"
#include "testing/harness.h"

namespace custody::testing {

template <class T>
class CreationTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(CreationTest);

TYPED_TEST_P(CreationTest, EmptyHasShapeDtypeAndContiguousStrides) {
  using T = TypeParam;
  auto t = T::empty({2, 3, 4}, ScalarType::Double);
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(sizes_vec(t.sizes()), std::vector<int64_t>({2, 3, 4}));
  EXPECT_EQ(sizes_vec(t.strides()), std::vector<int64_t>({12, 4, 1}));
  EXPECT_EQ(t.scalar_type(), ScalarType::Double);
  EXPECT_EQ(t.element_size(), 8u);
  EXPECT_EQ(t.nbytes(), 24u * 8u);
  EXPECT_EQ(t.storage_offset(), 0);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(sizes_vec(t.dim_order()), std::vector<int64_t>({0, 1, 2}));
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
}

TYPED_TEST_P(CreationTest, ZerosOnesFullEveryDtype) {
  using T = TypeParam;
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double, ScalarType::Int, ScalarType::Long,
                        ScalarType::Byte, ScalarType::Bool}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    EXPECT_EQ(values_of(T::zeros({3}, dt)), std::vector<double>({0, 0, 0}));
    EXPECT_EQ(values_of(T::ones({2}, dt)), std::vector<double>({1, 1}));
    auto f = T::full(std::vector<int64_t>{2}, 1, dt);
    EXPECT_EQ(f.scalar_type(), dt);
    EXPECT_EQ(values_of(f), std::vector<double>({1, 1}));
  }
}

TYPED_TEST_P(CreationTest, FullInfersDtypeFromTheValue) {
  using T = TypeParam;
  EXPECT_EQ(T::full(std::vector<int64_t>{2}, 7).scalar_type(), ScalarType::Long);
  EXPECT_EQ(T::full(std::vector<int64_t>{2}, 7.5).scalar_type(), ScalarType::Float);
  EXPECT_EQ(T::full(std::vector<int64_t>{2}, true).scalar_type(), ScalarType::Bool);
  EXPECT_EQ(values_of(T::full(std::vector<int64_t>{2}, 7.5)), std::vector<double>({7.5, 7.5}));
}

TYPED_TEST_P(CreationTest, FullCastsFloatValueIntoIntegerDtype) {
  using T = TypeParam;
  EXPECT_EQ(values_of(T::full(std::vector<int64_t>{2}, 2.9, ScalarType::Int)), std::vector<double>({2, 2}));
  EXPECT_EQ(values_of(T::full(std::vector<int64_t>{2}, -2.9, ScalarType::Long)), std::vector<double>({-2, -2}));
}

TYPED_TEST_P(CreationTest, ArangeIntegerAndFloat) {
  using T = TypeParam;
  auto a = T::arange(5);
  EXPECT_EQ(a.scalar_type(), ScalarType::Long);
  EXPECT_EQ(values_of(a), std::vector<double>({0, 1, 2, 3, 4}));
  auto b = T::arange(1, 2, 0.25);
  EXPECT_EQ(b.scalar_type(), ScalarType::Float);
  EXPECT_EQ(values_of(b), std::vector<double>({1, 1.25, 1.5, 1.75}));
  auto c = T::arange(10, 0, -3);
  EXPECT_EQ(values_of(c), std::vector<double>({10, 7, 4, 1}));
  EXPECT_EQ(T::arange(3, 3).numel(), 0);
  EXPECT_EQ(T::arange(0, 4, 1, ScalarType::Double).scalar_type(), ScalarType::Double);
}

TYPED_TEST_P(CreationTest, ScalarIsZeroDimStatic) {
  using T = TypeParam;
  auto s = T::scalar(3.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.scalar_type(), ScalarType::Float);
  EXPECT_EQ(s.shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_DOUBLE_EQ(s.template item<double>(), 3.5);
  EXPECT_EQ(T::scalar(int64_t{4}).scalar_type(), ScalarType::Long);
  EXPECT_EQ(T::scalar(2, ScalarType::Double).template item<double>(), 2.0);
}

TYPED_TEST_P(CreationTest, FromVectorEveryDtypeRoundTrips) {
  using T = TypeParam;
  EXPECT_EQ(T::from_vector(std::vector<float>{1.5f, -2}).template to_vector<float>(),
            std::vector<float>({1.5f, -2}));
  EXPECT_EQ(T::from_vector(std::vector<double>{1e300, -0.5}).template to_vector<double>(),
            std::vector<double>({1e300, -0.5}));
  EXPECT_EQ(T::from_vector(std::vector<int32_t>{-7, 8}).template to_vector<int32_t>(),
            std::vector<int32_t>({-7, 8}));
  EXPECT_EQ(T::from_vector(std::vector<int64_t>{int64_t{1} << 60}).template to_vector<int64_t>(),
            std::vector<int64_t>({int64_t{1} << 60}));
  EXPECT_EQ(T::from_vector(std::vector<uint8_t>{0, 255}).template to_vector<uint8_t>(),
            std::vector<uint8_t>({0, 255}));
  EXPECT_EQ(T::from_vector(std::vector<bool>{true, false, true}).template to_vector<bool>(),
            std::vector<bool>({true, false, true}));
}

TYPED_TEST_P(CreationTest, FromVectorWithSizes) {
  using T = TypeParam;
  auto t = T::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(sizes_vec(t.sizes()), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(t.select(0, 1).template to_vector<float>(), std::vector<float>({4, 5, 6}));
}

TYPED_TEST_P(CreationTest, EmptyStridedHonoursStrides) {
  using T = TypeParam;
  auto t = T::empty_strided(std::vector<int64_t>{2, 3}, std::vector<int64_t>{1, 2});
  EXPECT_EQ(sizes_vec(t.strides()), std::vector<int64_t>({1, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(sizes_vec(t.dim_order()), std::vector<int64_t>({1, 0}));
  auto f = T::full_strided(std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 2}, 3.0f);
  EXPECT_EQ(values_of(f), std::vector<double>({3, 3, 3, 3}));
}

TYPED_TEST_P(CreationTest, LikeFactoriesCopyShapeAndDtype) {
  using T = TypeParam;
  auto base = T::ones({2, 3}, ScalarType::Int);
  auto z = base.zeros_like();
  EXPECT_EQ(sizes_vec(z.sizes()), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(z.scalar_type(), ScalarType::Int);
  EXPECT_EQ(values_of(base.ones_like(ScalarType::Double)), std::vector<double>(6, 1.0));
  EXPECT_EQ(values_of(base.full_like(9)), std::vector<double>(6, 9.0));
  EXPECT_EQ(base.empty_like().numel(), 6);
  EXPECT_EQ(base.rand_like(ScalarType::Float).scalar_type(), ScalarType::Float);
  EXPECT_EQ(base.randint_like(0, 3).scalar_type(), ScalarType::Int);
}

TYPED_TEST_P(CreationTest, RandIsInUnitIntervalAndSeeded) {
  using T = TypeParam;
  manual_seed(1234);
  auto a = T::rand({1000});
  manual_seed(1234);
  auto b = T::rand({1000});
  const auto va = values_of(a);
  EXPECT_EQ(va, values_of(b)) << "same seed, same values";
  double mean = 0;
  for (double v : va) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
    mean += v / va.size();
  }
  EXPECT_NEAR(mean, 0.5, 0.05);
  auto c = T::rand({1000});
  EXPECT_NE(values_of(c), va) << "the next call takes a fresh stream";
}

TYPED_TEST_P(CreationTest, RandnHasStandardMoments) {
  using T = TypeParam;
  manual_seed(7);
  const auto v = values_of(T::randn({20000}, ScalarType::Double));
  double mean = 0, var = 0;
  for (double x : v) mean += x / v.size();
  for (double x : v) var += (x - mean) * (x - mean) / v.size();
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(var, 1.0, 0.05);
}

TYPED_TEST_P(CreationTest, RandintIsInRange) {
  using T = TypeParam;
  auto r = T::randint(-3, 4, std::vector<int64_t>{500});
  EXPECT_EQ(r.scalar_type(), ScalarType::Long);
  std::vector<int> seen(7, 0);
  for (double v : values_of(r)) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    seen[static_cast<int>(v) + 3]++;
  }
  for (int s : seen) EXPECT_GT(s, 0) << "every value in range appears";
  EXPECT_EQ(T::randint(0, 2, std::vector<int64_t>{4}, ScalarType::Bool).scalar_type(), ScalarType::Bool);
}

// Integer bounds never pass through a double: bounds at the int64 limits are
// exact, and a range spanning nearly all of int64 neither overflows nor traps.
TYPED_TEST_P(CreationTest, RandintBoundsNearTheInt64LimitsAreExact) {
  using T = TypeParam;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (int64_t v : {kMax - 1, kMax - 2, kMin, kMin + 1}) {
    for (int64_t x : T::randint(v, v + 1, std::vector<int64_t>{8}).template to_vector<int64_t>()) {
      EXPECT_EQ(x, v) << "randint(" << v << ", " << v + 1 << ")";
    }
  }
  const std::vector<int64_t> all =
      T::randint(kMin, kMax, std::vector<int64_t>{256}).template to_vector<int64_t>();
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](int64_t x) { return x < 0; }));
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](int64_t x) { return x > 0; }));
  for (int64_t x : all) EXPECT_LT(x, kMax);
  // The narrow dtypes take their whole range.
  const std::vector<uint8_t> bytes =
      T::randint(0, 256, std::vector<int64_t>{512}, ScalarType::Byte).template to_vector<uint8_t>();
  EXPECT_TRUE(std::any_of(bytes.begin(), bytes.end(), [](uint8_t x) { return x > 200; }));
  const std::vector<int32_t> ints =
      T::randint(std::numeric_limits<int32_t>::min(), int64_t{std::numeric_limits<int32_t>::max()} + 1,
                 std::vector<int64_t>{256}, ScalarType::Int)
          .template to_vector<int32_t>();
  EXPECT_TRUE(std::any_of(ints.begin(), ints.end(), [](int32_t x) { return x < -(1 << 30); }));
}

TYPED_TEST_P(CreationTest, CloneIsIndependentAndContiguous) {
  using T = TypeParam;
  auto a = T::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  auto c = a.t().clone();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.is_same_storage(a));
  EXPECT_EQ(values_of(c), std::vector<double>({1, 4, 2, 5, 3, 6}));
  a.fill_(0);
  EXPECT_EQ(values_of(c), std::vector<double>({1, 4, 2, 5, 3, 6}));
}

TYPED_TEST_P(CreationTest, FromBlobSharesMemoryWithoutCopy) {
  using T = TypeParam;
  using B = typename T::backend_type;
  const std::vector<float> host{1, 2, 3, 4};
  void* mem = *B::allocate(host.size() * sizeof(float));
  ASSERT_TRUE(B::copy_from_host(mem, host.data(), host.size() * sizeof(float)).ok());
  {
    const std::vector<int64_t> sizes{2, 2};
    auto t = T::from_blob(mem, sizes);
    EXPECT_EQ(t.template const_data_ptr<float>(), static_cast<float*>(mem));
    t.mul_(2);
    std::vector<float> back(4);
    ASSERT_TRUE(B::copy_to_host(back.data(), mem, 16).ok());
    EXPECT_EQ(back, std::vector<float>({2, 4, 6, 8}));
    custody::release(t);
  }
  TestFixture::settle_policy();
  B::deallocate(mem, host.size() * sizeof(float));  // no deleter: still ours
}

TYPED_TEST_P(CreationTest, FromBlobWithStrides) {
  using T = TypeParam;
  using B = typename T::backend_type;
  const std::vector<float> host{1, 2, 3, 4, 5, 6};
  void* mem = *B::allocate(24);
  ASSERT_TRUE(B::copy_from_host(mem, host.data(), 24).ok());
  const std::vector<int64_t> sizes{3, 2}, strides{1, 3};
  {
    auto t = T::from_blob(mem, sizes, ScalarType::Float, [](void* p) { B::deallocate(p, 24); },
                          IntSpan(strides));
    EXPECT_EQ(values_of(t), std::vector<double>({1, 4, 2, 5, 3, 6}));
    custody::release(t);
  }
}

TYPED_TEST_P(CreationTest, ToDtypeConvertsAndTruncates) {
  using T = TypeParam;
  auto f = T::from_vector(std::vector<float>{-1.7f, 0.5f, 2.9f, 300.f});
  EXPECT_EQ(values_of(f.to(ScalarType::Long)), std::vector<double>({-1, 0, 2, 300}));
  EXPECT_EQ(values_of(f.to(ScalarType::Bool)), std::vector<double>({1, 1, 1, 1}));
  EXPECT_EQ(values_of(T::from_vector(std::vector<int32_t>{0, 5}).to(ScalarType::Bool)),
            std::vector<double>({0, 1}));
  auto same = f.to(ScalarType::Float);
  EXPECT_EQ(&same.impl(), &f.impl()) << "to(same dtype) is a fresh handle to the same tensor";
}

TYPED_TEST_P(CreationTest, HalfAndBFloat16AreStorageAndCasts) {
  using T = TypeParam;
  auto f = T::from_vector(std::vector<float>{1.0f, -2.5f, 65504.f, 1e-8f, 0.1f});
  auto h = f.to(ScalarType::Half);
  EXPECT_EQ(h.element_size(), 2u);
  auto back = values_of(h);
  EXPECT_EQ(back[0], 1.0);
  EXPECT_EQ(back[1], -2.5);
  EXPECT_EQ(back[2], 65504.0);
  EXPECT_EQ(back[3], 0.0) << "underflows to zero";
  EXPECT_NEAR(back[4], 0.1, 1e-4);
  auto bf = f.to(ScalarType::BFloat16);
  EXPECT_NEAR(values_of(bf)[4], 0.1, 1e-3);
  EXPECT_EQ(values_of(bf.t().contiguous())[1], -2.5) << "views and copies work";
}

TYPED_TEST_P(CreationTest, ItemConvertsLikeATen) {
  using T = TypeParam;
  auto t = T::from_vector(std::vector<float>{2.75f});
  EXPECT_EQ(t.template item<float>(), 2.75f);
  EXPECT_EQ(t.template item<double>(), 2.75);
  EXPECT_EQ(t.template item<int64_t>(), 2);
  EXPECT_EQ(T::scalar(true).template item<bool>(), true);
}

TYPED_TEST_P(CreationTest, PrintsLikePyTorch) {
  using T = TypeParam;
  EXPECT_EQ(T::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2}).to_string(),
            "tensor([[1., 2.],\n        [3., 4.]])");
  EXPECT_EQ(T::from_vector(std::vector<float>{1.5f, -2.25f}).to_string(), "tensor([ 1.5000, -2.2500])");
  EXPECT_EQ(T::from_vector(std::vector<int32_t>{1, 2}).to_string(), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_EQ(T::from_vector(std::vector<int64_t>{10, -2}).to_string(), "tensor([10, -2])");
  EXPECT_EQ(T::from_vector(std::vector<bool>{true, false}).to_string(), "tensor([ True, False])");
  EXPECT_EQ(T::scalar(3.0, ScalarType::Double).to_string(), "tensor(3., dtype=torch.float64)");
  EXPECT_EQ(T::zeros({0}).to_string(), "tensor([])");
  EXPECT_EQ(T::zeros({0, 3}).to_string(), "tensor([], size=(0, 3))");
  std::ostringstream os;
  os << T::arange(3);
  EXPECT_EQ(os.str(), "tensor([0, 1, 2])");
}

TYPED_TEST_P(CreationTest, ZeroSizedTensorsAreValid) {
  using T = TypeParam;
  auto e = T::zeros({0, 4});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.nbytes(), 0u);
  EXPECT_TRUE(e.is_contiguous());
  EXPECT_EQ(values_of(e.add(1)).size(), 0u);
  EXPECT_EQ(values_of(e.sum()), std::vector<double>({0}));
  EXPECT_EQ(sizes_vec(e.sum(0).sizes()), std::vector<int64_t>({4}));
}

TYPED_TEST_P(CreationTest, DynamicUnboundGrowsKeepingData) {
  using T = TypeParam;
  auto t = T::full(std::vector<int64_t>{2}, 5.0f, std::nullopt, TensorShapeDynamism::DYNAMIC_UNBOUND);
  ASSERT_TRUE(t.resize(std::vector<int64_t>{6}).ok());
  EXPECT_EQ(t.numel(), 6);
  auto v = values_of(t);
  EXPECT_EQ(v[0], 5);
  EXPECT_EQ(v[1], 5);
}

TYPED_TEST_P(CreationTest, DeviceMatchesBackend) {
  using T = TypeParam;
  using B = typename T::backend_type;
  EXPECT_EQ(T::zeros({1}).device(), B::device());
}

REGISTER_TYPED_TEST_SUITE_P(CreationTest, RandintBoundsNearTheInt64LimitsAreExact, EmptyHasShapeDtypeAndContiguousStrides,
                            ZerosOnesFullEveryDtype, FullInfersDtypeFromTheValue,
                            FullCastsFloatValueIntoIntegerDtype, ArangeIntegerAndFloat,
                            ScalarIsZeroDimStatic, FromVectorEveryDtypeRoundTrips, FromVectorWithSizes,
                            EmptyStridedHonoursStrides, LikeFactoriesCopyShapeAndDtype,
                            RandIsInUnitIntervalAndSeeded, RandnHasStandardMoments, RandintIsInRange,
                            CloneIsIndependentAndContiguous, FromBlobSharesMemoryWithoutCopy,
                            FromBlobWithStrides, ToDtypeConvertsAndTruncates,
                            HalfAndBFloat16AreStorageAndCasts, ItemConvertsLikeATen, PrintsLikePyTorch,
                            ZeroSizedTensorsAreValid, DynamicUnboundGrowsKeepingData,
                            DeviceMatchesBackend);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_CREATION_SUITE_H_
