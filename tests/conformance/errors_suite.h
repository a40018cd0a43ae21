// Copyright 2026 The custody Authors.
//
// Errors: every misuse throws the right custody::Error subclass with a message
// naming the op and the offending shapes/dtypes — never a crash or an abort —
// and leaves no tensor behind (the fixture's G6 check runs after each test).

#ifndef CUSTODY_TESTS_CONFORMANCE_ERRORS_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_ERRORS_SUITE_H_

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "testing/harness.h"

namespace custody::testing {


template <class T>
class ErrorsTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(ErrorsTest);

TYPED_TEST_P(ErrorsTest, BroadcastMismatchNamesOpAndShapes) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  auto b = T::zeros({4});
  CUSTODY_EXPECT_THROWS(ShapeError, a.add(b), "add", "[2, 3]", "[4]");
  CUSTODY_EXPECT_THROWS(ShapeError, a.mul(b), "mul", "[2, 3]", "[4]");
  CUSTODY_EXPECT_THROWS(ShapeError, a.lt(b), "lt");
}

TYPED_TEST_P(ErrorsTest, InPlaceBroadcastMustKeepSelfShape) {
  using T = TypeParam;
  auto a = T::zeros({3});
  auto b = T::zeros({2, 3});
  CUSTODY_EXPECT_THROWS(ShapeError, a.add_(b), "add_", "[3]", "[2, 3]");
}

TYPED_TEST_P(ErrorsTest, InPlaceResultCannotNarrowFloatToInt) {
  using T = TypeParam;
  auto a = T::zeros({3}, ScalarType::Long);
  auto b = T::ones({3});
  CUSTODY_EXPECT_THROWS(DTypeError, a.add_(b), "add_", "float32", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, a.mul_(2.5), "mul_", "float32", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, a.div_(a), "div_");
}

TYPED_TEST_P(ErrorsTest, InPlaceOnExpandedTensorIsRejected) {
  using T = TypeParam;
  auto a = T::zeros({1, 3}).expand({4, 3});
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.add_(1), "add_", "single memory location");
}

TYPED_TEST_P(ErrorsTest, MeanOfIntegersIsDTypeError) {
  using T = TypeParam;
  auto a = T::arange(6);
  CUSTODY_EXPECT_THROWS(DTypeError, a.mean(), "mean", "int64");
}

TYPED_TEST_P(ErrorsTest, StorageOnlyDtypesRejectCompute) {
  using T = TypeParam;
  auto h = T::ones({2}).to(ScalarType::Half);
  auto bf = T::ones({2}).to(ScalarType::BFloat16);
  CUSTODY_EXPECT_THROWS(DTypeError, h.add(h), "add", "float16");
  CUSTODY_EXPECT_THROWS(DTypeError, bf.exp(), "exp", "bfloat16");
  CUSTODY_EXPECT_THROWS(DTypeError, h.sum(), "sum", "float16");
}

TYPED_TEST_P(ErrorsTest, FloatOnlyOpsRejectIntegers) {
  using T = TypeParam;
  auto i = T::arange(4);
  CUSTODY_EXPECT_THROWS(DTypeError, i.softmax(0), "softmax", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, i.log_softmax(0), "log_softmax", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, i.gelu(), "gelu", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, i.silu(), "silu", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, T::rand({2}, ScalarType::Int), "rand", "int32");
  CUSTODY_EXPECT_THROWS(DTypeError, T::randn({2}, ScalarType::Long), "randn", "int64");
}

TYPED_TEST_P(ErrorsTest, BoolArithmeticRestrictions) {
  using T = TypeParam;
  auto b = T::ones({2}, ScalarType::Bool);
  CUSTODY_EXPECT_THROWS(DTypeError, b.sub(b), "sub", "bool");
  CUSTODY_EXPECT_THROWS(DTypeError, b.neg(), "neg", "bool");
  CUSTODY_EXPECT_THROWS(DTypeError, b.argmax(), "argmax", "bool");
  CUSTODY_EXPECT_THROWS(DTypeError, b.matmul(b), "matmul", "bool");
}

TYPED_TEST_P(ErrorsTest, IntegerToNegativePowerIsInvalid) {
  using T = TypeParam;
  auto a = T::from_vector(std::vector<int64_t>{2, 3});
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.pow(-1), "pow", "negative");
  // Tensor exponents follow ATen instead: 1 for base 1, +-1 for base -1, else 0.
  auto b = T::from_vector(std::vector<int64_t>{2, 1, -1, -1});
  auto e = T::from_vector(std::vector<int64_t>{-1, -3, -3, -2});
  EXPECT_EQ(values_of(b.pow(e)), std::vector<double>({0, 1, -1, 1}));
  // An exponent the base's dtype cannot hold is refused, as in ATen, not wrapped first.
  auto u = T::from_vector(std::vector<uint8_t>{2, 3});
  CUSTODY_EXPECT_THROWS(InvalidArgument, u.pow(300), "pow", "300", "uint8");
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.to(ScalarType::Int).pow(int64_t{10000000000}), "pow",
                        "10000000000", "int32");
  EXPECT_EQ(values_of(u.pow(2)), std::vector<double>({4, 9}));
}

TYPED_TEST_P(ErrorsTest, DimOutOfRange) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  CUSTODY_EXPECT_THROWS(ShapeError, a.sum(2), "sum", "dim 2", "rank 2");
  CUSTODY_EXPECT_THROWS(ShapeError, a.sum(-3), "sum", "dim -3");
  CUSTODY_EXPECT_THROWS(ShapeError, a.softmax(5), "softmax", "dim 5");
  CUSTODY_EXPECT_THROWS(ShapeError, a.transpose(0, 2), "transpose", "dim 2");
  CUSTODY_EXPECT_THROWS(ShapeError, a.unsqueeze(4), "unsqueeze", "dim 4");
  CUSTODY_EXPECT_THROWS(ShapeError, a.squeeze(3), "squeeze");
  CUSTODY_EXPECT_THROWS(ShapeError, a.argmax(2), "argmax");
  CUSTODY_EXPECT_THROWS(ShapeError, a.size(2), "size");
}

TYPED_TEST_P(ErrorsTest, RepeatedReductionDim) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  CUSTODY_EXPECT_THROWS(ShapeError, a.sum({1, -1}), "sum", "multiple times");
}

TYPED_TEST_P(ErrorsTest, MaxOfEmptyIsShapeError) {
  using T = TypeParam;
  auto e = T::zeros({0, 3});
  CUSTODY_EXPECT_THROWS(ShapeError, e.max(), "max", "[0, 3]");
  CUSTODY_EXPECT_THROWS(ShapeError, e.min(0), "min", "size 0");
  CUSTODY_EXPECT_THROWS(ShapeError, e.argmax(), "argmax", "empty");
  EXPECT_EQ(sizes_vec(e.max(1).sizes()), std::vector<int64_t>({0}));
}

TYPED_TEST_P(ErrorsTest, IndexOutOfRange) {
  using T = TypeParam;
  auto a = T::zeros({3, 2});
  auto idx = T::from_vector(std::vector<int64_t>{0, 3});
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.index_select(0, idx), "index_select", "index 3", "size 3");
  auto neg = T::from_vector(std::vector<int64_t>{-1});
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.index_select(0, neg), "index_select", "-1");
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.select(0, 3), "select", "index 3");
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.select(1, -3), "select", "index -3");
}

TYPED_TEST_P(ErrorsTest, IndexDtypeAndRank) {
  using T = TypeParam;
  auto a = T::zeros({3, 2});
  auto fidx = T::zeros({2});
  CUSTODY_EXPECT_THROWS(DTypeError, a.index_select(0, fidx), "index_select", "float32");
  auto idx2 = T::zeros({2, 2}, ScalarType::Long);
  CUSTODY_EXPECT_THROWS(ShapeError, a.index_select(0, idx2), "index_select", "[2, 2]");
  auto w1 = T::zeros({3});
  CUSTODY_EXPECT_THROWS(ShapeError, embedding(w1, idx2), "embedding", "[3]");
  // embedding's own name, also for the checks it shares with index_select (on a device backend,
  // the bound check runs in the kernel).
  auto w = T::zeros({4, 2});
  CUSTODY_EXPECT_THROWS(DTypeError, embedding(w, fidx), "embedding", "float32");
  CUSTODY_EXPECT_THROWS(InvalidArgument, embedding(w, T::from_vector(std::vector<int64_t>{1, 7})),
                        "embedding: index 7 is out of range", "size 4");
  CUSTODY_EXPECT_THROWS(InvalidArgument, embedding(w, T::from_vector(std::vector<int64_t>{-5})),
                        "embedding: index -5");
}

TYPED_TEST_P(ErrorsTest, NarrowOutOfRange) {
  using T = TypeParam;
  auto a = T::zeros({4});
  CUSTODY_EXPECT_THROWS(ShapeError, a.narrow(0, 2, 3), "narrow", "length 3");
  CUSTODY_EXPECT_THROWS(ShapeError, a.narrow(0, 5, 0), "narrow", "start 5");
  CUSTODY_EXPECT_THROWS(ShapeError, a.narrow(0, 0, -1), "narrow");
}

TYPED_TEST_P(ErrorsTest, ViewIncompatibleWithStridesSuggestsReshape) {
  using T = TypeParam;
  auto a = T::zeros({2, 3}).t();
  CUSTODY_EXPECT_THROWS(ShapeError, a.view({6}), "view", "reshape");
  auto r = a.reshape({6});  // reshape copies instead
  EXPECT_EQ(r.numel(), 6);
}

TYPED_TEST_P(ErrorsTest, ReshapeToWrongNumel) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  CUSTODY_EXPECT_THROWS(ShapeError, a.reshape({4, 2}), "reshape", "[4, 2]", "size 6");
  CUSTODY_EXPECT_THROWS(ShapeError, a.reshape({-1, -1}), "reshape", "-1");
  CUSTODY_EXPECT_THROWS(ShapeError, a.view({5, -1}), "view", "[5, -1]");
}

TYPED_TEST_P(ErrorsTest, ExpandAndPermuteErrors) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  CUSTODY_EXPECT_THROWS(ShapeError, a.expand({4, 3}), "expand", "[2, 3]", "[4, 3]");
  CUSTODY_EXPECT_THROWS(ShapeError, a.expand({3}), "expand");
  CUSTODY_EXPECT_THROWS(ShapeError, a.permute({0, 0}), "permute", "repeats");
  CUSTODY_EXPECT_THROWS(ShapeError, a.permute({0}), "permute");
  CUSTODY_EXPECT_THROWS(ShapeError, a.flatten(1, 0), "flatten");
  auto b = T::zeros({2, 3, 4});
  CUSTODY_EXPECT_THROWS(ShapeError, b.t(), "t", "[2, 3, 4]");
}

TYPED_TEST_P(ErrorsTest, MatmulShapeAndDtypeErrors) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  auto b = T::zeros({4, 5});
  CUSTODY_EXPECT_THROWS(ShapeError, a.matmul(b), "matmul", "[2, 3]", "[4, 5]", "3 != 4");
  auto d = T::zeros({3, 2}, ScalarType::Double);
  CUSTODY_EXPECT_THROWS(DTypeError, a.matmul(d), "matmul", "float32", "float64");
  auto s = T::scalar(1.0f);
  CUSTODY_EXPECT_THROWS(ShapeError, s.matmul(a), "matmul", "1-D");
  auto b3 = T::zeros({2, 3, 4});
  auto c3 = T::zeros({3, 4, 5});
  CUSTODY_EXPECT_THROWS(ShapeError, b3.matmul(c3), "matmul", "[2, 3, 4]", "[3, 4, 5]", "batch",
                        "2 vs 3");
  // Batch dims broadcast from the right, as ATen's: [2, 3] against [4, 3] is an
  // error at the first batch dim; [2, 1, 1] against [4, 3] broadcasts.
  auto b4 = T::zeros({2, 3, 2, 3});
  auto c4 = T::zeros({4, 3, 3, 5});
  CUSTODY_EXPECT_THROWS(ShapeError, b4.matmul(c4), "matmul", "[2, 3, 2, 3]", "[4, 3, 3, 5]",
                        "2 vs 4 at batch dim 0");
  const T r = T::zeros({2, 1, 1, 2, 3}).matmul(c4);
  EXPECT_EQ(std::vector<int64_t>(r.sizes().begin(), r.sizes().end()),
            (std::vector<int64_t>{2, 4, 3, 2, 5}));
  CUSTODY_EXPECT_THROWS(ShapeError, b4.matmul(T::zeros({2, 4, 5})), "matmul", "3 != 4");
}

TYPED_TEST_P(ErrorsTest, CatErrors) {
  using T = TypeParam;
  HandleVector<T> none;
  CUSTODY_EXPECT_THROWS(InvalidArgument, cat(none, 0), "cat", "non-empty");
  HandleVector<T> mismatch{T::zeros({2, 3}), T::zeros({2, 4})};
  CUSTODY_EXPECT_THROWS(ShapeError, cat(mismatch, 0), "cat", "[2, 4]", "[2, 3]");
  HandleVector<T> rank{T::zeros({2, 3}), T::zeros({3})};
  CUSTODY_EXPECT_THROWS(ShapeError, cat(rank, 0), "cat", "rank");
  HandleVector<T> scalars{T::scalar(1.0f), T::scalar(2.0f)};
  CUSTODY_EXPECT_THROWS(ShapeError, cat(scalars, 0), "cat", "zero-dimensional");
}

TYPED_TEST_P(ErrorsTest, WhereConditionMustBeBool) {
  using T = TypeParam;
  auto c = T::ones({3});
  auto a = T::zeros({3});
  CUSTODY_EXPECT_THROWS(DTypeError, where(c, a, a), "where", "bool", "float32");
  auto cb = T::ones({2}, ScalarType::Bool);
  CUSTODY_EXPECT_THROWS(ShapeError, where(cb, a, a), "where");
}

TYPED_TEST_P(ErrorsTest, ItemNeedsOneElement) {
  using T = TypeParam;
  auto a = T::zeros({2, 3});
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.template item<float>(), "item", "6 elements", "[2, 3]");
  auto e = T::zeros({0});
  CUSTODY_EXPECT_THROWS(InvalidArgument, e.template item<float>(), "item", "0 elements");
}

TYPED_TEST_P(ErrorsTest, TypedAccessChecksDtype) {
  using T = TypeParam;
  auto a = T::zeros({2});
  CUSTODY_EXPECT_THROWS(DTypeError, a.template to_vector<int64_t>(), "to_vector", "float32", "int64");
  CUSTODY_EXPECT_THROWS(DTypeError, a.template const_data_ptr<double>(), "data_ptr", "float32", "float64");
}

TYPED_TEST_P(ErrorsTest, NumelOverflowIsShapeError) {
  using T = TypeParam;
  const int64_t huge = int64_t{1} << 40;
  CUSTODY_EXPECT_THROWS(ShapeError, T::empty({huge, huge}), "empty", "overflow");
  CUSTODY_EXPECT_THROWS(ShapeError, T::zeros({huge, huge, 4}), "zeros", "overflow");
  CUSTODY_EXPECT_THROWS(ShapeError, T::empty({2, -3}), "empty", "negative");
}

TYPED_TEST_P(ErrorsTest, ImpossibleAllocationIsOutOfMemory) {
  using T = TypeParam;
  const int64_t before = TestFixture::stats().num_ooms;
  CUSTODY_EXPECT_THROWS(OutOfMemoryError, T::empty({int64_t{1} << 50}), "empty", "[1125899906842624]",
                        "float32");
  EXPECT_EQ(TestFixture::stats().num_ooms, before + 1);
}

TYPED_TEST_P(ErrorsTest, NullFromBlobIsInvalidArgument) {
  using T = TypeParam;
  bool deleter_ran = false;
  const std::vector<int64_t> sizes{2, 3};
  CUSTODY_EXPECT_THROWS(InvalidArgument,
                        T::from_blob(nullptr, sizes, ScalarType::Float,
                                     [&](void*) { deleter_ran = true; }),
                        "from_blob", "null", "[2, 3]");
  EXPECT_FALSE(deleter_ran) << "a failed maker must not take ownership";
}

// A length that would overflow start + length is refused like any other that
// runs past the end (not turned into a view with an absurd size).
TYPED_TEST_P(ErrorsTest, NarrowWithAnOverflowingLengthIsAShapeError) {
  using T = TypeParam;
  auto a = T::zeros({4, 3});
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CUSTODY_EXPECT_THROWS(ShapeError, a.narrow(0, 1, kMax), "narrow", "exceeds", "[4, 3]");
  CUSTODY_EXPECT_THROWS(ShapeError, a.narrow(1, 3, kMax), "narrow", "exceeds");
  CUSTODY_EXPECT_THROWS(ShapeError, a.narrow(0, -1, kMax - 1), "narrow", "exceeds");
  EXPECT_EQ(a.narrow(0, 4, 0).numel(), 0) << "an empty narrow at the end is fine";
}

// item<T>() refuses a value T cannot hold (as ATen's item<T>() does), instead
// of wrapping, clamping or undefined behaviour; fractions truncate.
TYPED_TEST_P(ErrorsTest, ItemOfAValueTheTypeCannotHoldIsRefused) {
  using T = TypeParam;
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::scalar(1e20, ScalarType::Double).template item<int32_t>(), "item",
                        "int32", "overflow");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::scalar(int64_t{300}).template item<uint8_t>(),
                        "item", "300", "uint8");
  CUSTODY_EXPECT_THROWS(InvalidArgument,
                        T::scalar(std::numeric_limits<double>::quiet_NaN()).template item<int64_t>(),
                        "item", "nan", "int64");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::scalar(1e300, ScalarType::Double).template item<float>(), "item",
                        "float32");
  EXPECT_EQ(T::scalar(2.75).template item<int32_t>(), 2) << "fractions truncate";
  EXPECT_EQ(T::scalar(int64_t{255}).template item<uint8_t>(), 255);
  EXPECT_TRUE(std::isinf(T::scalar(std::numeric_limits<double>::infinity(), ScalarType::Double).template item<float>()));
  EXPECT_TRUE(T::scalar(3.0).template item<bool>());
}

// full and fill_ refuse a value the dtype cannot hold, as ATen does, instead
// of wrapping or saturating; a float value into an integer dtype truncates.
TYPED_TEST_P(ErrorsTest, FullAndFillRefuseAValueTheDtypeCannotHold) {
  using T = TypeParam;
  const std::vector<int64_t> s{2};
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::full(s, 300, ScalarType::Byte), "full", "300", "uint8",
                        "overflow");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::full(s, -256, ScalarType::Byte), "full", "uint8");
  // As c10: a negative integer goes into an unsigned type while -v fits (-1 -> 255).
  EXPECT_EQ(values_of(T::full(s, -1, ScalarType::Byte)), std::vector<double>({255, 255}));
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::full(s, int64_t{1} << 40, ScalarType::Int), "full",
                        "int32");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::full(s, 1e300, ScalarType::Float), "full", "float32");
  CUSTODY_EXPECT_THROWS(InvalidArgument,
                        T::full(s, std::numeric_limits<double>::quiet_NaN(), ScalarType::Long), "full",
                        "int64");
  auto a = T::zeros(s, ScalarType::Int);
  CUSTODY_EXPECT_THROWS(InvalidArgument, a.fill_(1e10), "fill_", "int32");
  EXPECT_EQ(values_of(a), std::vector<double>({0, 0})) << "a refused fill_ leaves the tensor as it was";
  EXPECT_EQ(values_of(T::full(s, 255, ScalarType::Byte)), std::vector<double>({255, 255}));
  EXPECT_EQ(values_of(T::full(s, 2.75, ScalarType::Int)), std::vector<double>({2, 2}));
  EXPECT_TRUE(std::isinf(
      values_of(T::full(s, std::numeric_limits<double>::infinity(), ScalarType::Float))[0]));
  EXPECT_EQ(values_of(T::full(s, 7, ScalarType::Bool)), std::vector<double>({1, 1}));
}

TYPED_TEST_P(ErrorsTest, FactoryArgumentErrors) {
  using T = TypeParam;
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::arange(0, 5, 0), "arange", "step");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::arange(5, 0, 1), "arange", "inconsistent");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::arange(0, 5, std::numeric_limits<double>::quiet_NaN()),
                        "arange", "step must be finite", "nan");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::arange(0, 5, std::numeric_limits<double>::infinity()),
                        "arange", "step must be finite");
  const std::vector<int64_t> s{3};
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::randint(5, 5, s), "randint", "low < high");
  // A range the dtype cannot hold is refused (not wrapped), naming both.
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::randint(0, 1000, s, ScalarType::Byte), "randint",
                        "[0, 1000)", "uint8");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::randint(-1, 1, s, ScalarType::Bool), "randint", "bool");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::randint(0, int64_t{1} << 40, s, ScalarType::Int),
                        "randint", "int32");
  CUSTODY_EXPECT_THROWS(ShapeError, T::empty_strided(std::vector<int64_t>{2, 3}, std::vector<int64_t>{1}),
                        "empty_strided", "different lengths");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::from_vector(std::vector<float>{1, 2, 3}, {2, 2}),
                        "from_vector", "[2, 2]");
}

TYPED_TEST_P(ErrorsTest, ResizeViolationsReturnStatus) {
  using T = TypeParam;
  auto s = T::full(std::vector<int64_t>{2, 3}, 1.0f, std::nullopt, TensorShapeDynamism::STATIC);
  absl::Status st = s.resize(std::vector<int64_t>{3, 2});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("STATIC"), std::string::npos) << st;
  EXPECT_TRUE(s.resize(std::vector<int64_t>{2, 3}).ok()) << "same sizes are always allowed";
  auto b = T::zeros({2, 3});
  st = b.resize(std::vector<int64_t>{4, 2});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("capacity 6"), std::string::npos) << st;
  st = b.resize(std::vector<int64_t>{6});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("rank"), std::string::npos) << st;
  auto v = T::zeros({3, 2}).t();
  st = v.resize(std::vector<int64_t>{1, 2});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("contiguous"), std::string::npos) << st;
  // A status converts to the matching exception type when thrown.
  EXPECT_THROW(ThrowIfError(b.resize(std::vector<int64_t>{4, 2})), ShapeError);
}

TYPED_TEST_P(ErrorsTest, ErrorsCarryStatusCodes) {
  using T = TypeParam;
  auto a = T::zeros({2});
  try {
    (void)a.select(0, 7);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(e.status().code(), absl::StatusCode::kOutOfRange);
  }
  try {
    (void)a.add(T::zeros({3}));
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
  }
}

TYPED_TEST_P(ErrorsTest, FailedOpLeavesInputsIntact) {
  using T = TypeParam;
  auto a = T::from_vector(std::vector<float>{1, 2, 3});
  auto z = T::zeros({2});
  const StatsSnapshot before = TestFixture::stats();
  EXPECT_THROW((void)a.add(z), ShapeError);
  EXPECT_THROW((void)a.add_(z), ShapeError);
  EXPECT_EQ(values_of(a), std::vector<double>({1, 2, 3}));
  const StatsSnapshot after = TestFixture::stats();
  EXPECT_EQ(after.live_tensors, before.live_tensors);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
}


REGISTER_TYPED_TEST_SUITE_P(ErrorsTest, BroadcastMismatchNamesOpAndShapes,
                            FullAndFillRefuseAValueTheDtypeCannotHold,
                            ItemOfAValueTheTypeCannotHoldIsRefused,
                            NarrowWithAnOverflowingLengthIsAShapeError,
                            InPlaceBroadcastMustKeepSelfShape, InPlaceResultCannotNarrowFloatToInt,
                            InPlaceOnExpandedTensorIsRejected, MeanOfIntegersIsDTypeError,
                            StorageOnlyDtypesRejectCompute, FloatOnlyOpsRejectIntegers,
                            BoolArithmeticRestrictions, IntegerToNegativePowerIsInvalid,
                            DimOutOfRange, RepeatedReductionDim, MaxOfEmptyIsShapeError,
                            IndexOutOfRange, IndexDtypeAndRank, NarrowOutOfRange,
                            ViewIncompatibleWithStridesSuggestsReshape, ReshapeToWrongNumel,
                            ExpandAndPermuteErrors, MatmulShapeAndDtypeErrors, CatErrors,
                            WhereConditionMustBeBool, ItemNeedsOneElement, TypedAccessChecksDtype,
                            NumelOverflowIsShapeError, ImpossibleAllocationIsOutOfMemory,
                            NullFromBlobIsInvalidArgument, FactoryArgumentErrors,
                            ResizeViolationsReturnStatus, ErrorsCarryStatusCodes,
                            FailedOpLeavesInputsIntact);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_ERRORS_SUITE_H_
