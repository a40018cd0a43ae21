// Copyright 2026 The custody Authors.
//
// tests/conformance/numerics_checks.h — how NumericsTest (numerics_suite.h)
// and the catalogue (catalogue_suite.h) compare an op with the oracle: custody
// tensors from oracle inputs (make<T>), ops by name (binary, unary, reduce,
// ...), and the per-op checks (CheckBinary, CheckUnary, CheckReduce, ...) with
// the tolerances listed in numerics_suite.h. No test suite here, so a binary
// may use the checks without registering NumericsTest.

#ifndef CUSTODY_TESTS_CONFORMANCE_NUMERICS_CHECKS_H_
#define CUSTODY_TESTS_CONFORMANCE_NUMERICS_CHECKS_H_

#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"
#include "testing/harness.h"
#include "tests/conformance/numerics_harness.h"
#include "tests/conformance/oracle.h"

namespace custody::testing::numerics {

// Large enough for the oneDNN primitive path (its threshold is 16384 elements).
inline constexpr int64_t kLargeRows = 128;  // 128 x 160 = 20480 >= 16384 elements
inline constexpr int64_t kLargeCols = 160;

// A custody tensor holding `h`'s values (contiguous, row-major).
template <class T>
T make(const HostTensor& h) {
  const IntSpan sizes(h.sizes.data(), h.sizes.size());
  switch (h.dtype) {
    case ScalarType::Bool: {
      std::vector<bool> v(h.values.size());
      for (size_t i = 0; i < v.size(); ++i) v[i] = h.values[i] != 0;
      return T::from_vector(v, sizes);
    }
    case ScalarType::Half: {
      std::vector<Half> v;
      for (double x : h.values) v.push_back(Half(static_cast<float>(x)));
      return T::from_vector(v, sizes);
    }
    case ScalarType::BFloat16: {
      std::vector<BFloat16> v;
      for (double x : h.values) v.push_back(BFloat16(static_cast<float>(x)));
      return T::from_vector(v, sizes);
    }
    default:
      return visit_compute_dtype(h.dtype, [&](auto tag) -> T {
        using E = typename decltype(tag)::type;
        if constexpr (std::is_same_v<E, bool>) {
          return T::from_vector(std::vector<bool>{}, sizes);  // not reached
        } else {
          std::vector<E> v;
          v.reserve(h.values.size());
          for (double x : h.values) v.push_back(static_cast<E>(x));
          return T::from_vector(v, sizes);
        }
      });
  }
}

// Runs `ours()` and the oracle on the same inputs; they must agree on dtype,
// sizes and values within tolerance(result dtype, acc), or both must reject.
template <class F>
::testing::AssertionResult AgreesWithTorch(F&& ours, const std::string& op,
                                           const std::vector<HostTensor>& in,
                                           const OracleArgs& args = {},
                                           Acc acc = Acc::kElementwise) {
  std::optional<HostTensor> ref;
  std::string torch_error;
  try {
    ref = oracle(op, in, args);
  } catch (const std::exception& e) {
    torch_error = e.what();
  }
  std::optional<HostTensor> got;
  std::string our_error;
  try {
    got = host_of(ours());
  } catch (const custody::Error& e) {
    our_error = e.what();
  }
  if (!ref && !got) return ::testing::AssertionSuccess();  // both reject
  if (!ref) {
    return ::testing::AssertionFailure() << describe(op, in, args) << ": torch rejects it ("
                                         << torch_error << ") but custody returned " << *got;
  }
  if (!got) {
    return ::testing::AssertionFailure() << describe(op, in, args) << ": custody threw \""
                                         << our_error << "\" but torch returned " << *ref;
  }
  const Tol tol = tolerance(ref->dtype, acc);
  ::testing::AssertionResult r = Close(*got, *ref, tol.rtol, tol.atol);
  if (!r) r << "\n  in " << describe(op, in, args);
  return r;
}

// ---- ops by name ---------------------------------------------------------------

template <class T>
T binary(const std::string& op, const T& a, const T& b) {
  if (op == "add") return a.add(b);
  if (op == "sub") return a.sub(b);
  if (op == "mul") return a.mul(b);
  if (op == "div") return a.div(b);
  if (op == "maximum") return a.maximum(b);
  if (op == "minimum") return a.minimum(b);
  if (op == "pow") return a.pow(b);
  if (op == "eq") return a.eq(b);
  if (op == "ne") return a.ne(b);
  if (op == "lt") return a.lt(b);
  if (op == "le") return a.le(b);
  if (op == "gt") return a.gt(b);
  if (op == "ge") return a.ge(b);
  throw std::invalid_argument("binary: unknown op " + op);
}

template <class T>
T binary_scalar(const std::string& op, const T& a, const OracleArgs& args) {
  const Scalar s = scalar_of(args);
  if (args.scalar_first) {
    if (op == "sub") return s - a;
    if (op == "div") return s / a;
    if (op == "add") return s + a;
    if (op == "mul") return s * a;
    throw std::invalid_argument("binary_scalar: no scalar-first form of " + op);
  }
  if (op == "add") return a.add(s);
  if (op == "sub") return a.sub(s);
  if (op == "mul") return a.mul(s);
  if (op == "div") return a.div(s);
  if (op == "maximum") return a.maximum(s);
  if (op == "minimum") return a.minimum(s);
  if (op == "pow") return a.pow(s);
  if (op == "eq") return a.eq(s);
  if (op == "ne") return a.ne(s);
  if (op == "lt") return a.lt(s);
  if (op == "le") return a.le(s);
  if (op == "gt") return a.gt(s);
  if (op == "ge") return a.ge(s);
  throw std::invalid_argument("binary_scalar: unknown op " + op);
}

template <class T>
T inplace(const std::string& op, const T& self, const T& other) {
  if (op == "add_") return self.add_(other);
  if (op == "sub_") return self.sub_(other);
  if (op == "mul_") return self.mul_(other);
  if (op == "div_") return self.div_(other);
  throw std::invalid_argument("inplace: unknown op " + op);
}

template <class T>
T inplace_scalar(const std::string& op, const T& self, const OracleArgs& args) {
  const Scalar s = scalar_of(args);
  if (op == "add_") return self.add_(s);
  if (op == "sub_") return self.sub_(s);
  if (op == "mul_") return self.mul_(s);
  if (op == "div_") return self.div_(s);
  throw std::invalid_argument("inplace_scalar: unknown op " + op);
}

template <class T>
T unary(const std::string& op, const T& a) {
  if (op == "neg") return a.neg();
  if (op == "abs") return a.abs();
  if (op == "exp") return a.exp();
  if (op == "log") return a.log();
  if (op == "sqrt") return a.sqrt();
  if (op == "rsqrt") return a.rsqrt();
  if (op == "tanh") return a.tanh();
  if (op == "sigmoid") return a.sigmoid();
  if (op == "relu") return a.relu();
  if (op == "gelu") return a.gelu();
  if (op == "silu") return a.silu();
  if (op == "sin") return a.sin();
  if (op == "cos") return a.cos();
  throw std::invalid_argument("unary: unknown op " + op);
}

// reduce(op, a, dims, keepdim): dims empty = full reduction (through the
// no-argument overload unless keepdim, then through the all-dims list).
template <class T>
T reduce(const std::string& op, const T& a, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<int64_t> d = dims;
  if (d.empty() && keepdim) {
    for (int64_t i = 0; i < a.dim(); ++i) d.push_back(i);
  }
  if (d.empty()) {
    if (op == "sum") return a.sum();
    if (op == "mean") return a.mean();
    if (op == "max") return a.max();
    if (op == "min") return a.min();
  } else {
    const IntSpan s(d.data(), d.size());
    if (op == "sum") return a.sum(s, keepdim);
    if (op == "mean") return a.mean(s, keepdim);
    if (op == "max") return a.max(s, keepdim);
    if (op == "min") return a.min(s, keepdim);
  }
  if (op == "argmax" || op == "argmin") {
    std::optional<int64_t> dim;
    if (!dims.empty()) dim = dims[0];
    return op == "argmax" ? a.argmax(dim, keepdim) : a.argmin(dim, keepdim);
  }
  throw std::invalid_argument("reduce: unknown op " + op);
}

// ---- checks shared by the per-op / per-dtype tests ----------------------------

// op(a, b) for dtype dt: same shapes, broadcasting, 0-dim and empty operands,
// non-contiguous (transposed, narrowed, expanded) operands, and the
// tensor-scalar forms with int, float and bool scalars.
template <class T>
void CheckBinary(const std::string& op, ScalarType dt) {
  Inputs in;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 4}, {3, 4}}, {{5}, {5}},    {{2, 1, 3}, {4, 1}}, {{4, 1}, {2, 1, 3}}, {{3}, {}},
      {{}, {3}},        {{}, {}},      {{0, 3}, {3}},       {{0, 3}, {1, 3}},    {{2, 3, 4}, {1, 4}},
  };
  for (const auto& [sa, sb] : shapes) {
    const HostTensor a = operand(in, op, dt, sa, false), b = operand(in, op, dt, sb, true);
    EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, make<T>(a), make<T>(b)); }, op, {a, b}));
  }
  // Non-contiguous: a = transpose of a [4, 3] tensor, b = columns 1..4 of a
  // [3, 6] tensor, c = a [3, 1] column expanded to [3, 4].
  const HostTensor base_a = operand(in, op, dt, {4, 3}, false);
  const HostTensor base_b = operand(in, op, dt, {3, 6}, true);
  const HostTensor base_c = operand(in, op, dt, {3, 1}, true);
  const HostTensor va = host_view(base_a, {3, 4}, {1, 3}, 0);
  const HostTensor vb = host_view(base_b, {3, 4}, {6, 1}, 1);
  const HostTensor vc = host_view(base_c, {3, 4}, {1, 0}, 0);
  const T ta = make<T>(base_a), tb = make<T>(base_b), tc = make<T>(base_c);
  EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, ta.transpose(0, 1), tb.narrow(1, 1, 4)); }, op,
                              {va, vb}));
  EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, tb.narrow(1, 2, 4), tc.expand({3, 4})); }, op,
                              {host_view(base_b, {3, 4}, {6, 1}, 2), vc}));
  EXPECT_TRUE(AgreesWithTorch([&] { return binary(op, tc.expand({3, 4}), tb.narrow(1, 0, 4)); }, op,
                              {vc, host_view(base_b, {3, 4}, {6, 1}, 0)}));
  // Tensor-scalar forms.
  for (const OracleArgs& s : scalars_for(op)) {
    const bool needs_nonzero = op == "div" && s.scalar_first;
    for (const std::vector<int64_t>& sh : {std::vector<int64_t>{3, 4}, std::vector<int64_t>{},
                                           std::vector<int64_t>{0, 2}}) {
      const HostTensor a = needs_nonzero ? in.nonzero(dt, sh, dt == UInt8 ? 1 : -20, 20)
                                         : operand(in, op, dt, sh, false);
      EXPECT_TRUE(AgreesWithTorch([&] { return binary_scalar(op, make<T>(a), s); }, op, {a}, s));
    }
    const HostTensor va2 = needs_nonzero ? host_view(base_b, {3, 4}, {6, 1}, 1) : va;
    EXPECT_TRUE(AgreesWithTorch(
        [&] { return binary_scalar(op, needs_nonzero ? tb.narrow(1, 1, 4) : ta.t(), s); }, op, {va2}, s));
  }
}

template <class T>
void CheckUnary(const std::string& op, ScalarType dt) {
  Inputs in;
  const bool positive = op == "log" || op == "sqrt" || op == "rsqrt";
  auto gen = [&](std::vector<int64_t> sizes) {
    if (is_floating_point(dt)) {
      return positive ? in.uniform(dt, std::move(sizes), 0.1, 5)
                      : in.uniform(dt, std::move(sizes), op == "exp" ? -5 : -4, op == "exp" ? 5 : 4);
    }
    if (positive && dt != Bool) return in.uniform(dt, std::move(sizes), 1, 40);
    return in.random(dt, std::move(sizes));
  };
  for (const std::vector<int64_t>& sh :
       {std::vector<int64_t>{3, 4}, std::vector<int64_t>{2, 3, 5}, std::vector<int64_t>{},
        std::vector<int64_t>{0, 3}, std::vector<int64_t>{1}}) {
    const HostTensor a = gen(sh);
    EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, make<T>(a)); }, op, {a}));
  }
  // Non-contiguous: transposed and narrowed views of a [4, 6] tensor.
  const HostTensor base = gen({4, 6});
  const T tb = make<T>(base);
  EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, tb.t()); }, op,
                              {host_view(base, {6, 4}, {1, 6}, 0)}));
  EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, tb.narrow(1, 2, 3)); }, op,
                              {host_view(base, {4, 3}, {6, 1}, 2)}));
  // Special values for floating dtypes: 0, -0, the function's edges.
  if (is_floating_point(dt)) {
    HostTensor s{dt, {6}, {0.0, -0.0, 1.0, -1.0, 20.0, -20.0}};
    if (positive) s.values = {1e-3, 1.0, 4.0, 100.0, 1e4, 0.25};
    EXPECT_TRUE(AgreesWithTorch([&] { return unary(op, make<T>(s)); }, op, {s}));
  }
}

template <class T>
void CheckUnaryIntegral(const std::string& op) {
  for (ScalarType dt : integral_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    CheckUnary<T>(op, dt);
  }
}

// Reductions over a [2, 3, 4] tensor: full, single dims (negative too), dims
// lists, keepdim; a non-contiguous (permuted) input; empty and 0-dim inputs.
template <class T>
void CheckReduce(const std::string& op, ScalarType dt) {
  Inputs in;
  const bool arg = op == "argmax" || op == "argmin";
  const Acc acc = Acc::kReduce;
  const HostTensor a = (op == "sum" || op == "mean") ? in.random(dt, {2, 3, 4}) : in.grid(dt, {2, 3, 4});
  const T ta = make<T>(a);
  std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {-1}, {-3}};
  if (!arg) {
    dim_sets.push_back({0, 2});
    dim_sets.push_back({-1, -3});
    dim_sets.push_back({1, 0});
    dim_sets.push_back({0, 1, 2});
  }
  for (const auto& dims : dim_sets) {
    for (bool keepdim : {false, true}) {
      const OracleArgs args = reduce_args(dims, keepdim);
      EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, ta, dims, keepdim); }, op, {a}, args, acc));
    }
  }
  // Non-contiguous input: permute(2, 0, 1) of the same tensor -> [4, 2, 3].
  const HostTensor p = host_view(a, {4, 2, 3}, {1, 12, 4}, 0);
  for (const auto& dims : std::vector<std::vector<int64_t>>{{}, {0}, {2}, {-2}}) {
    const OracleArgs args = reduce_args(dims, false);
    EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, ta.permute({2, 0, 1}), dims, false); }, op, {p},
                                args, acc));
  }
  if (!arg) {
    const std::vector<int64_t> d{0, 2};
    const OracleArgs args = reduce_args(d, true);
    EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, ta.permute({2, 0, 1}), d, true); }, op, {p},
                                args, acc));
  }
  // 0-dim input: full, dim 0 and dim -1.
  const HostTensor z = in.random(dt, {});
  for (const auto& dims : std::vector<std::vector<int64_t>>{{}, {0}, {-1}}) {
    for (bool keepdim : {false, true}) {
      const OracleArgs args = reduce_args(dims, keepdim);
      EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, make<T>(z), dims, keepdim); }, op, {z}, args,
                                  acc));
    }
  }
  // Empty [0, 3]: over the empty dim, over the other one, and full.
  const HostTensor e = in.random(dt, {0, 3});
  for (const auto& dims : std::vector<std::vector<int64_t>>{{}, {0}, {1}}) {
    for (bool keepdim : {false, true}) {
      const OracleArgs args = reduce_args(dims, keepdim);
      EXPECT_TRUE(AgreesWithTorch([&] { return reduce(op, make<T>(e), dims, keepdim); }, op, {e}, args,
                                  acc));
    }
  }
}

template <class T>
void CheckSoftmax(const std::string& op, ScalarType dt) {
  Inputs in;
  const HostTensor a = in.uniform(dt, {2, 3, 4}, -5, 5);
  const T ta = make<T>(a);
  auto call = [&](const T& x, int64_t dim) { return op == "softmax" ? x.softmax(dim) : x.log_softmax(dim); };
  for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
    EXPECT_TRUE(AgreesWithTorch([&] { return call(ta, dim); }, op, {a}, dim_args(dim), Acc::kReduce));
  }
  // Non-contiguous: transpose(0, 2) -> [4, 3, 2].
  const HostTensor t = host_view(a, {4, 3, 2}, {1, 4, 12}, 0);
  for (int64_t dim : {0, 1, 2}) {
    EXPECT_TRUE(AgreesWithTorch([&] { return call(ta.transpose(0, 2), dim); }, op, {t}, dim_args(dim),
                                Acc::kReduce));
  }
  // Large magnitudes (the max-shift must keep exp finite), a 1-D vector, 0-dim, empty.
  const HostTensor big{dt, {2, 3}, {100, 101, 102, -100, -101, -1000}};
  EXPECT_TRUE(AgreesWithTorch([&] { return call(make<T>(big), 1); }, op, {big}, dim_args(1), Acc::kReduce));
  const HostTensor v = in.uniform(dt, {7}, -3, 3);
  EXPECT_TRUE(AgreesWithTorch([&] { return call(make<T>(v), 0); }, op, {v}, dim_args(0), Acc::kReduce));
  const HostTensor z = in.uniform(dt, {}, -3, 3);
  EXPECT_TRUE(AgreesWithTorch([&] { return call(make<T>(z), 0); }, op, {z}, dim_args(0), Acc::kReduce));
  const HostTensor e = in.uniform(dt, {0, 3}, -3, 3);
  for (int64_t dim : {0, 1}) {
    EXPECT_TRUE(AgreesWithTorch([&] { return call(make<T>(e), dim); }, op, {e}, dim_args(dim), Acc::kReduce));
  }
}

// matmul over every shape class for dtype dt.
template <class T>
void CheckMatmul(ScalarType dt) {
  Inputs in;
  auto gen = [&](std::vector<int64_t> s) {
    return is_floating_point(dt) ? in.uniform(dt, std::move(s), -2, 2)
                                 : in.uniform(dt, std::move(s), dt == UInt8 ? 0 : -5, 5);
  };
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{4}, {4}},          {{4}, {4, 3}},       {{3, 4}, {4}},       {{3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}}, {{1, 3, 4}, {2, 4, 5}}, {{2, 3, 4}, {1, 4, 5}}, {{3, 4}, {2, 4, 5}},
      {{2, 3, 4}, {4, 5}}, {{4}, {2, 4, 5}},    {{2, 3, 4}, {4}},    {{1, 1}, {1, 1}},
      {{0, 4}, {4, 3}},    {{3, 0}, {0, 5}},    {{2, 3, 0}, {2, 0, 4}},
      // Rank > 3: batch dims broadcast from the right, on either side or both.
      {{2, 2, 3, 4}, {2, 2, 4, 5}}, {{2, 2, 3, 4}, {2, 4, 5}}, {{2, 1, 3, 4}, {1, 3, 4, 5}},
      {{3, 4}, {2, 2, 4, 5}}, {{2, 2, 3, 4}, {4}}, {{4}, {2, 1, 4, 5}}, {{2, 1, 2, 3, 4}, {3, 1, 4, 2}},
      {{1, 2, 1, 3, 4}, {2, 1, 3, 4, 2}}, {{0, 2, 3, 4}, {2, 4, 5}}, {{2, 2, 3, 0}, {2, 1, 0, 2}},
  };
  for (const auto& [sa, sb] : shapes) {
    const HostTensor a = gen(sa), b = gen(sb);
    EXPECT_TRUE(AgreesWithTorch([&] { return make<T>(a).matmul(make<T>(b)); }, "matmul", {a, b}, {},
                                Acc::kReduce));
  }
}

}  // namespace custody::testing::numerics

#endif  // CUSTODY_TESTS_CONFORMANCE_NUMERICS_CHECKS_H_
