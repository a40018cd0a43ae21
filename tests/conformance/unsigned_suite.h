// Copyright 2026 The custody Authors.
//
// uint16, uint32 and uint64 — ATen 2.x's "barebones" unsigned dtypes, which
// ExecuTorch's tensors carry — on every (policy, backend) combination: storage,
// casts, printing, comparisons and the arithmetic custody runs on them (Note
// [Barebones unsigned ops], core/ops.h), and a typed DTypeError for the rest.
//
// libtorch 1.13 (the numerics oracle) has none of these dtypes, so every
// expected value here is C++'s own answer on the same values: static_cast for
// conversions (modular between integers, truncating from in-range floats),
// the built-in operators for comparisons, unsigned (wrapping) arithmetic for
// add/sub/mul. int8 and int16, which libtorch has, are checked against it by
// NumericsTest like every other computational dtype.

#ifndef CUSTODY_TESTS_CONFORMANCE_UNSIGNED_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_UNSIGNED_SUITE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "testing/harness.h"

namespace custody::testing {

template <class T>
class UnsignedTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(UnsignedTest);

// Calls f(Tag<U>{}) for U = uint16_t, uint32_t, uint64_t, each traced with its dtype's name.
template <class F>
void for_each_unsigned(F&& f) {
  auto one = [&](auto tag) {
    SCOPED_TRACE(std::string(dtype_name(scalar_type_of<typename decltype(tag)::type>)));
    f(tag);
  };
  one(Tag<uint16_t>{});
  one(Tag<uint32_t>{});
  one(Tag<uint64_t>{});
}

// Values that reach every byte of U: 0, 1, 2^(bits-1) (past the signed range
// of the same width) and the maximum.
template <class U>
std::vector<U> edge_values() {
  constexpr U kMax = std::numeric_limits<U>::max();
  return {U(0), U(1), U(7), static_cast<U>(kMax / 2 + 1), static_cast<U>(kMax - 1), kMax};
}

TYPED_TEST_P(UnsignedTest, CreateReadAndPrintExactly) {
  using T = TypeParam;
  for_each_unsigned([](auto tag) {
    using U = typename decltype(tag)::type;
    const ScalarType dt = scalar_type_of<U>;
    const std::vector<U> v = edge_values<U>();
    T t = T::from_vector(v, {static_cast<int64_t>(v.size())});
    EXPECT_EQ(t.scalar_type(), dt);
    EXPECT_EQ(t.element_size(), sizeof(U));
    EXPECT_EQ(t.template to_vector<U>(), v);
    EXPECT_EQ(t.select(0, 5).template item<U>(), std::numeric_limits<U>::max());
    // Every digit, right-aligned to the widest value, as PyTorch prints.
    const std::string widest = std::to_string(v.back());
    std::string want = "tensor([";
    for (size_t i = 0; i < v.size(); ++i) {
      std::string s = std::to_string(v[i]);
      want += (i ? ", " : "") + std::string(widest.size() - s.size(), ' ') + s;
    }
    want += "], dtype=torch." + std::string(dtype_name(dt)) + ")";
    EXPECT_EQ(t.to_string(), want);
    EXPECT_EQ(T::zeros({2}, dt).template to_vector<U>(), std::vector<U>({0, 0}));
    EXPECT_EQ(T::ones({2}, dt).template to_vector<U>(), std::vector<U>({1, 1}));
    EXPECT_EQ(T::full(std::vector<int64_t>{2}, std::numeric_limits<U>::max(), dt).template to_vector<U>(),
              std::vector<U>(2, std::numeric_limits<U>::max()));
    EXPECT_EQ(T::empty({3}, dt).scalar_type(), dt);
    // A clone and a contiguous copy of a strided view keep every bit.
    T m = T::from_vector(v, {2, 3});
    EXPECT_EQ(m.t().contiguous().template to_vector<U>(),
              std::vector<U>({v[0], v[3], v[1], v[4], v[2], v[5]}));
    EXPECT_EQ(m.clone().template to_vector<U>(), v);
    EXPECT_EQ(T::zeros({3}, dt).fill_(std::numeric_limits<U>::max()).template to_vector<U>(),
              std::vector<U>(3, std::numeric_limits<U>::max()));
  });
  // One past the maximum does not fit, as ATen refuses it.
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::full(std::vector<int64_t>{1}, 65536, ScalarType::UInt16),
                        "full", "65536", "uint16");
  CUSTODY_EXPECT_THROWS(InvalidArgument, T::full(std::vector<int64_t>{1}, int64_t{1} << 32, ScalarType::UInt32),
                        "full", "uint32");
}

// Every dtype to each unsigned dtype and back, against C++'s conversions.
TYPED_TEST_P(UnsignedTest, CastsAsCpp) {
  using T = TypeParam;
  for_each_unsigned([](auto tag) {
    using U = typename decltype(tag)::type;
    const ScalarType dt = scalar_type_of<U>;
    // Signed integers: modular, as static_cast (-1 -> max).
    const std::vector<int64_t> ints{0, 1, -1, 300, -300, 70000, int64_t{5} << 33};
    std::vector<U> want;
    for (int64_t x : ints) want.push_back(static_cast<U>(x));
    EXPECT_EQ(T::from_vector(ints, {7}).to(dt).template to_vector<U>(), want);
    const std::vector<int32_t> i32{0, 1, -1, 65535, -65536, INT32_MIN};
    want.clear();
    for (int32_t x : i32) want.push_back(static_cast<U>(x));
    EXPECT_EQ(T::from_vector(i32, {6}).to(dt).template to_vector<U>(), want);
    const std::vector<int8_t> i8{0, 1, -1, -128, 127};
    want.clear();
    for (int8_t x : i8) want.push_back(static_cast<U>(x));
    EXPECT_EQ(T::from_vector(i8, {5}).to(dt).template to_vector<U>(), want);
    // In-range floats truncate toward zero.
    const std::vector<double> fl{0.0, 0.9, 1.5, 255.99, 65535.0};
    want.clear();
    for (double x : fl) want.push_back(static_cast<U>(x));
    EXPECT_EQ(T::from_vector(fl, {5}).to(dt).template to_vector<U>(), want);
    EXPECT_EQ(T::from_vector(std::vector<float>{3.75f, 1000.5f}, {2}).to(dt).template to_vector<U>(),
              std::vector<U>({3, 1000}));
    EXPECT_EQ(T::from_vector(std::vector<bool>{true, false}, {2}).to(dt).template to_vector<U>(),
              std::vector<U>({1, 0}));
    if constexpr (std::is_same_v<U, uint64_t>) {  // past INT64_MAX, still exact
      EXPECT_EQ(T::from_vector(std::vector<double>{1e19, 9223372036854775808.0}, {2})
                    .to(dt)
                    .template to_vector<U>(),
                std::vector<U>({10000000000000000000ull, 9223372036854775808ull}));
    }
    // And back, from the edge values.
    const std::vector<U> v = edge_values<U>();
    T u = T::from_vector(v, {6});
    auto expect_as = [&](auto out_tag) {
      using O = typename decltype(out_tag)::type;
      std::vector<O> w;
      for (U x : v) w.push_back(static_cast<O>(x));
      EXPECT_EQ(u.to(scalar_type_of<O>).template to_vector<O>(), w) << dtype_name(scalar_type_of<O>);
    };
    expect_as(Tag<int64_t>{});
    expect_as(Tag<int32_t>{});
    expect_as(Tag<int16_t>{});
    expect_as(Tag<int8_t>{});
    expect_as(Tag<uint8_t>{});
    expect_as(Tag<uint16_t>{});
    expect_as(Tag<uint32_t>{});
    expect_as(Tag<uint64_t>{});
    expect_as(Tag<double>{});
    expect_as(Tag<float>{});
    std::vector<bool> b;
    for (U x : v) b.push_back(x != 0);
    EXPECT_EQ(u.to(ScalarType::Bool).template to_vector<bool>(), b);
  });
}

TYPED_TEST_P(UnsignedTest, AddSubMulWrapAsUnsignedArithmetic) {
  using T = TypeParam;
  for_each_unsigned([](auto tag) {
    using U = typename decltype(tag)::type;
    const ScalarType dt = scalar_type_of<U>;
    const std::vector<U> a = edge_values<U>();
    const std::vector<U> b{U(1), U(3), static_cast<U>(std::numeric_limits<U>::max()), U(2), U(5), U(1)};
    T ta = T::from_vector(a, {6}), tb = T::from_vector(b, {6});
    std::vector<U> sum, diff, prod, plus, minus, times;
    for (size_t i = 0; i < a.size(); ++i) {
      sum.push_back(static_cast<U>(a[i] + b[i]));
      diff.push_back(static_cast<U>(a[i] - b[i]));
      prod.push_back(static_cast<U>(static_cast<uint64_t>(a[i]) * b[i]));
      plus.push_back(static_cast<U>(a[i] + U(2)));
      minus.push_back(static_cast<U>(a[i] - U(2)));
      times.push_back(static_cast<U>(static_cast<uint64_t>(a[i]) * 3u));
    }
    EXPECT_EQ((ta + tb).template to_vector<U>(), sum);
    EXPECT_EQ((ta - tb).template to_vector<U>(), diff);
    EXPECT_EQ((ta * tb).template to_vector<U>(), prod);
    // An integer scalar keeps the tensor's dtype, as torch.result_type.
    T p = ta + 2;
    EXPECT_EQ(p.scalar_type(), dt);
    EXPECT_EQ(p.template to_vector<U>(), plus);
    EXPECT_EQ((ta - 2).template to_vector<U>(), minus);
    EXPECT_EQ((ta * 3).template to_vector<U>(), times);
    // Broadcast and in place.
    T row = T::from_vector(std::vector<U>{U(1), U(2), U(3)}, {1, 3});
    T col = T::from_vector(std::vector<U>{U(10), std::numeric_limits<U>::max()}, {2, 1});
    std::vector<U> bc;
    for (U c : {U(10), std::numeric_limits<U>::max()}) {
      for (U r : {U(1), U(2), U(3)}) bc.push_back(static_cast<U>(c + r));
    }
    EXPECT_EQ((col + row).template to_vector<U>(), bc);
    T acc = ta.clone();
    acc.add_(tb);
    EXPECT_EQ(acc.template to_vector<U>(), sum);
    acc.sub_(1);
    for (U& x : sum) x = static_cast<U>(x - U(1));
    EXPECT_EQ(acc.template to_vector<U>(), sum);
    // A float operand computes in float32; division always does.
    T half = ta + 0.5;
    EXPECT_EQ(half.scalar_type(), ScalarType::Float);
    std::vector<float> q;
    for (size_t i = 0; i < a.size(); ++i) q.push_back(static_cast<float>(a[i]) / static_cast<float>(b[i]));
    T d = ta / tb;
    EXPECT_EQ(d.scalar_type(), ScalarType::Float);
    EXPECT_EQ(d.template to_vector<float>(), q);
    // sum is int64 (each value converted first, as ATen: uint64's maximum is -1).
    int64_t total = 0;
    for (U x : a) total = static_cast<int64_t>(static_cast<uint64_t>(total) + static_cast<uint64_t>(static_cast<int64_t>(x)));
    T s = ta.sum();
    EXPECT_EQ(s.scalar_type(), ScalarType::Long);
    EXPECT_EQ(s.template item<int64_t>(), total);
    // The floating unary ops compute in float32.
    T small = T::from_vector(std::vector<U>{U(0), U(1), U(4), U(9)}, {4});
    T r = small.sqrt();
    EXPECT_EQ(r.scalar_type(), ScalarType::Float);
    EXPECT_EQ(r.template to_vector<float>(), std::vector<float>({0, 1, 2, 3}));
    EXPECT_EQ(small.exp().template to_vector<float>()[0], 1.0f);
  });
}

TYPED_TEST_P(UnsignedTest, ComparisonsAreUnsigned) {
  using T = TypeParam;
  for_each_unsigned([](auto tag) {
    using U = typename decltype(tag)::type;
    const std::vector<U> a = edge_values<U>();
    std::vector<U> b = a;
    std::reverse(b.begin(), b.end());
    T ta = T::from_vector(a, {6}), tb = T::from_vector(b, {6});
    auto expect = [&](const T& got, auto pred) {
      std::vector<bool> w;
      for (size_t i = 0; i < a.size(); ++i) w.push_back(pred(a[i], b[i]));
      EXPECT_EQ(got.scalar_type(), ScalarType::Bool);
      EXPECT_EQ(got.template to_vector<bool>(), w);
    };
    expect(ta.eq(tb), [](U x, U y) { return x == y; });
    expect(ta.ne(tb), [](U x, U y) { return x != y; });
    expect(ta.lt(tb), [](U x, U y) { return x < y; });
    expect(ta.le(tb), [](U x, U y) { return x <= y; });
    expect(ta.gt(tb), [](U x, U y) { return x > y; });
    expect(ta.ge(tb), [](U x, U y) { return x >= y; });
    // Against a scalar: the top half of the range is above 1, never negative.
    std::vector<bool> gt1;
    for (U x : a) gt1.push_back(x > U(1));
    EXPECT_EQ(ta.gt(1).template to_vector<bool>(), gt1);
    std::vector<bool> eqmax;
    for (U x : a) eqmax.push_back(x == std::numeric_limits<U>::max());
    EXPECT_EQ(ta.eq(std::numeric_limits<U>::max()).template to_vector<bool>(), eqmax);
  });
}

TYPED_TEST_P(UnsignedTest, CatIndexSelectWhereRandint) {
  using T = TypeParam;
  for_each_unsigned([](auto tag) {
    using U = typename decltype(tag)::type;
    const ScalarType dt = scalar_type_of<U>;
    const std::vector<U> v = edge_values<U>();
    T t = T::from_vector(v, {2, 3});
    T c = cat(std::vector<T>{t, t.narrow(0, 1, 1)}, 0);
    EXPECT_EQ(c.scalar_type(), dt);
    EXPECT_EQ(c.template to_vector<U>(), std::vector<U>({v[0], v[1], v[2], v[3], v[4], v[5], v[3], v[4], v[5]}));
    T idx = T::from_vector(std::vector<int64_t>{2, 0}, {2});
    EXPECT_EQ(t.index_select(1, idx).template to_vector<U>(), std::vector<U>({v[2], v[0], v[5], v[3]}));
    T mask = T::from_vector(std::vector<bool>{true, false, true}, {3});
    T other = T::zeros({2, 3}, dt);
    EXPECT_EQ(where(mask, t, other).template to_vector<U>(), std::vector<U>({v[0], 0, v[2], v[3], 0, v[5]}));
    T r = T::randint(0, 1000, std::vector<int64_t>{64}, dt);
    EXPECT_EQ(r.scalar_type(), dt);
    for (U x : r.template to_vector<U>()) EXPECT_LT(x, U(1000));
    CUSTODY_EXPECT_THROWS(InvalidArgument, T::randint(-1, 3, std::vector<int64_t>{2}, dt), "randint",
                          std::string(dtype_name(dt)));
  });
}

// What ATen does not run on these dtypes is a DTypeError naming the op and the
// dtype; promotion with anything but itself and a floating dtype is one too.
TYPED_TEST_P(UnsignedTest, UnsupportedOpsAndPromotionsAreDTypeErrors) {
  using T = TypeParam;
  for_each_unsigned([](auto tag) {
    using U = typename decltype(tag)::type;
    const ScalarType dt = scalar_type_of<U>;
    const std::string name(dtype_name(dt));
    T u = T::from_vector(std::vector<U>{U(1), U(2)}, {2});
    CUSTODY_EXPECT_THROWS(DTypeError, u.neg(), "neg", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.abs(), "abs", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.relu(), "relu", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.maximum(u), "maximum", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.pow(2), "pow", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.mean(), "mean", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.max(), "max", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.argmax(), "argmax", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.softmax(0), "softmax", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.reshape({1, 2}).matmul(u.reshape({2, 1})), "matmul", name);
    CUSTODY_EXPECT_THROWS(DTypeError, T::arange(0, 3, 1, dt), "arange", name);
    CUSTODY_EXPECT_THROWS(DTypeError, T::rand(std::vector<int64_t>{2}, dt), "rand", name);
    // Promotion: only with itself and with floating dtypes.
    for (ScalarType other : {ScalarType::Int, ScalarType::Long, ScalarType::Byte, ScalarType::Char,
                             ScalarType::Bool}) {
      T o = T::ones({2}, other);
      CUSTODY_EXPECT_THROWS(DTypeError, u + o, "add", name,
                            std::string(dtype_name(other)), "promotion");
      CUSTODY_EXPECT_THROWS(DTypeError, o.lt(u), "lt", name,
                            std::string(dtype_name(other)));
    }
    CUSTODY_EXPECT_THROWS(DTypeError, cat(std::vector<T>{u, T::ones({2}, ScalarType::Long)}, 0), "cat",
                          name, "int64");
    T f = u + T::ones({2}, ScalarType::Double);
    EXPECT_EQ(f.scalar_type(), ScalarType::Double);
    EXPECT_EQ(f.template to_vector<double>(), std::vector<double>({2, 3}));
    EXPECT_EQ((u + T::ones({2}, ScalarType::Float)).scalar_type(), ScalarType::Float);
    EXPECT_EQ(promote_types(dt, ScalarType::Half), ScalarType::Half);
    // A 0-dim operand of the same category does not take part (torch.result_type).
    EXPECT_EQ((u + T::scalar(int64_t{5})).scalar_type(), dt);
    // In place, a float result cannot be written into an unsigned tensor (c10's canCast).
    CUSTODY_EXPECT_THROWS(DTypeError, u.clone().add_(0.5), "add_", "float32", name);
    CUSTODY_EXPECT_THROWS(DTypeError, u.clone().div_(u), "div_", name);
  });
  CUSTODY_EXPECT_THROWS(DTypeError,
                        T::ones({2}, ScalarType::UInt16) + T::ones({2}, ScalarType::UInt32), "add",
                        "uint16", "uint32");
}

REGISTER_TYPED_TEST_SUITE_P(UnsignedTest, CreateReadAndPrintExactly, CastsAsCpp,
                            AddSubMulWrapAsUnsignedArithmetic, ComparisonsAreUnsigned,
                            CatIndexSelectWhereRandint, UnsupportedOpsAndPromotionsAreDTypeErrors);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_UNSIGNED_SUITE_H_
