// Copyright 2026 The custody Authors.
//
// tests/conformance/numerics_suite.h — `NumericsTest`: every computing op of
// the op set v1 (docs/design.md §4) checked against libtorch (tests/conformance/oracle.h)
// on the same inputs, for every dtype the op supports, on every combination.
//
// Inputs are deterministic (std::mt19937 with a fixed seed), built with
// T::from_vector and read back only through to_vector (host_of), so the suite
// runs unchanged on device backends. Each case runs the op in custody and in
// torch; they must agree on the result's dtype, sizes and values — or both
// must reject the inputs (custody throws a custody::Error where torch raises).
//
// Tolerances (|ours - torch| <= atol + rtol * |torch|; NaN == NaN, inf == inf):
//   integers, bool, float16/bfloat16 casts ....... exact
//   float64 ...................................... rtol 1e-12, atol 1e-12
//   float32 elementwise (direct loops) ........... rtol 1e-5,  atol 1e-6
//       (libm vs torch's vectorised SLEEF transcendental ops: a few ulp)
//   float32 reductions, softmax, small matmul .... rtol 1e-5,  atol 1e-5
//       (custody accumulates in double, torch in float, in another order)
//   float32 on the oneDNN primitive path ......... rtol 1e-4,  atol 1e-5
//       (>= 16384 elements: oneDNN's polynomial eltwise approximations)
//   float32 large sums and matmul ................ rtol 1e-4,  atol 1e-4
//       (blocked accumulation of up to 16384 terms)
// Inputs keep ops well conditioned: positive arguments for log/sqrt/rsqrt,
// small exponents for pow, nonzero divisors, grid values for comparisons (so
// ties occur), no integer overflow except where wrapping is the point.

#ifndef CUSTODY_TESTS_CONFORMANCE_NUMERICS_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_NUMERICS_SUITE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"
#include "testing/harness.h"
#include "tests/conformance/numerics_checks.h"
#include "tests/conformance/numerics_harness.h"
#include "tests/conformance/oracle.h"

namespace custody::testing {

template <class T>
class NumericsTest : public ConformanceTest<T> {};

#define CUSTODY_NUMERICS_USING           \
  using namespace custody::testing;      \
  using namespace custody::testing::numerics

TYPED_TEST_SUITE_P(NumericsTest);

// ---- binary arithmetic and comparisons, one test per op and dtype ------------

#define CUSTODY_NUMERICS_BINARY(Name, op, Dt)                                   \
  TYPED_TEST_P(NumericsTest, Name##_##Dt) {                                     \
    custody::testing::numerics::CheckBinary<TypeParam>(op,                       \
                                                       custody::testing::numerics::Dt); \
  }

CUSTODY_NUMERICS_BINARY(Add, "add", Float32)
CUSTODY_NUMERICS_BINARY(Add, "add", Float64)
CUSTODY_NUMERICS_BINARY(Add, "add", Int32)
CUSTODY_NUMERICS_BINARY(Add, "add", Int64)
CUSTODY_NUMERICS_BINARY(Add, "add", UInt8)
CUSTODY_NUMERICS_BINARY(Add, "add", Int8)
CUSTODY_NUMERICS_BINARY(Add, "add", Int16)
CUSTODY_NUMERICS_BINARY(Add, "add", Bool)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Float32)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Float64)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Int32)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Int64)
CUSTODY_NUMERICS_BINARY(Sub, "sub", UInt8)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Int8)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Int16)
CUSTODY_NUMERICS_BINARY(Sub, "sub", Bool)  // bool - bool: both reject; bool - int scalar: int64
CUSTODY_NUMERICS_BINARY(Mul, "mul", Float32)
CUSTODY_NUMERICS_BINARY(Mul, "mul", Float64)
CUSTODY_NUMERICS_BINARY(Mul, "mul", Int32)
CUSTODY_NUMERICS_BINARY(Mul, "mul", Int64)
CUSTODY_NUMERICS_BINARY(Mul, "mul", UInt8)
CUSTODY_NUMERICS_BINARY(Mul, "mul", Int8)
CUSTODY_NUMERICS_BINARY(Mul, "mul", Int16)
CUSTODY_NUMERICS_BINARY(Mul, "mul", Bool)
CUSTODY_NUMERICS_BINARY(Div, "div", Float32)
CUSTODY_NUMERICS_BINARY(Div, "div", Float64)
CUSTODY_NUMERICS_BINARY(Div, "div", Int32)
CUSTODY_NUMERICS_BINARY(Div, "div", Int64)
CUSTODY_NUMERICS_BINARY(Div, "div", UInt8)
CUSTODY_NUMERICS_BINARY(Div, "div", Int8)
CUSTODY_NUMERICS_BINARY(Div, "div", Int16)
CUSTODY_NUMERICS_BINARY(Div, "div", Bool)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Float32)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Float64)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Int32)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Int64)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", UInt8)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Int8)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Int16)
CUSTODY_NUMERICS_BINARY(Maximum, "maximum", Bool)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Float32)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Float64)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Int32)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Int64)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", UInt8)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Int8)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Int16)
CUSTODY_NUMERICS_BINARY(Minimum, "minimum", Bool)
CUSTODY_NUMERICS_BINARY(Pow, "pow", Float32)
CUSTODY_NUMERICS_BINARY(Pow, "pow", Float64)
CUSTODY_NUMERICS_BINARY(Pow, "pow", Int32)
CUSTODY_NUMERICS_BINARY(Pow, "pow", Int64)
CUSTODY_NUMERICS_BINARY(Pow, "pow", UInt8)
CUSTODY_NUMERICS_BINARY(Pow, "pow", Int8)
CUSTODY_NUMERICS_BINARY(Pow, "pow", Int16)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Float32)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Float64)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Int32)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Int64)
CUSTODY_NUMERICS_BINARY(Eq, "eq", UInt8)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Int8)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Int16)
CUSTODY_NUMERICS_BINARY(Eq, "eq", Bool)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Float32)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Float64)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Int32)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Int64)
CUSTODY_NUMERICS_BINARY(Ne, "ne", UInt8)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Int8)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Int16)
CUSTODY_NUMERICS_BINARY(Ne, "ne", Bool)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Float32)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Float64)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Int32)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Int64)
CUSTODY_NUMERICS_BINARY(Lt, "lt", UInt8)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Int8)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Int16)
CUSTODY_NUMERICS_BINARY(Lt, "lt", Bool)
CUSTODY_NUMERICS_BINARY(Le, "le", Float32)
CUSTODY_NUMERICS_BINARY(Le, "le", Float64)
CUSTODY_NUMERICS_BINARY(Le, "le", Int32)
CUSTODY_NUMERICS_BINARY(Le, "le", Int64)
CUSTODY_NUMERICS_BINARY(Le, "le", UInt8)
CUSTODY_NUMERICS_BINARY(Le, "le", Int8)
CUSTODY_NUMERICS_BINARY(Le, "le", Int16)
CUSTODY_NUMERICS_BINARY(Le, "le", Bool)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Float32)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Float64)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Int32)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Int64)
CUSTODY_NUMERICS_BINARY(Gt, "gt", UInt8)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Int8)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Int16)
CUSTODY_NUMERICS_BINARY(Gt, "gt", Bool)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Float32)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Float64)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Int32)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Int64)
CUSTODY_NUMERICS_BINARY(Ge, "ge", UInt8)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Int8)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Int16)
CUSTODY_NUMERICS_BINARY(Ge, "ge", Bool)
#undef CUSTODY_NUMERICS_BINARY

// bool ** bool: whatever torch does, custody must match (result or rejection).
TYPED_TEST_P(NumericsTest, Pow_BoolAgreesWithTorch) {
  CUSTODY_NUMERICS_USING;
  const custody::testing::HostTensor a{Bool, {4}, {0, 1, 0, 1}}, b{Bool, {4}, {0, 0, 1, 1}};
  EXPECT_TRUE(AgreesWithTorch([&] { return make<TypeParam>(a).pow(make<TypeParam>(b)); }, "pow", {a, b}));
}

// ---- type promotion -------------------------------------------------------------

// Every pair of dtypes, tensor-tensor, for add, mul, div, maximum and lt.
TYPED_TEST_P(NumericsTest, MixedDtypePromotionAllPairs) {
  CUSTODY_NUMERICS_USING;
  Inputs in;
  for (const std::string op : {"add", "mul", "div", "maximum", "lt"}) {
    for (custody::ScalarType da : all_dtypes()) {
      for (custody::ScalarType db : all_dtypes()) {
        const auto a = operand(in, op, da, {2, 3}, false), b = operand(in, op, db, {3}, true);
        EXPECT_TRUE(AgreesWithTorch(
            [&] { return binary(op, make<TypeParam>(a), make<TypeParam>(b)); }, op, {a, b}));
      }
    }
  }
}

TYPED_TEST_P(NumericsTest, MixedDtypePromotionExamples) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  const auto i32 = make<T>({Int32, {3}, {1, -2, 3}});
  const auto f64 = make<T>({Float64, {3}, {0.5, 0.25, -1.5}});
  const auto r = i32.add(f64);
  EXPECT_EQ(r.scalar_type(), Float64);
  EXPECT_TRUE(AgreesWithTorch([&] { return i32.add(f64); }, "add",
                              {host_of(i32), host_of(f64)}));
  const auto u8 = make<T>({UInt8, {3}, {1, 200, 3}});
  EXPECT_EQ(u8.add(i32).scalar_type(), Int32);
  EXPECT_TRUE(AgreesWithTorch([&] { return u8.sub(i32); }, "sub", {host_of(u8), host_of(i32)}));
  const auto b = make<T>({Bool, {3}, {1, 0, 1}});
  EXPECT_EQ(b.add(u8).scalar_type(), UInt8);
  EXPECT_TRUE(AgreesWithTorch([&] { return b.mul(f64); }, "mul", {host_of(b), host_of(f64)}));
  const auto f32 = make<T>({Float32, {3}, {0.1, 0.2, 0.3}});
  EXPECT_EQ(f32.add(make<T>({Int64, {3}, {1, 2, 3}})).scalar_type(), Float32);
}

// Tensor-scalar promotion: the scalar only matters when it is of a higher
// category (bool < integral < floating) than the tensor.
TYPED_TEST_P(NumericsTest, ScalarPromotionAllDtypes) {
  CUSTODY_NUMERICS_USING;
  Inputs in;
  for (const std::string op : {"add", "mul", "sub", "div", "maximum", "minimum", "eq", "gt"}) {
    for (custody::ScalarType dt : all_dtypes()) {
      const auto a = operand(in, op, dt, {2, 3}, false);
      for (const custody::testing::OracleArgs& s :
           {scalar_args(2, true), scalar_args(2.5, false), scalar_args(1, false, true),
            scalar_args(300, true), scalar_args(-7, true)}) {
        EXPECT_TRUE(AgreesWithTorch([&] { return binary_scalar(op, make<TypeParam>(a), s); }, op, {a}, s));
      }
    }
  }
}

TYPED_TEST_P(NumericsTest, ScalarPromotionExamples) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  const auto i = make<T>({Int32, {3}, {1, 2, 3}});
  EXPECT_EQ(i.add(2.5).scalar_type(), Float32);           // int tensor + float -> float32
  EXPECT_EQ(i.add(int64_t{2}).scalar_type(), Int32);      // int32 + int -> int32
  const auto u = make<T>({UInt8, {3}, {250, 2, 3}});
  EXPECT_EQ(u.add(10).scalar_type(), UInt8);              // uint8 + int -> uint8 (wraps)
  EXPECT_EQ(u.add(10).template to_vector<uint8_t>(), (std::vector<uint8_t>{4, 12, 13}));
  const auto b = make<T>({Bool, {3}, {1, 0, 1}});
  EXPECT_EQ(b.add(2).scalar_type(), Int64);               // bool + int -> int64
  EXPECT_EQ(b.add(true).scalar_type(), Bool);             // bool + bool -> bool
  EXPECT_EQ(b.mul(0.5).scalar_type(), Float32);           // bool * float -> float32
  const auto d = make<T>({Float64, {3}, {1, 2, 3}});
  EXPECT_EQ(d.add(2.5f).scalar_type(), Float64);          // float64 + float -> float64
  EXPECT_EQ(i.div(2).scalar_type(), Float32);             // int / int -> float32
  const custody::testing::OracleArgs s = scalar_args(2.5, false);
  EXPECT_TRUE(AgreesWithTorch([&] { return i.add(2.5); }, "add", {host_of(i)}, s));
  const custody::testing::OracleArgs s10 = scalar_args(10, true);
  EXPECT_TRUE(AgreesWithTorch([&] { return u.add(10); }, "add", {host_of(u)}, s10));
  const custody::testing::OracleArgs s2 = scalar_args(2, true);
  EXPECT_TRUE(AgreesWithTorch([&] { return b.add(2); }, "add", {host_of(b)}, s2));
}

// A 0-dim tensor operand promotes like a scalar in torch (torch.result_type):
// int32[3] + float64 0-dim is float64, but float32[3] + float64 0-dim is float32.
TYPED_TEST_P(NumericsTest, ZeroDimTensorPromotion) {
  CUSTODY_NUMERICS_USING;
  Inputs in;
  for (const std::string op : {"add", "mul", "maximum", "lt"}) {
    for (custody::ScalarType da : all_dtypes()) {
      for (custody::ScalarType db : all_dtypes()) {
        const auto a = operand(in, op, da, {3}, false), b = operand(in, op, db, {}, true);
        EXPECT_TRUE(AgreesWithTorch(
            [&] { return binary(op, make<TypeParam>(a), make<TypeParam>(b)); }, op, {a, b}));
        EXPECT_TRUE(AgreesWithTorch(
            [&] { return binary(op, make<TypeParam>(b), make<TypeParam>(a)); }, op, {b, a}));
      }
    }
  }
}

// ---- unary ops: float32, float64 and the integral dtypes (promoted or rejected) ---

#define CUSTODY_NUMERICS_UNARY(Name, op)                                                  \
  TYPED_TEST_P(NumericsTest, Name##_Float32) {                                            \
    custody::testing::numerics::CheckUnary<TypeParam>(op, custody::ScalarType::Float);    \
  }                                                                                       \
  TYPED_TEST_P(NumericsTest, Name##_Float64) {                                            \
    custody::testing::numerics::CheckUnary<TypeParam>(op, custody::ScalarType::Double);   \
  }                                                                                       \
  TYPED_TEST_P(NumericsTest, Name##_Integral) {                                           \
    custody::testing::numerics::CheckUnaryIntegral<TypeParam>(op);                        \
  }

CUSTODY_NUMERICS_UNARY(Neg, "neg")
CUSTODY_NUMERICS_UNARY(Abs, "abs")
CUSTODY_NUMERICS_UNARY(Exp, "exp")
CUSTODY_NUMERICS_UNARY(Log, "log")
CUSTODY_NUMERICS_UNARY(Sqrt, "sqrt")
CUSTODY_NUMERICS_UNARY(Rsqrt, "rsqrt")
CUSTODY_NUMERICS_UNARY(Tanh, "tanh")
CUSTODY_NUMERICS_UNARY(Sigmoid, "sigmoid")
CUSTODY_NUMERICS_UNARY(Relu, "relu")
CUSTODY_NUMERICS_UNARY(Gelu, "gelu")
CUSTODY_NUMERICS_UNARY(Silu, "silu")
CUSTODY_NUMERICS_UNARY(Sin, "sin")
CUSTODY_NUMERICS_UNARY(Cos, "cos")
#undef CUSTODY_NUMERICS_UNARY

// ---- reductions -------------------------------------------------------------------

#define CUSTODY_NUMERICS_REDUCE(Name, op, Dt)                                                    \
  TYPED_TEST_P(NumericsTest, Name##_##Dt) {                                                      \
    custody::testing::numerics::CheckReduce<TypeParam>(op, custody::testing::numerics::Dt);      \
  }

CUSTODY_NUMERICS_REDUCE(Sum, "sum", Float32)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", Float64)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", Int32)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", Int64)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", UInt8)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", Int8)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", Int16)
CUSTODY_NUMERICS_REDUCE(Sum, "sum", Bool)
CUSTODY_NUMERICS_REDUCE(Mean, "mean", Float32)
CUSTODY_NUMERICS_REDUCE(Mean, "mean", Float64)
CUSTODY_NUMERICS_REDUCE(Max, "max", Float32)
CUSTODY_NUMERICS_REDUCE(Max, "max", Float64)
CUSTODY_NUMERICS_REDUCE(Max, "max", Int32)
CUSTODY_NUMERICS_REDUCE(Max, "max", Int64)
CUSTODY_NUMERICS_REDUCE(Max, "max", UInt8)
CUSTODY_NUMERICS_REDUCE(Max, "max", Int8)
CUSTODY_NUMERICS_REDUCE(Max, "max", Int16)
CUSTODY_NUMERICS_REDUCE(Max, "max", Bool)
CUSTODY_NUMERICS_REDUCE(Min, "min", Float32)
CUSTODY_NUMERICS_REDUCE(Min, "min", Float64)
CUSTODY_NUMERICS_REDUCE(Min, "min", Int32)
CUSTODY_NUMERICS_REDUCE(Min, "min", Int64)
CUSTODY_NUMERICS_REDUCE(Min, "min", UInt8)
CUSTODY_NUMERICS_REDUCE(Min, "min", Int8)
CUSTODY_NUMERICS_REDUCE(Min, "min", Int16)
CUSTODY_NUMERICS_REDUCE(Min, "min", Bool)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", Float32)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", Float64)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", Int32)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", Int64)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", UInt8)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", Int8)
CUSTODY_NUMERICS_REDUCE(Argmax, "argmax", Int16)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", Float32)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", Float64)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", Int32)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", Int64)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", UInt8)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", Int8)
CUSTODY_NUMERICS_REDUCE(Argmin, "argmin", Int16)
#undef CUSTODY_NUMERICS_REDUCE

// mean of integral tensors, argmax/argmin of bool: custody and torch agree
// (both reject, or both compute the same thing).
TYPED_TEST_P(NumericsTest, ReduceIntegralEdgeDtypesAgreeWithTorch) {
  CUSTODY_NUMERICS_USING;
  Inputs in;
  for (custody::ScalarType dt : integral_dtypes()) {
    const auto a = in.random(dt, {2, 3});
    for (const std::string op : {"mean", "argmax", "argmin"}) {
      for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, std::vector<int64_t>{1}}) {
        EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, make<TypeParam>(a), dims, false); }, op, {a},
                                    reduce_args(dims, false)));
      }
    }
  }
}

// argmax/argmin return the first index among equal extremes.
TYPED_TEST_P(NumericsTest, ArgmaxArgminTiesTakeFirstIndex) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  for (custody::ScalarType dt : {Float32, Float64, Int32, Int64, UInt8, Int8, Int16}) {
    SCOPED_TRACE(custody::dtype_name(dt));
    const custody::testing::HostTensor a{dt, {2, 4}, {1, 3, 3, 0, 2, 2, 0, 0}};
    const T t = make<T>(a);
    EXPECT_EQ(t.argmax().template item<int64_t>(), 1);
    EXPECT_EQ(t.argmin().template item<int64_t>(), 3);
    EXPECT_EQ(t.argmax(1).template to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(t.argmin(1).template to_vector<int64_t>(), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(t.argmax(0).template to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0, 0}));
    for (const std::string op : {"argmax", "argmin"}) {
      for (const std::vector<int64_t>& dims :
           {std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{1}}) {
        EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, t, dims, false); }, op, {a},
                                    reduce_args(dims, false)));
      }
    }
    // All equal: index 0 everywhere.
    const custody::testing::HostTensor c{dt, {3, 2}, {5, 5, 5, 5, 5, 5}};
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(c).argmax(0); }, "argmax", {c}, reduce_args({0}, false)));
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(c).argmin(); }, "argmin", {c}, reduce_args({}, false)));
  }
}

// max/min/argmax propagate NaN as torch does.
TYPED_TEST_P(NumericsTest, ReductionsPropagateNaN) {
  CUSTODY_NUMERICS_USING;
  const double nan = std::nan("");
  for (custody::ScalarType dt : {Float32, Float64}) {
    const custody::testing::HostTensor a{dt, {2, 3}, {1, nan, 3, -1, 4, 2}};
    for (const std::string op : {"max", "min", "sum", "mean", "argmax", "argmin"}) {
      for (const std::vector<int64_t>& dims :
           {std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{1}}) {
        EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, make<TypeParam>(a), dims, false); }, op, {a},
                                    reduce_args(dims, false), Acc::kReduce));
      }
    }
    const custody::testing::HostTensor b{dt, {3}, {nan, 1, 2}};
    for (const std::string op : {"maximum", "minimum"}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, make<TypeParam>(a), make<TypeParam>(b)); }, op,
                                  {a, b}));
    }
  }
}

// ---- softmax / log_softmax ---------------------------------------------------------

TYPED_TEST_P(NumericsTest, Softmax_Float32) {
  custody::testing::numerics::CheckSoftmax<TypeParam>("softmax", custody::ScalarType::Float);
}
TYPED_TEST_P(NumericsTest, Softmax_Float64) {
  custody::testing::numerics::CheckSoftmax<TypeParam>("softmax", custody::ScalarType::Double);
}
TYPED_TEST_P(NumericsTest, LogSoftmax_Float32) {
  custody::testing::numerics::CheckSoftmax<TypeParam>("log_softmax", custody::ScalarType::Float);
}
TYPED_TEST_P(NumericsTest, LogSoftmax_Float64) {
  custody::testing::numerics::CheckSoftmax<TypeParam>("log_softmax", custody::ScalarType::Double);
}
TYPED_TEST_P(NumericsTest, SoftmaxIntegralAgreesWithTorch) {
  CUSTODY_NUMERICS_USING;
  Inputs in;
  for (custody::ScalarType dt : integral_dtypes()) {
    const auto a = in.random(dt, {2, 3});
    EXPECT_TRUE(AgreesWithTorch([&] { return make<TypeParam>(a).softmax(1); }, "softmax", {a}, dim_args(1)));
    EXPECT_TRUE(AgreesWithTorch([&] { return make<TypeParam>(a).log_softmax(0); }, "log_softmax", {a},
                                dim_args(0)));
  }
}

// ---- matmul -----------------------------------------------------------------------

TYPED_TEST_P(NumericsTest, Matmul_Float32) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Float);
}
TYPED_TEST_P(NumericsTest, Matmul_Float64) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Double);
}
TYPED_TEST_P(NumericsTest, Matmul_Int32) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Int);
}
TYPED_TEST_P(NumericsTest, Matmul_Int64) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Long);
}
TYPED_TEST_P(NumericsTest, Matmul_UInt8) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Byte);
}
TYPED_TEST_P(NumericsTest, Matmul_Int8) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Char);
}
TYPED_TEST_P(NumericsTest, Matmul_Int16) {
  custody::testing::numerics::CheckMatmul<TypeParam>(custody::ScalarType::Short);
}

// Transposed and otherwise strided operands, 2-D and batched.
TYPED_TEST_P(NumericsTest, MatmulTransposedOperands) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  for (custody::ScalarType dt : {Float32, Float64, Int64}) {
    SCOPED_TRACE(custody::dtype_name(dt));
    const auto a = in.uniform(dt, {4, 3}, -2, 2);   // a.t(): [3, 4]
    const auto b = in.uniform(dt, {5, 4}, -2, 2);   // b.t(): [4, 5]
    const auto b2 = in.uniform(dt, {4, 5}, -2, 2);
    const auto at = host_view(a, {3, 4}, {1, 3}, 0), bt = host_view(b, {4, 5}, {1, 4}, 0);
    const T ta = make<T>(a), tb = make<T>(b), tb2 = make<T>(b2);
    EXPECT_TRUE(AgreesWithTorch([&] { return ta.t().matmul(tb.t()); }, "matmul", {at, bt}, {}, Acc::kReduce));
    EXPECT_TRUE(AgreesWithTorch([&] { return ta.t().matmul(tb2); }, "matmul", {at, b2}, {}, Acc::kReduce));
    EXPECT_TRUE(AgreesWithTorch([&] { return tb2.t().matmul(ta.t()); }, "matmul",
                                {host_view(b2, {5, 4}, {1, 5}, 0), at}, {}, Acc::kReduce));
    // Batched: [2, 4, 3].transpose(1, 2) x [2, 4, 5]; narrowed columns.
    const auto c = in.uniform(dt, {2, 4, 3}, -2, 2), d = in.uniform(dt, {2, 4, 5}, -2, 2);
    const T tc = make<T>(c), td = make<T>(d);
    EXPECT_TRUE(AgreesWithTorch([&] { return tc.transpose(1, 2).matmul(td); }, "matmul",
                                {host_view(c, {2, 3, 4}, {12, 1, 3}, 0), d}, {}, Acc::kReduce));
    EXPECT_TRUE(AgreesWithTorch([&] { return tc.transpose(1, 2).matmul(td.narrow(2, 1, 3)); }, "matmul",
                                {host_view(c, {2, 3, 4}, {12, 1, 3}, 0), host_view(d, {2, 4, 3}, {20, 5, 1}, 1)},
                                {}, Acc::kReduce));
    // Batch dim expanded (stride 0) on the left.
    const auto e = in.uniform(dt, {1, 3, 4}, -2, 2);
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).expand({2, 3, 4}).matmul(td); }, "matmul",
                                {host_view(e, {2, 3, 4}, {0, 4, 1}, 0), d}, {}, Acc::kReduce));
  }
}

TYPED_TEST_P(NumericsTest, MatmulMixedAndBoolDtypesAgreeWithTorch) {
  CUSTODY_NUMERICS_USING;
  Inputs in;
  const auto f = in.uniform(Float32, {2, 3}, -1, 1), d = in.uniform(Float64, {3, 2}, -1, 1);
  EXPECT_TRUE(AgreesWithTorch([&] { return make<TypeParam>(f).matmul(make<TypeParam>(d)); }, "matmul",
                              {f, d}));
  const auto b1 = in.random(Bool, {2, 3}), b2 = in.random(Bool, {3, 2});
  EXPECT_TRUE(AgreesWithTorch([&] { return make<TypeParam>(b1).matmul(make<TypeParam>(b2)); }, "matmul",
                              {b1, b2}));
}

// ---- index_select / embedding -------------------------------------------------------

}  // namespace custody::testing

namespace custody::testing::numerics {

template <class T>
void CheckIndexSelect(custody::ScalarType index_dtype) {
  Inputs in;
  for (custody::ScalarType dt : all_dtypes()) {
    SCOPED_TRACE(custody::dtype_name(dt));
    const auto a = in.random(dt, {4, 5, 3});
    const T ta = make<T>(a);
    const std::vector<std::pair<int64_t, custody::testing::HostTensor>> cases = {
        {0, {index_dtype, {3}, {3, 0, 3}}},   {1, {index_dtype, {4}, {4, 1, 1, 0}}},
        {2, {index_dtype, {2}, {2, 0}}},      {-1, {index_dtype, {1}, {1}}},
        {-3, {index_dtype, {5}, {0, 1, 2, 3, 0}}}, {1, {index_dtype, {0}, {}}},
        {0, {index_dtype, {}, {2}}},          // 0-dim index: a dim of size 1
    };
    for (const auto& [dim, idx] : cases) {
      EXPECT_TRUE(AgreesWithTorch([&] { return ta.index_select(dim, make<T>(idx)); }, "index_select",
                                  {a, idx}, dim_args(dim)));
    }
    // Non-contiguous input (transpose(0, 2) -> [3, 5, 4]) and index (every other element).
    const auto at = host_view(a, {3, 5, 4}, {1, 3, 15}, 0);
    const custody::testing::HostTensor idx{index_dtype, {6}, {0, 9, 3, 9, 2, 9}};
    const auto idx_v = host_view(idx, {3}, {2}, 0);
    EXPECT_TRUE(AgreesWithTorch([&] { return ta.transpose(0, 2).index_select(2, make<T>(idx_v)); },
                                "index_select", {at, idx_v}, dim_args(2)));
    const T tidx = make<T>(idx);
    EXPECT_TRUE(AgreesWithTorch(
        [&] { return ta.transpose(0, 2).index_select(1, tidx.narrow(0, 0, 6).reshape({3, 2}).select(1, 0)); },
        "index_select", {at, idx_v}, dim_args(1)));
  }
}

}  // namespace custody::testing::numerics

namespace custody::testing {

TYPED_TEST_P(NumericsTest, IndexSelect_Int64Index) {
  custody::testing::numerics::CheckIndexSelect<TypeParam>(custody::ScalarType::Long);
}
TYPED_TEST_P(NumericsTest, IndexSelect_Int32Index) {
  custody::testing::numerics::CheckIndexSelect<TypeParam>(custody::ScalarType::Int);
}

}  // namespace custody::testing

namespace custody::testing::numerics {

template <class T>
void CheckEmbedding(custody::ScalarType index_dtype) {
  Inputs in;
  for (custody::ScalarType dt : {Float32, Float64, Int64}) {
    SCOPED_TRACE(custody::dtype_name(dt));
    const auto w = in.random(dt, {10, 4});
    const T tw = make<T>(w);
    for (const custody::testing::HostTensor& idx :
         {custody::testing::HostTensor{index_dtype, {2, 3}, {1, 9, 0, 9, 4, 4}},
          custody::testing::HostTensor{index_dtype, {5}, {0, 1, 2, 3, 9}},
          custody::testing::HostTensor{index_dtype, {}, {7}},
          custody::testing::HostTensor{index_dtype, {2, 0}, {}},
          custody::testing::HostTensor{index_dtype, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}}}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::embedding(tw, make<T>(idx)); }, "embedding", {w, idx}));
    }
    // A transposed (non-contiguous) weight.
    const auto w2 = in.random(dt, {4, 10});
    const custody::testing::HostTensor idx{index_dtype, {3}, {9, 0, 5}};
    EXPECT_TRUE(AgreesWithTorch([&] { return custody::embedding(make<T>(w2).t(), make<T>(idx)); }, "embedding",
                                {host_view(w2, {10, 4}, {1, 10}, 0), idx}));
  }
}

}  // namespace custody::testing::numerics

namespace custody::testing {

TYPED_TEST_P(NumericsTest, Embedding_Int64Indices) { custody::testing::numerics::CheckEmbedding<TypeParam>(custody::ScalarType::Long); }
TYPED_TEST_P(NumericsTest, Embedding_Int32Indices) { custody::testing::numerics::CheckEmbedding<TypeParam>(custody::ScalarType::Int); }

// ---- cat ----------------------------------------------------------------------------

TYPED_TEST_P(NumericsTest, CatEachDimEveryDtype) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  for (custody::ScalarType dt : all_dtypes()) {
    SCOPED_TRACE(custody::dtype_name(dt));
    for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
      const int64_t d = dim < 0 ? dim + 3 : dim;
      std::vector<int64_t> s1{2, 3, 4}, s2{2, 3, 4}, s3{2, 3, 4};
      s2[d] = 1;
      s3[d] = 3;
      const auto a = in.random(dt, s1), b = in.random(dt, s2), c = in.random(dt, s3);
      OracleArgs args = dim_args(dim);
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{make<T>(a), make<T>(b), make<T>(c)}, dim); },
                                  "cat", {a, b, c}, args));
    }
    const auto single = in.random(dt, {3});
    EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{make<T>(single)}, 0); }, "cat",
                                {single}, dim_args(0)));
  }
}

TYPED_TEST_P(NumericsTest, CatMixedDtypes) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const std::vector<std::vector<custody::ScalarType>> combos = {
      {Float32, Int64, Bool}, {Int32, UInt8}, {UInt8, Bool}, {Float64, Float32}, {Bool, Int32, Float64},
      {Int64, Int32},
  };
  for (const auto& dts : combos) {
    for (int64_t dim : {0, 1}) {
      std::vector<custody::testing::HostTensor> hs;
      HandleVector<T> ts;
      for (size_t i = 0; i < dts.size(); ++i) {
        hs.push_back(in.random(dts[i], dim == 0 ? std::vector<int64_t>{static_cast<int64_t>(i) + 1, 3}
                                                : std::vector<int64_t>{3, static_cast<int64_t>(i) + 1}));
        ts.push_back(make<T>(hs.back()));
      }
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(ts, dim); }, "cat", hs, dim_args(dim)));
    }
  }
}

TYPED_TEST_P(NumericsTest, CatEmptyAndNonContiguous) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.random(Float32, {2, 3}), e = in.random(Float32, {0, 3}), legacy = in.random(Float32, {0});
  const auto b = in.random(Float32, {3, 4});  // b.t() narrowed: [3, 3] -> rows 0..1 of [4,3]^T
  const T ta = make<T>(a), te = make<T>(e), tl = make<T>(legacy), tb = make<T>(b);
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{ta, te, ta}, 0); }, "cat", {a, e, a},
                              dim_args(0)));
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{tl, ta, tl}, 1); }, "cat",
                              {legacy, a, legacy}, dim_args(1)));
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{te, te}, 1); }, "cat", {e, e},
                              dim_args(1)));
  const auto bt = host_view(b, {4, 3}, {1, 4}, 0);
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{ta, tb.t()}, 0); }, "cat", {a, bt},
                              dim_args(0)));
  const auto bn = host_view(b, {3, 2}, {4, 1}, 1);
  const auto a3 = in.random(Float32, {3, 3});
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::cat(std::vector<T>{tb.narrow(1, 1, 2), make<T>(a3)}, 1); },
                              "cat", {bn, a3}, dim_args(1)));
}

// ---- where ----------------------------------------------------------------------------

TYPED_TEST_P(NumericsTest, WhereEveryDtypeWithBroadcasting) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  for (custody::ScalarType dt : all_dtypes()) {
    SCOPED_TRACE(custody::dtype_name(dt));
    const std::vector<std::vector<std::vector<int64_t>>> shapes = {
        {{3, 4}, {3, 4}, {3, 4}}, {{3, 1}, {1, 4}, {4}}, {{2, 1, 4}, {3, 1}, {}}, {{}, {2, 3}, {2, 3}},
        {{0, 3}, {3}, {1}},
    };
    for (const auto& s : shapes) {
      const auto c = in.random(Bool, s[0]), a = in.random(dt, s[1]), b = in.random(dt, s[2]);
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::where(make<T>(c), make<T>(a), make<T>(b)); }, "where",
                                  {c, a, b}));
    }
  }
}

TYPED_TEST_P(NumericsTest, WhereMixedDtypesAndNonContiguous) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  for (custody::ScalarType da : all_dtypes()) {
    for (custody::ScalarType db : {Float32, Int64, Bool}) {
      const auto c = in.random(Bool, {2, 3}), a = in.random(da, {2, 3}), b = in.random(db, {3});
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::where(make<T>(c), make<T>(a), make<T>(b)); }, "where",
                                  {c, a, b}));
    }
  }
  const auto cb = in.random(Bool, {4, 3}), a = in.random(Float64, {3, 5}), b = in.random(Float64, {3, 1});
  EXPECT_TRUE(AgreesWithTorch(
      [&] { return custody::where(make<T>(cb).t(), make<T>(a).narrow(1, 1, 4), make<T>(b).expand({3, 4})); },
      "where",
      {host_view(cb, {3, 4}, {1, 3}, 0), host_view(a, {3, 4}, {5, 1}, 1), host_view(b, {3, 4}, {1, 0}, 0)}));
  // 0-dim operands promote like scalars (torch.result_type).
  for (custody::ScalarType da : all_dtypes()) {
    for (custody::ScalarType db : all_dtypes()) {
      const auto c = in.random(Bool, {2, 3}), a = in.random(da, {2, 3}), b = in.random(db, {});
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::where(make<T>(c), make<T>(a), make<T>(b)); }, "where",
                                  {c, a, b}));
      EXPECT_TRUE(AgreesWithTorch([&] { return custody::where(make<T>(c), make<T>(b), make<T>(a)); }, "where",
                                  {c, b, a}));
    }
  }
  // A non-bool condition: both reject.
  const auto ci = in.random(Int64, {3});
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::where(make<T>(ci), make<T>(ci), make<T>(ci)); }, "where",
                              {ci, ci, ci}));
}

// ---- in-place ops -----------------------------------------------------------------------

}  // namespace custody::testing

namespace custody::testing::numerics {

// self.op_(other): the result lands in self's memory, the returned handle
// refers to the same data, and the values match torch's in-place op.
template <class T>
void CheckInplace(const std::string& op) {
  Inputs in;
  const std::string base = op.substr(0, op.size() - 1);
  const std::vector<std::pair<ScalarType, ScalarType>> dtype_pairs = {
      {Float32, Float32}, {Float64, Float64}, {Int32, Int32}, {Int64, Int64}, {UInt8, UInt8},
      {Int8, Int8},       {Int16, Int16},     {Int16, Int8},  {Int8, UInt8},  {Int32, Int16},
      {Float32, Float64}, {Float64, Int32},   {Int64, Int32}, {Int32, Int64}, {Int32, Float32},
      {UInt8, Bool},      {Bool, Bool},       {Float32, Bool},
  };
  for (const auto& [ds, dother] : dtype_pairs) {
    for (const auto& [ss, so] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{2, 3, 4}, {3, 1}}, {{}, {}}, {{3}, {}}, {{0, 2}, {2}}}) {
      const auto s = operand(in, base, ds, ss, false), o = operand(in, base, dother, so, true);
      const T ts = make<T>(s), to = make<T>(o);
      std::optional<T> r;
      EXPECT_TRUE(AgreesWithTorch(
          [&]() -> T {
            r = inplace(op, ts, to);
            return ts;
          },
          op, {s, o}));
      if (r.has_value()) {
        EXPECT_TRUE(r->is_same_storage(ts)) << op << ": the returned handle must refer to self's data";
        EXPECT_EQ(r->storage_offset(), ts.storage_offset());
        EXPECT_EQ(host_of(*r).values, host_of(ts).values);
      }
    }
    // Scalar forms.
    for (const OracleArgs& a : {scalar_args(2, true), scalar_args(1.5, false), scalar_args(1, false, true)}) {
      const auto s = operand(in, base, ds, {2, 3}, false);
      const T ts = make<T>(s);
      EXPECT_TRUE(AgreesWithTorch(
          [&]() -> T {
            inplace_scalar(op, ts, a);
            return ts;
          },
          op, {s}, a));
    }
  }
}

}  // namespace custody::testing::numerics

namespace custody::testing {

TYPED_TEST_P(NumericsTest, InplaceAdd) { custody::testing::numerics::CheckInplace<TypeParam>("add_"); }
TYPED_TEST_P(NumericsTest, InplaceSub) { custody::testing::numerics::CheckInplace<TypeParam>("sub_"); }
TYPED_TEST_P(NumericsTest, InplaceMul) { custody::testing::numerics::CheckInplace<TypeParam>("mul_"); }
TYPED_TEST_P(NumericsTest, InplaceDiv) { custody::testing::numerics::CheckInplace<TypeParam>("div_"); }

// In-place on a view writes through to the base; other elements are untouched.
TYPED_TEST_P(NumericsTest, InplaceOnNonContiguousView) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto base = in.random(Float32, {4, 5}), other = in.random(Float32, {3, 2});
  const T tb = make<T>(base);
  const T view = tb.t().narrow(0, 1, 3).narrow(1, 1, 2);  // [3, 2], strides [1, 5], offset 6
  const auto vh = host_view(base, {3, 2}, {1, 5}, 6);
  EXPECT_TRUE(custody::testing::Close(host_of(view), vh, 0, 0));
  const T r = view.mul_(2).add_(make<T>(other));
  // expected base: base with the view's elements replaced by 2 * v + other
  custody::testing::HostTensor expected = base;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      const size_t off = static_cast<size_t>(6 + i * 1 + j * 5);
      expected.values[off] = static_cast<double>(static_cast<float>(
          static_cast<float>(2 * base.values[off]) + static_cast<float>(other.values[i * 2 + j])));
    }
  }
  const auto tol = tolerance(Float32, Acc::kElementwise);
  EXPECT_TRUE(custody::testing::Close(host_of(tb), expected, tol.rtol, tol.atol));
  EXPECT_TRUE(r.is_same_storage(tb));
  EXPECT_TRUE(custody::testing::Close(host_of(view), host_view(expected, {3, 2}, {1, 5}, 6), tol.rtol, tol.atol));
  // self aliasing other: a.mul_(a) is the same view (fine); a square a.add_(a.t()) is refused
  // as in ATen (lifetime_suite.h, G8).
  const auto sq = in.random(Float64, {3, 3});
  const T ts2 = make<T>(sq);
  ts2.mul_(ts2);
  EXPECT_TRUE(custody::testing::Close(host_of(ts2), custody::testing::oracle("mul", {sq, sq}), 1e-12, 1e-12));
}

// ---- conversions -----------------------------------------------------------------------------

// Every pair of the six computational dtypes (incl. float -> int truncation
// toward zero and anything -> bool), on values every target can hold.
TYPED_TEST_P(NumericsTest, ToAllDtypePairs) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  for (custody::ScalarType from : all_dtypes()) {
    for (custody::ScalarType to : all_dtypes()) {
      const auto a = in.uniform(from, {3, 4}, 0, 100);
      EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a).to(to); }, "to", {a}, to_args(to)));
      const auto z = in.uniform(from, {}, 0, 100);
      EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(z).to(to); }, "to", {z}, to_args(to)));
      const auto e = in.uniform(from, {0, 2}, 0, 100);
      EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).to(to); }, "to", {e}, to_args(to)));
      EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a).t().to(to); }, "to",
                                  {host_view(a, {4, 3}, {1, 4}, 0)}, to_args(to)));
    }
  }
}

TYPED_TEST_P(NumericsTest, ToFloatToIntTruncatesTowardZero) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  for (custody::ScalarType from : {Float32, Float64}) {
    const custody::testing::HostTensor a{from, {8}, {2.9, -2.9, 0.5, -0.5, 1e6 + 0.75, -7.0, 126.99, -0.0}};
    for (custody::ScalarType to : {Int32, Int64, Bool}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a).to(to); }, "to", {a}, to_args(to)));
    }
    const custody::testing::HostTensor u{from, {4}, {0.99, 254.9, 3.5, 17.0}};
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(u).to(UInt8); }, "to", {u}, to_args(UInt8)));
    // Out of range and NaN: libtorch's answers (Note [Float to integer], core/element_ops.h), the
    // same on every backend: neither saturated nor undefined.
    const double inf = std::numeric_limits<double>::infinity();
    custody::testing::HostTensor wild{from, {14}, {}};
    for (double v : {1e10, -1e10, 300.7, -1.0, -300.2, std::nan(""), inf, -inf, 2147483648.0,
                     -2147483904.0, 1e20, -1e20, 4294967552.0, 9.3e18}) {
      wild.values.push_back(custody::testing::numerics::representable(from, v));
    }
    for (custody::ScalarType to : {Int32, Int64, UInt8, Bool}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(wild).to(to); }, "to", {wild}, to_args(to)))
          << "to " << custody::dtype_name(to);
    }
  }
  const auto t = make<T>({Float32, {3}, {2.9, -2.9, -0.5}}).to(Int64);
  EXPECT_EQ(t.template to_vector<int64_t>(), (std::vector<int64_t>{2, -2, 0}));
  // Narrowing integers wraps; float64 -> float32 rounds to nearest.
  const custody::testing::HostTensor big{Int64, {3}, {4294967296.0 + 5, -2147483649.0, 300}};
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(big).to(Int32); }, "to", {big}, to_args(Int32)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(big).to(UInt8); }, "to", {big}, to_args(UInt8)));
  const custody::testing::HostTensor d{Float64, {3}, {0.1, 1.0 / 3.0, 16777217.0}};
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(d).to(Float32); }, "to", {d}, to_args(Float32)));
}

}  // namespace custody::testing

namespace custody::testing::numerics {

// float16 / bfloat16 are storage-only: created by a cast, cast back exactly as torch's .to(kHalf).
template <class T>
void CheckHalfLike(custody::ScalarType half) {
  // Round-to-nearest-even ties, overflow to inf, subnormals, underflow, NaN, signed zero.
  const std::vector<double> special = {
      0.0, -0.0, 1.0, -1.0, 1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048, 1.0 + 1.0 / 256, 1.0 + 3.0 / 256,
      65504.0, 65519.0, 65520.0, 70000.0, -1e6, 6.1e-5, 5.96e-8, 2.98e-8, 1e-9, 3.14159265,
      1e30, std::nan(""), std::numeric_limits<double>::infinity(), 0.1, -2.5e-6, 3.0e38};
  Inputs in;
  for (custody::ScalarType from : {Float32, Float64}) {
    custody::testing::HostTensor a{from, {static_cast<int64_t>(special.size())}, {}};
    for (double v : special) a.values.push_back(representable(from, v));
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a).to(half); }, "to", {a}, to_args(half)));
    const auto r = in.uniform(from, {4, 5}, -100, 100);
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(r).to(half); }, "to", {r}, to_args(half)));
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(r).t().to(half); }, "to",
                                {host_view(r, {5, 4}, {1, 5}, 0)}, to_args(half)));
  }
  for (custody::ScalarType from : {Int32, Int64, UInt8, Bool}) {
    const auto a = in.random(from, {6});
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a).to(half); }, "to", {a}, to_args(half)));
  }
  // Round trip: half -> every dtype.
  const auto h = in.uniform(half, {3, 4}, -50, 50);
  for (custody::ScalarType to : {Float32, Float64, Int32, Int64, Bool, half}) {
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(h).to(to); }, "to", {h}, to_args(to)));
  }
  const auto hp = in.uniform(half, {3}, 0, 200);
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(hp).to(UInt8); }, "to", {hp}, to_args(UInt8)));
  // float32 -> half -> float32 equals torch's x.to(kHalf).to(kFloat).
  const auto f = in.uniform(Float32, {16}, -10, 10);
  const auto via = custody::testing::oracle("to", {custody::testing::oracle("to", {f}, to_args(half))},
                                            to_args(Float32));
  EXPECT_TRUE(custody::testing::Close(host_of(make<T>(f).to(half).to(Float32)), via, 0, 0));
}

}  // namespace custody::testing::numerics

namespace custody::testing {

TYPED_TEST_P(NumericsTest, ToFloat16RoundTrip) { custody::testing::numerics::CheckHalfLike<TypeParam>(custody::ScalarType::Half); }
TYPED_TEST_P(NumericsTest, ToBFloat16RoundTrip) { custody::testing::numerics::CheckHalfLike<TypeParam>(custody::ScalarType::BFloat16); }

// ---- the oneDNN primitive path (large float32 inputs; on other backends these
// are just large inputs) ---------------------------------------------------------------

// (kLargeRows x kLargeCols: numerics_checks.h)

TYPED_TEST_P(NumericsTest, LargeBinaryFloat32) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.uniform(Float32, {kLargeRows, kLargeCols}, -3, 3);
  const auto b = in.nonzero(Float32, {kLargeRows, kLargeCols}, -3, 3);
  const auto row = in.nonzero(Float32, {kLargeCols}, -3, 3);
  const auto col = in.nonzero(Float32, {kLargeRows, 1}, -3, 3);
  const auto a3 = in.uniform(Float32, {4, 32, kLargeCols}, -3, 3);
  const auto m3 = in.nonzero(Float32, {4, 1, kLargeCols}, -3, 3);
  const T ta = make<T>(a), tb = make<T>(b), trow = make<T>(row), tcol = make<T>(col);
  for (const std::string op : {"add", "sub", "mul", "div", "maximum", "minimum", "lt"}) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, ta, tb); }, op, {a, b}, {}, Acc::kPrimitive));
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, ta, trow); }, op, {a, row}, {}, Acc::kPrimitive));
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, trow, ta); }, op, {row, a}, {}, Acc::kPrimitive));
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, ta, tcol); }, op, {a, col}, {}, Acc::kPrimitive));
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, tcol, trow); }, op, {col, row}, {}, Acc::kPrimitive));
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, make<T>(a3), make<T>(m3)); }, op, {a3, m3}, {},
                                Acc::kPrimitive));
    // Transposed operands of the same logical shape.
    const auto bt = in.nonzero(Float32, {kLargeCols, kLargeRows}, -3, 3);
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, ta, make<T>(bt).t()); }, op,
                                {a, host_view(bt, {kLargeRows, kLargeCols}, {1, kLargeRows}, 0)}, {},
                                Acc::kPrimitive));
    for (const OracleArgs& s : {scalar_args(2, true), scalar_args(-1.25, false)}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return binary_scalar(op, ta, s); }, op, {a}, s, Acc::kPrimitive));
    }
  }
  // In place on a large tensor.
  const T tc = make<T>(a);
  EXPECT_TRUE(AgreesWithTorch(
      [&] {
        tc.add_(trow);
        return tc;
      },
      "add_", {a, row}, {}, Acc::kPrimitive));
}

TYPED_TEST_P(NumericsTest, LargeEltwiseFloat32) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.uniform(Float32, {kLargeRows, kLargeCols}, -4, 4);
  const auto p = in.uniform(Float32, {kLargeRows, kLargeCols}, 0.05, 8);
  const T ta = make<T>(a), tp = make<T>(p);
  for (const std::string& op : unary_ops()) {
    SCOPED_TRACE(op);
    const bool positive = op == "log" || op == "sqrt" || op == "rsqrt";
    EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, positive ? tp : ta); }, op, {positive ? p : a}, {},
                                Acc::kPrimitive));
    // A transposed view (non-contiguous: the direct loop path).
    EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, (positive ? tp : ta).t()); }, op,
                                {host_view(positive ? p : a, {kLargeCols, kLargeRows}, {1, kLargeCols}, 0)}, {},
                                Acc::kPrimitive));
  }
}

// Special values through both kernel paths: the same tensor large (the oneDNN
// primitive path, on onednn) and small (the direct loops); every backend must
// give libtorch's answer: NaN propagates through every unary and softmax row,
// relu(NaN) is NaN, exp(NaN) NaN, rsqrt(-0.) -inf, rsqrt(-inf) NaN.
TYPED_TEST_P(NumericsTest, SpecialValuesOnEveryKernelPath) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> special = {std::nan(""), inf, -inf, 0.0, -0.0, 1e30, -1e30, 88.8, -104.0,
                                       1e-40, -1e-40, 3.0e38};
  for (const int64_t cols : {kLargeCols, int64_t{8}}) {
    const int64_t rows = cols == kLargeCols ? kLargeRows : 4;
    SCOPED_TRACE(rows * cols >= 16384 ? "large (primitive path)" : "small (loop path)");
    Inputs in;
    auto a = in.uniform(Float32, {rows, cols}, -4, 4);
    // Specials scattered, not in every row: some softmax rows hold one, most none.
    for (size_t k = 0; k < special.size(); ++k) {
      a.values[(k * 131 + 7) % a.values.size()] = static_cast<float>(special[k]);
    }
    const T ta = make<T>(a);
    for (const std::string& op : unary_ops()) {
      EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, ta); }, op, {a}, {}, Acc::kPrimitive)) << op;
    }
    for (const std::string op : {"softmax", "log_softmax"}) {
      for (int64_t dim : {0, 1}) {
        EXPECT_TRUE(AgreesWithTorch(
            [&] { return op == "softmax" ? ta.softmax(dim) : ta.log_softmax(dim); }, op, {a},
            dim_args(dim), Acc::kPrimitive))
            << op << " dim " << dim;
      }
    }
    auto b = in.uniform(Float32, {rows, cols}, -4, 4);
    for (size_t k = 0; k < special.size(); ++k) {
      b.values[(k * 173 + 3) % b.values.size()] = static_cast<float>(special[special.size() - 1 - k]);
    }
    const T tb = make<T>(b);
    for (const std::string op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, ta, tb); }, op, {a, b}, {}, Acc::kPrimitive))
          << op;
    }
    // max over a slice of -inf is -inf (not the largest finite value), min over +inf is +inf.
    const custody::testing::HostTensor infs{Float32, {2, 3}, {-inf, -inf, -inf, inf, inf, inf}};
    for (const std::string op : {"max", "min"}) {
      for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, std::vector<int64_t>{1}}) {
        EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, make<T>(infs), dims, false); }, op, {infs},
                                    reduce_args(dims, false)))
            << op;
      }
    }
    const OracleArgs times_inf = scalar_args(inf, /*integral=*/false);
    EXPECT_TRUE(AgreesWithTorch([&] { return binary_scalar("mul", ta, times_inf); }, "mul", {a},
                                times_inf, Acc::kPrimitive));
  }
}

TYPED_TEST_P(NumericsTest, LargeReductionsFloat32) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.uniform(Float32, {16, 64, 32}, 0.5, 1.5);  // 32768 elements
  const T ta = make<T>(a);
  for (const std::string op : {"sum", "mean", "max", "min", "argmax", "argmin"}) {
    const bool arg = op == "argmax" || op == "argmin";
    std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {-1}};
    if (!arg) {
      dim_sets.push_back({0, 2});
      dim_sets.push_back({1, 2});
      dim_sets.push_back({0, 1, 2});
    }
    for (const auto& dims : dim_sets) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, ta, dims, keepdim); }, op, {a},
                                    reduce_args(dims, keepdim), Acc::kPrimitiveSum));
      }
    }
    // Permuted (non-contiguous) input.
    EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, ta.permute({2, 0, 1}), {1}, false); }, op,
                                {host_view(a, {32, 16, 64}, {1, 2048, 32}, 0)}, reduce_args({1}, false),
                                Acc::kPrimitiveSum));
  }
}

TYPED_TEST_P(NumericsTest, LargeSoftmaxFloat32) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.uniform(Float32, {8, 64, 40}, -6, 6);  // 20480 elements
  const T ta = make<T>(a);
  for (const std::string op : {"softmax", "log_softmax"}) {
    for (int64_t dim : {0, 1, 2, -1}) {
      EXPECT_TRUE(AgreesWithTorch([&] { return op == "softmax" ? ta.softmax(dim) : ta.log_softmax(dim); }, op,
                                  {a}, dim_args(dim), Acc::kPrimitive));
    }
    EXPECT_TRUE(AgreesWithTorch([&] { return op == "softmax" ? ta.transpose(0, 2).softmax(1)
                                                             : ta.transpose(0, 2).log_softmax(1); },
                                op, {host_view(a, {40, 64, 8}, {1, 40, 2560}, 0)}, dim_args(1),
                                Acc::kPrimitive));
  }
}

TYPED_TEST_P(NumericsTest, LargeMatmulFloat32) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.uniform(Float32, {64, 128}, -1, 1), b = in.uniform(Float32, {128, 96}, -1, 1);
  const T ta = make<T>(a), tb = make<T>(b);
  EXPECT_TRUE(AgreesWithTorch([&] { return ta.matmul(tb); }, "matmul", {a, b}, {}, Acc::kPrimitiveSum));
  // Transposed: a stored as [128, 64], b stored as [96, 128].
  const auto at = in.uniform(Float32, {128, 64}, -1, 1), bt = in.uniform(Float32, {96, 128}, -1, 1);
  const T tat = make<T>(at), tbt = make<T>(bt);
  const auto at_v = host_view(at, {64, 128}, {1, 64}, 0), bt_v = host_view(bt, {128, 96}, {1, 128}, 0);
  EXPECT_TRUE(AgreesWithTorch([&] { return tat.t().matmul(tb); }, "matmul", {at_v, b}, {}, Acc::kPrimitiveSum));
  EXPECT_TRUE(AgreesWithTorch([&] { return ta.matmul(tbt.t()); }, "matmul", {a, bt_v}, {}, Acc::kPrimitiveSum));
  EXPECT_TRUE(AgreesWithTorch([&] { return tat.t().matmul(tbt.t()); }, "matmul", {at_v, bt_v}, {},
                              Acc::kPrimitiveSum));
  // Batched and batch-broadcast.
  const auto c = in.uniform(Float32, {4, 32, 64}, -1, 1), d = in.uniform(Float32, {4, 64, 48}, -1, 1);
  const T tc = make<T>(c), td = make<T>(d);
  EXPECT_TRUE(AgreesWithTorch([&] { return tc.matmul(td); }, "matmul", {c, d}, {}, Acc::kPrimitiveSum));
  const auto w = in.uniform(Float32, {64, 48}, -1, 1);
  EXPECT_TRUE(AgreesWithTorch([&] { return tc.matmul(make<T>(w)); }, "matmul", {c, w}, {}, Acc::kPrimitiveSum));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(w).t().matmul(tc.transpose(1, 2)); }, "matmul",
                              {host_view(w, {48, 64}, {1, 48}, 0), host_view(c, {4, 64, 32}, {2048, 1, 64}, 0)},
                              {}, Acc::kPrimitiveSum));
  // Rank 4 and 5, batch dims broadcast from the right (oneDNN's own broadcast).
  const auto c4 = in.uniform(Float32, {2, 1, 32, 64}, -1, 1), d4 = in.uniform(Float32, {1, 3, 64, 48}, -1, 1);
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(c4).matmul(make<T>(d4)); }, "matmul", {c4, d4}, {},
                              Acc::kPrimitiveSum));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(c4).matmul(td); }, "matmul", {c4, d}, {},
                              Acc::kPrimitiveSum));
  const auto e5 = in.uniform(Float32, {2, 3, 1, 32, 64}, -1, 1);  // batches [2, 3, 1] x [1, 3]
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e5).matmul(make<T>(d4)); }, "matmul", {e5, d4}, {},
                              Acc::kPrimitiveSum));
  // Float64 of the same size (direct loops).
  const auto a64 = in.uniform(Float64, {64, 128}, -1, 1), b64 = in.uniform(Float64, {128, 96}, -1, 1);
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a64).matmul(make<T>(b64)); }, "matmul", {a64, b64}));
}

// Large strided copies (the reorder path) and casts.
TYPED_TEST_P(NumericsTest, LargeCopiesAndCasts) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  Inputs in;
  const auto a = in.uniform(Float32, {kLargeRows, kLargeCols}, -300, 300);
  const T ta = make<T>(a);
  const auto at = host_view(a, {kLargeCols, kLargeRows}, {1, kLargeCols}, 0);
  for (custody::ScalarType to : {Float32, Float64, Int32, Int64, Bool, Float16, BFloat16_}) {
    SCOPED_TRACE(custody::dtype_name(to));
    EXPECT_TRUE(AgreesWithTorch([&] { return ta.t().to(to); }, "to", {at}, to_args(to)));
  }
  // contiguous() of a transposed view and of a narrowed one.
  const auto c = host_of(ta.t().contiguous());
  EXPECT_TRUE(Close(c, at, 0, 0));
  const auto n = host_of(ta.narrow(1, 3, 150).contiguous());
  EXPECT_TRUE(Close(n, host_view(a, {kLargeRows, 150}, {kLargeCols, 1}, 3), 0, 0));
}

// ---- 0-dim and empty tensors through every op family --------------------------------------

TYPED_TEST_P(NumericsTest, ZeroDimTensorsEveryOpFamily) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  const custody::testing::HostTensor x{Float32, {}, {1.5}}, y{Float32, {}, {-0.5}};
  const custody::testing::HostTensor c{Bool, {}, {1}};
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).add(make<T>(y)); }, "add", {x, y}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).exp(); }, "exp", {x}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).sum(); }, "sum", {x}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).max(0, true); }, "max", {x}, reduce_args({0}, true)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).argmax(); }, "argmax", {x}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).argmin(0); }, "argmin", {x}, reduce_args({0}, false)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).softmax(0); }, "softmax", {x}, dim_args(0)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).log_softmax(-1); }, "log_softmax", {x}, dim_args(-1)));
  EXPECT_TRUE(AgreesWithTorch([&] { return custody::where(make<T>(c), make<T>(x), make<T>(y)); }, "where",
                              {c, x, y}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(x).to(custody::ScalarType::Long); }, "to", {x},
                              to_args(Int64)));
  // T::scalar and T::full build 0-dim tensors too.
  EXPECT_TRUE(AgreesWithTorch([&] { return T::scalar(1.5).mul(T::scalar(int64_t{3})); }, "mul",
                              {x, {Int64, {}, {3}}}));
  EXPECT_TRUE(AgreesWithTorch([&] { return T::full({}, 2.0).pow(make<T>(y)); }, "pow",
                              {{Float32, {}, {2.0}}, y}));
  EXPECT_EQ(make<T>(x).add(make<T>(y)).dim(), 0);
}

TYPED_TEST_P(NumericsTest, EmptyTensorsEveryOpFamily) {
  CUSTODY_NUMERICS_USING;
  using T = TypeParam;
  const custody::testing::HostTensor e{Float32, {0, 3}, {}}, r{Float32, {3}, {1, 2, 3}};
  const custody::testing::HostTensor w{Float32, {3, 2}, {1, 2, 3, 4, 5, 6}};
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).add(make<T>(r)); }, "add", {e, r}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).lt(make<T>(r)); }, "lt", {e, r}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).sigmoid(); }, "sigmoid", {e}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).sum(0); }, "sum", {e}, reduce_args({0}, false)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).sum(); }, "sum", {e}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).mean(0); }, "mean", {e}, reduce_args({0}, false)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).max(1); }, "max", {e}, reduce_args({1}, false)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).max(0); }, "max", {e}, reduce_args({0}, false)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).max(); }, "max", {e}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).argmax(); }, "argmax", {e}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).argmax(1); }, "argmax", {e}, reduce_args({1}, false)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).softmax(1); }, "softmax", {e}, dim_args(1)));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).matmul(make<T>(w)); }, "matmul", {e, w}));
  EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(e).to(custody::ScalarType::Int); }, "to", {e},
                              to_args(Int32)));
}

REGISTER_TYPED_TEST_SUITE_P(
    NumericsTest,
    // binary, per op and dtype
    Add_Float32, Add_Float64, Add_Int32, Add_Int64, Add_UInt8, Add_Int8, Add_Int16, Add_Bool,
    Sub_Float32, Sub_Float64, Sub_Int32, Sub_Int64, Sub_UInt8, Sub_Int8, Sub_Int16, Sub_Bool,
    Mul_Float32, Mul_Float64, Mul_Int32, Mul_Int64, Mul_UInt8, Mul_Int8, Mul_Int16, Mul_Bool,
    Div_Float32, Div_Float64, Div_Int32, Div_Int64, Div_UInt8, Div_Int8, Div_Int16, Div_Bool,
    Maximum_Float32, Maximum_Float64, Maximum_Int32, Maximum_Int64, Maximum_UInt8, Maximum_Int8, Maximum_Int16, Maximum_Bool,
    Minimum_Float32, Minimum_Float64, Minimum_Int32, Minimum_Int64, Minimum_UInt8, Minimum_Int8, Minimum_Int16, Minimum_Bool,
    Pow_Float32, Pow_Float64, Pow_Int32, Pow_Int64, Pow_UInt8, Pow_Int8, Pow_Int16, Pow_BoolAgreesWithTorch,
    Eq_Float32, Eq_Float64, Eq_Int32, Eq_Int64, Eq_UInt8, Eq_Int8, Eq_Int16, Eq_Bool,
    Ne_Float32, Ne_Float64, Ne_Int32, Ne_Int64, Ne_UInt8, Ne_Int8, Ne_Int16, Ne_Bool,
    Lt_Float32, Lt_Float64, Lt_Int32, Lt_Int64, Lt_UInt8, Lt_Int8, Lt_Int16, Lt_Bool,
    Le_Float32, Le_Float64, Le_Int32, Le_Int64, Le_UInt8, Le_Int8, Le_Int16, Le_Bool,
    Gt_Float32, Gt_Float64, Gt_Int32, Gt_Int64, Gt_UInt8, Gt_Int8, Gt_Int16, Gt_Bool,
    Ge_Float32, Ge_Float64, Ge_Int32, Ge_Int64, Ge_UInt8, Ge_Int8, Ge_Int16, Ge_Bool,
    // promotion
    MixedDtypePromotionAllPairs, MixedDtypePromotionExamples, ScalarPromotionAllDtypes,
    ScalarPromotionExamples, ZeroDimTensorPromotion,
    // unary
    Neg_Float32, Neg_Float64, Neg_Integral, Abs_Float32, Abs_Float64, Abs_Integral,
    Exp_Float32, Exp_Float64, Exp_Integral, Log_Float32, Log_Float64, Log_Integral,
    Sqrt_Float32, Sqrt_Float64, Sqrt_Integral, Rsqrt_Float32, Rsqrt_Float64, Rsqrt_Integral,
    Tanh_Float32, Tanh_Float64, Tanh_Integral, Sigmoid_Float32, Sigmoid_Float64, Sigmoid_Integral,
    Relu_Float32, Relu_Float64, Relu_Integral, Gelu_Float32, Gelu_Float64, Gelu_Integral,
    Silu_Float32, Silu_Float64, Silu_Integral, Sin_Float32, Sin_Float64, Sin_Integral,
    Cos_Float32, Cos_Float64, Cos_Integral,
    // reductions
    Sum_Float32, Sum_Float64, Sum_Int32, Sum_Int64, Sum_UInt8, Sum_Int8, Sum_Int16, Sum_Bool, Mean_Float32, Mean_Float64,
    Max_Float32, Max_Float64, Max_Int32, Max_Int64, Max_UInt8, Max_Int8, Max_Int16, Max_Bool,
    Min_Float32, Min_Float64, Min_Int32, Min_Int64, Min_UInt8, Min_Int8, Min_Int16, Min_Bool,
    Argmax_Float32, Argmax_Float64, Argmax_Int32, Argmax_Int64, Argmax_UInt8, Argmax_Int8, Argmax_Int16,
    Argmin_Float32, Argmin_Float64, Argmin_Int32, Argmin_Int64, Argmin_UInt8, Argmin_Int8, Argmin_Int16,
    ReduceIntegralEdgeDtypesAgreeWithTorch, ArgmaxArgminTiesTakeFirstIndex, ReductionsPropagateNaN, SpecialValuesOnEveryKernelPath,
    // softmax
    Softmax_Float32, Softmax_Float64, LogSoftmax_Float32, LogSoftmax_Float64, SoftmaxIntegralAgreesWithTorch,
    // matmul
    Matmul_Float32, Matmul_Float64, Matmul_Int32, Matmul_Int64, Matmul_UInt8, Matmul_Int8, Matmul_Int16, MatmulTransposedOperands,
    MatmulMixedAndBoolDtypesAgreeWithTorch,
    // indexing, cat, where
    IndexSelect_Int64Index, IndexSelect_Int32Index, Embedding_Int64Indices, Embedding_Int32Indices,
    CatEachDimEveryDtype, CatMixedDtypes, CatEmptyAndNonContiguous, WhereEveryDtypeWithBroadcasting,
    WhereMixedDtypesAndNonContiguous,
    // in-place
    InplaceAdd, InplaceSub, InplaceMul, InplaceDiv, InplaceOnNonContiguousView,
    // conversions
    ToAllDtypePairs, ToFloatToIntTruncatesTowardZero, ToFloat16RoundTrip, ToBFloat16RoundTrip,
    // the oneDNN primitive path
    LargeBinaryFloat32, LargeEltwiseFloat32, LargeReductionsFloat32, LargeSoftmaxFloat32, LargeMatmulFloat32,
    LargeCopiesAndCasts,
    // 0-dim and empty
    ZeroDimTensorsEveryOpFamily, EmptyTensorsEveryOpFamily);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_NUMERICS_SUITE_H_
