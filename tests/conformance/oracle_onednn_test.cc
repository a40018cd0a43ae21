// Copyright 2026 The custody Authors.
//
// tests/conformance/oracle_onednn_test.cc — the oneDNN oracle (oracle_onednn.h,
// what the cuda conformance binaries compare against) agrees with the libtorch
// oracle (oracle.cc) on every op oracle.h documents: each case runs through
// both, which must return the same dtype, sizes and values within the
// conformance suite's tolerances (numerics_harness.h: integers and bool exact,
// float64 1e-12, float32 1e-5 relative) — or must both reject it, the oneDNN
// oracle with a std::runtime_error that names the op, as the libtorch one. A
// case only custody refuses fails, unless refused_on_purpose() lists it with
// its reason.
//
// Cases: every dtype torch computes in (float32, float64, int32, int64, uint8,
// bool), same-shape, broadcast, 0-dim and empty operands, tensor-scalar forms
// with bool, int and float scalars on either side, mixed dtypes, special values
// (±0, ±inf, NaN, integer wrap-around, division by zero), the oneDNN primitive
// path (large float32), and the oracle_nn pieces (linear, rms_norm, the MLP's
// loss and gradients).

#include "tests/conformance/oracle_onednn.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/dtype.h"
#include "core/error.h"
#include "gtest/gtest.h"
#include "tests/conformance/numerics_harness.h"
#include "tests/conformance/oracle.h"

namespace custody::testing::numerics {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<std::string>& binary_ops() {
  static const std::vector<std::string> v{"add", "sub", "mul", "div", "maximum", "minimum", "pow",
                                          "eq",  "ne",  "lt",  "le",  "gt",      "ge"};
  return v;
}

std::vector<int64_t> shape(std::initializer_list<int64_t> s) { return std::vector<int64_t>(s); }

// The cases custody refuses on purpose although libtorch computes them, each
// with its reason (an error the conformance suites assert): the suites ask the
// oracle only about what custody computed, so these cannot hide a wrong value.
// Any other one-sided refusal by the oneDNN oracle is a failure: a backend
// that started refusing a dtype or a shape would otherwise pass here, and this
// oracle is what the cuda binaries are checked against.
std::optional<std::string> refused_on_purpose(const std::string& op, const std::vector<HostTensor>& in) {
  const auto any = [&](auto pred) {
    for (const HostTensor& h : in) {
      if (pred(h)) return true;
    }
    return false;
  };
  if (op == "matmul" && any([](const HostTensor& h) { return h.dtype == ScalarType::Bool; })) {
    return "matmul of bool is a DTypeError in custody (no bool GEMM)";
  }
  if (op == "matmul" && any([](const HostTensor& h) { return h.sizes.size() > 3; })) {
    return "matmul takes operands of rank <= 3 in custody (ShapeError)";
  }
  if ((op == "argmax" || op == "argmin") && !in.empty() && in[0].dtype == ScalarType::Bool) {
    return "argmax/argmin of bool is a DTypeError in custody";
  }
  if (op == "index_select" && !in.empty() && in[0].sizes.empty()) {
    return "index_select of a 0-dim tensor is a ShapeError in custody";
  }
  return std::nullopt;
}

class OracleOnednnTest : public ::testing::Test {
 protected:
  // Both oracles on one case: the same dtype, sizes and values within
  // tolerance(dtype, acc), or both reject (the oneDNN oracle naming the op).
  ::testing::AssertionResult Agree(const std::string& op, const std::vector<HostTensor>& in,
                                   const OracleArgs& args = {}, Acc acc = Acc::kElementwise) {
    std::optional<HostTensor> ref, got;
    std::string ref_error, our_error;
    try {
      ref = oracle(op, in, args);
    } catch (const std::runtime_error& e) {
      ref_error = e.what();
    }
    try {
      got = onednn_oracle(op, in, args);
    } catch (const std::runtime_error& e) {
      our_error = e.what();
    }
    if (!got && our_error.rfind("oracle(" + op + ")", 0) != 0) {
      return ::testing::AssertionFailure()
             << describe(op, in, args) << ": the oneDNN oracle's error does not name the op: "
             << our_error;
    }
    if (!ref && !got) {
      ++both_rejected_;
      return ::testing::AssertionSuccess();
    }
    if (!ref) {
      return ::testing::AssertionFailure() << describe(op, in, args) << ": libtorch rejects it ("
                                           << ref_error << ") but the oneDNN oracle returned " << *got;
    }
    if (!got) {
      // Only the reviewed refusals of refused_on_purpose() pass, and only as custody's own error.
      if (our_error.find("custody (onednn) raised") != std::string::npos &&
          refused_on_purpose(op, in).has_value()) {
        ++custody_refused_;
        return ::testing::AssertionSuccess();
      }
      return ::testing::AssertionFailure() << describe(op, in, args) << ": the oneDNN oracle threw \""
                                           << our_error << "\" but libtorch returned " << *ref;
    }
    ++compared_;
    const Tol tol = tolerance(ref->dtype, acc);
    ::testing::AssertionResult r = Close(*got, *ref, tol.rtol, tol.atol);
    if (!r) r << "\n  in " << describe(op, in, args);
    return r;
  }

  // The same for oracle_nn: every output within (rtol, atol).
  ::testing::AssertionResult AgreeNn(const std::string& op, const std::vector<HostTensor>& in,
                                     const OracleArgs& args, double rtol, double atol) {
    std::optional<std::vector<HostTensor>> ref, got;
    std::string ref_error, our_error;
    try {
      ref = oracle_nn(op, in, args);
    } catch (const std::runtime_error& e) {
      ref_error = e.what();
    }
    try {
      got = onednn_oracle_nn(op, in, args);
    } catch (const std::runtime_error& e) {
      our_error = e.what();
    }
    if (!ref && !got) {
      ++both_rejected_;
      return ::testing::AssertionSuccess();
    }
    if (!ref || !got) {
      return ::testing::AssertionFailure()
             << describe(op, in, args) << ": only one oracle rejects it (libtorch: \"" << ref_error
             << "\", oneDNN: \"" << our_error << "\")";
    }
    if (ref->size() != got->size()) {
      return ::testing::AssertionFailure() << op << ": " << got->size() << " outputs, libtorch "
                                           << ref->size();
    }
    ++compared_;
    for (size_t i = 0; i < ref->size(); ++i) {
      ::testing::AssertionResult r = Close((*got)[i], (*ref)[i], rtol, atol);
      if (!r) return r << "\n  output " << i << " of " << describe(op, in, args);
    }
    return ::testing::AssertionSuccess();
  }

  // A test must compare values, not merely see both oracles reject everything.
  void ExpectCompared(int at_least) {
    EXPECT_GE(compared_, at_least) << "cases compared (" << both_rejected_ << " rejected by both, "
                                   << custody_refused_ << " by custody alone)";
  }

  Inputs in_;
  int compared_ = 0;
  int both_rejected_ = 0;
  int custody_refused_ = 0;
};

// ---- binary ---------------------------------------------------------------------------

TEST_F(OracleOnednnTest, BinaryEveryOpAndDtypeWithBroadcasting) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 4}, {3, 4}}, {{5}, {5}},     {{2, 1, 3}, {4, 1}}, {{4, 1}, {2, 1, 3}}, {{3}, {}},
      {{}, {3}},        {{}, {}},       {{0, 3}, {3}},       {{2, 3, 4}, {1, 4}}, {{3, 4}, {2, 4}},
  };
  for (const std::string& op : binary_ops()) {
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      for (const auto& [sa, sb] : shapes) {
        const HostTensor a = operand(in_, op, dt, sa, false), b = operand(in_, op, dt, sb, true);
        EXPECT_TRUE(Agree(op, {a, b}));
      }
    }
  }
  ExpectCompared(500);
}

TEST_F(OracleOnednnTest, BinaryTensorScalarEveryKind) {
  for (const std::string& op : binary_ops()) {
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      for (const OracleArgs& s : scalars_for(op)) {
        for (const std::vector<int64_t>& sh : {shape({3, 4}), shape({}), shape({0, 2})}) {
          const HostTensor a = (op == "div" && s.scalar_first) ? in_.nonzero(dt, sh, dt == UInt8 ? 1 : -20, 20)
                                                              : operand(in_, op, dt, sh, false);
          EXPECT_TRUE(Agree(op, {a}, s));
        }
      }
      // Promotion by the scalar's kind, incl. values the tensor's dtype cannot hold.
      for (const OracleArgs& s : {scalar_args(300, true), scalar_args(-7, true), scalar_args(2.5, false),
                                  scalar_args(1e10, true), scalar_args(0, false, true)}) {
        EXPECT_TRUE(Agree(op, {operand(in_, op, dt, {2, 3}, false)}, s));
      }
    }
  }
  ExpectCompared(800);
}

TEST_F(OracleOnednnTest, BinaryScalarFirstEveryOp) {
  for (const std::string& op : binary_ops()) {
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      for (const OracleArgs& s : {scalar_args(3, true, false, true), scalar_args(2.5, false, false, true),
                                  scalar_args(-2, true, false, true), scalar_args(1, false, true, true),
                                  scalar_args(0, false, true, true)}) {
        for (const std::vector<int64_t>& sh : {shape({2, 3}), shape({})}) {
          // Nonzero, positive where pow would make integers negative powers or NaNs.
          const HostTensor a = op == "pow"   ? in_.uniform(dt, sh, 0, 3)
                               : op == "div" ? in_.nonzero(dt, sh, dt == UInt8 ? 1 : -20, 20)
                                             : operand(in_, op, dt, sh, false);
          EXPECT_TRUE(Agree(op, {a}, s));
        }
      }
    }
  }
  ExpectCompared(400);
}

TEST_F(OracleOnednnTest, BinaryMixedDtypesAllPairs) {
  for (const std::string& op : binary_ops()) {
    for (ScalarType da : all_dtypes()) {
      for (ScalarType db : all_dtypes()) {
        SCOPED_TRACE(op + " " + std::string(dtype_name(da)) + " " + std::string(dtype_name(db)));
        const HostTensor a = operand(in_, op, da, {2, 3}, false), b = operand(in_, op, db, {3}, true);
        EXPECT_TRUE(Agree(op, {a, b}));
        // A 0-dim operand promotes like a scalar (torch.result_type).
        const HostTensor z = operand(in_, op, db, {}, true);
        EXPECT_TRUE(Agree(op, {a, z}));
        EXPECT_TRUE(Agree(op, {z, a}));
      }
    }
  }
  ExpectCompared(1000);
}

TEST_F(OracleOnednnTest, BinarySpecialValues) {
  const std::vector<double> special = {0.0, -0.0, 1.0, -1.0, 2.5, -0.5, kInf, -kInf, kNaN, 1e-30, 3e38};
  const int64_t n = static_cast<int64_t>(special.size());
  for (ScalarType dt : {Float32, Float64}) {
    HostTensor col{dt, {n, 1}, {}}, row{dt, {n}, {}};
    for (double v : special) col.values.push_back(representable(dt, v));
    for (double v : special) row.values.push_back(representable(dt, v));
    for (const std::string& op : binary_ops()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      EXPECT_TRUE(Agree(op, {col, row}));  // every pair of special values
      for (double s : {0.0, -0.0, kInf, -kInf, kNaN}) {
        EXPECT_TRUE(Agree(op, {row}, scalar_args(s, false)));
        EXPECT_TRUE(Agree(op, {row}, scalar_args(s, false, false, true)));
      }
    }
  }
  // Integers: wrap-around, division by zero (true division: inf, NaN), uint8 from negative scalars.
  const HostTensor i32{Int32, {4}, {2147483647.0, -2147483648.0, 0, -7}};
  const HostTensor i64{Int64, {4}, {9007199254740991.0, -9007199254740991.0, 0, 5}};
  const HostTensor u8{UInt8, {4}, {250, 0, 7, 255}};
  const HostTensor zeros_i32{Int32, {4}, {0, 0, 0, 0}};
  for (const std::string op : {"add", "sub", "mul"}) {
    EXPECT_TRUE(Agree(op, {i32, i32}));
    EXPECT_TRUE(Agree(op, {i32}, scalar_args(1, true)));
    EXPECT_TRUE(Agree(op, {u8}, scalar_args(10, true)));
    EXPECT_TRUE(Agree(op, {u8}, scalar_args(-3, true)));
    EXPECT_TRUE(Agree(op, {u8, u8}));
  }
  EXPECT_TRUE(Agree("div", {i32, zeros_i32}));
  EXPECT_TRUE(Agree("div", {i64}, scalar_args(0, true)));
  EXPECT_TRUE(Agree("div", {u8}, scalar_args(0, true, false, true)));
  EXPECT_TRUE(Agree("pow", {HostTensor{Int64, {4}, {-2, 3, 0, 7}}, HostTensor{Int64, {4}, {3, 20, 0, 1}}}));
  EXPECT_TRUE(Agree("pow", {HostTensor{Int32, {3}, {2, -3, 0}}}, scalar_args(-1, true)));  // rejected
  EXPECT_TRUE(Agree("pow", {HostTensor{Int32, {3}, {2, -3, 0}}}, scalar_args(-1.0, false)));
  ExpectCompared(250);
}

// ---- in place -------------------------------------------------------------------------

TEST_F(OracleOnednnTest, InplaceEveryOpDtypePairAndShape) {
  const std::vector<std::pair<ScalarType, ScalarType>> dtype_pairs = {
      {Float32, Float32}, {Float64, Float64}, {Int32, Int32}, {Int64, Int64},   {UInt8, UInt8},
      {Float32, Float64}, {Float64, Int32},   {Int64, Int32}, {Int32, Int64},   {Int32, Float32},
      {UInt8, Bool},      {Bool, Bool},       {Float32, Bool}, {Bool, Float32}, {UInt8, Int64},
  };
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{2, 3, 4}, {3, 1}}, {{}, {}}, {{3}, {}}, {{0, 2}, {2}},
      {{3}, {2, 3}},  // other broadcasts past self: rejected
  };
  for (const std::string op : {"add_", "sub_", "mul_", "div_"}) {
    const std::string base = op.substr(0, op.size() - 1);
    for (const auto& [ds, dother] : dtype_pairs) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(ds)) + " " + std::string(dtype_name(dother)));
      for (const auto& [ss, so] : shapes) {
        EXPECT_TRUE(Agree(op, {operand(in_, base, ds, ss, false), operand(in_, base, dother, so, true)}));
      }
      for (const OracleArgs& a : {scalar_args(2, true), scalar_args(1.5, false), scalar_args(1, false, true),
                                  scalar_args(-3, true)}) {
        EXPECT_TRUE(Agree(op, {operand(in_, base, ds, {2, 3}, false)}, a));
      }
    }
  }
  ExpectCompared(250);
}

// ---- unary ----------------------------------------------------------------------------

TEST_F(OracleOnednnTest, UnaryEveryOpAndDtype) {
  for (const std::string& op : unary_ops()) {
    const bool positive = op == "log" || op == "sqrt" || op == "rsqrt";
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      for (const std::vector<int64_t>& sh : {shape({3, 4}), shape({2, 3, 5}), shape({}), shape({0, 3}), shape({1})}) {
        HostTensor a;
        if (is_floating_point(dt)) {
          a = positive ? in_.uniform(dt, sh, 0.1, 5) : in_.uniform(dt, sh, -5, 5);
        } else {
          a = (positive && dt != Bool) ? in_.uniform(dt, sh, 1, 40) : in_.random(dt, sh);
        }
        EXPECT_TRUE(Agree(op, {a}));
      }
    }
    // Special values: signed zeros, the functions' edges, infinities, NaN, out-of-domain arguments.
    for (ScalarType dt : {Float32, Float64}) {
      HostTensor s{dt, {14}, {}};
      for (double v : {0.0, -0.0, 1.0, -1.0, 20.0, -20.0, 100.0, -100.0, 1e-3, 1e4, kInf, -kInf, kNaN, -1e-3}) {
        s.values.push_back(representable(dt, v));
      }
      EXPECT_TRUE(Agree(op, {s}));
    }
  }
  ExpectCompared(350);
}

// ---- reductions -----------------------------------------------------------------------

TEST_F(OracleOnednnTest, ReductionsEveryDtypeDimsAndKeepdim) {
  for (const std::string op : {"sum", "mean", "max", "min", "argmax", "argmin"}) {
    const bool arg = op == "argmax" || op == "argmin";
    std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {-1}, {-3}};
    if (!arg) {
      for (const std::vector<int64_t>& d :
           {shape({0, 2}), shape({-1, -3}), shape({1, 0}), shape({0, 1, 2}), shape({1, 1})}) {
        dim_sets.push_back(d);
      }
    }
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      const HostTensor a = (op == "sum" || op == "mean") ? in_.random(dt, {2, 3, 4}) : in_.grid(dt, {2, 3, 4});
      for (const auto& dims : dim_sets) {
        for (bool keepdim : {false, true}) EXPECT_TRUE(Agree(op, {a}, reduce_args(dims, keepdim), Acc::kReduce));
      }
      // 0-dim, and an empty [0, 3] over the empty dim, the other one, and all.
      const HostTensor z = in_.random(dt, {});
      for (const auto& dims : {shape({}), shape({0}), shape({-1})}) {
        for (bool keepdim : {false, true}) EXPECT_TRUE(Agree(op, {z}, reduce_args(dims, keepdim), Acc::kReduce));
      }
      const HostTensor e = in_.random(dt, {0, 3});
      for (const auto& dims : {shape({}), shape({0}), shape({1})}) {
        for (bool keepdim : {false, true}) EXPECT_TRUE(Agree(op, {e}, reduce_args(dims, keepdim), Acc::kReduce));
      }
      EXPECT_TRUE(Agree(op, {a}, reduce_args({3}, false)));  // out of range: rejected
    }
  }
  ExpectCompared(500);
}

TEST_F(OracleOnednnTest, ReductionsTiesAndSpecialValues) {
  for (ScalarType dt : {Float32, Float64, Int32, Int64, UInt8}) {
    const HostTensor ties{dt, {2, 4}, {1, 3, 3, 0, 2, 2, 0, 0}};
    const HostTensor equal{dt, {3, 2}, {5, 5, 5, 5, 5, 5}};
    for (const std::string op : {"argmax", "argmin", "max", "min"}) {
      for (const auto& dims : {shape({}), shape({0}), shape({1})}) {
        EXPECT_TRUE(Agree(op, {ties}, reduce_args(dims, false)));
        EXPECT_TRUE(Agree(op, {equal}, reduce_args(dims, true)));
      }
    }
  }
  for (ScalarType dt : {Float32, Float64}) {
    const HostTensor a{dt, {2, 3}, {1, kNaN, 3, -1, 4, 2}};
    const HostTensor b{dt, {2, 3}, {kInf, 1, -kInf, -0.0, 0.0, -kInf}};
    for (const std::string op : {"sum", "mean", "max", "min", "argmax", "argmin"}) {
      for (const auto& dims : {shape({}), shape({0}), shape({1})}) {
        EXPECT_TRUE(Agree(op, {a}, reduce_args(dims, false), Acc::kReduce));
        EXPECT_TRUE(Agree(op, {b}, reduce_args(dims, false), Acc::kReduce));
      }
    }
  }
  // sum of integers is int64 (uint8 and bool included); large int64 sums are exact.
  const HostTensor big{Int64, {3}, {4503599627370496.0, 4503599627370496.0, -1}};
  EXPECT_TRUE(Agree("sum", {big}));
  EXPECT_TRUE(Agree("sum", {HostTensor{UInt8, {4}, {255, 255, 255, 255}}}));
  ExpectCompared(100);
}

// ---- softmax ---------------------------------------------------------------------------

TEST_F(OracleOnednnTest, SoftmaxAndLogSoftmax) {
  for (const std::string op : {"softmax", "log_softmax"}) {
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      const HostTensor a = is_floating_point(dt) ? in_.uniform(dt, {2, 3, 4}, -5, 5) : in_.random(dt, {2, 3, 4});
      for (int64_t dim : {0, 1, 2, -1, -2, -3, 3}) EXPECT_TRUE(Agree(op, {a}, dim_args(dim), Acc::kReduce));
    }
    for (ScalarType dt : {Float32, Float64}) {
      SCOPED_TRACE(op + " " + std::string(dtype_name(dt)));
      const HostTensor big{dt, {2, 3}, {100, 101, 102, -100, -101, -1000}};
      EXPECT_TRUE(Agree(op, {big}, dim_args(1), Acc::kReduce));
      EXPECT_TRUE(Agree(op, {big}, dim_args(0), Acc::kReduce));
      const HostTensor inf{dt, {3, 3}, {-kInf, 0, 1, -kInf, -kInf, -kInf, kNaN, 1, 2}};
      EXPECT_TRUE(Agree(op, {inf}, dim_args(1), Acc::kReduce));
      EXPECT_TRUE(Agree(op, {in_.uniform(dt, {}, -3, 3)}, dim_args(0), Acc::kReduce));
      EXPECT_TRUE(Agree(op, {in_.uniform(dt, {7}, -3, 3)}, dim_args(-1), Acc::kReduce));
      const HostTensor e = in_.uniform(dt, {0, 3}, -3, 3);
      for (int64_t dim : {0, 1}) EXPECT_TRUE(Agree(op, {e}, dim_args(dim), Acc::kReduce));
    }
  }
  ExpectCompared(50);
}

// Large enough for custody's row kernel (Note [Softmax rows], backends/host/loops.cc) over the
// last dim, the loops over dim 1 of t: the rows holding a special value run on the loops, the others
// on the kernel, and every row is ATen's.
TEST_F(OracleOnednnTest, LargeSoftmaxWithSpecialValuesInSomeRows) {
  HostTensor s = in_.uniform(Float32, {64, 4096}, -6, 6);
  s.values[3 * 4096 + 7] = kNaN;
  s.values[40 * 4096 + 1] = kInf;
  s.values[50 * 4096 + 9] = -kInf;
  s.values[60 * 4096] = 1e-40;  // subnormal in float
  HostTensor t = in_.uniform(Float32, {16, 8, 2048}, -6, 6);
  t.values[5 * 8 * 2048 + 3] = kNaN;
  for (const std::string op : {"softmax", "log_softmax"}) {
    for (int64_t dim : {1, -1}) EXPECT_TRUE(Agree(op, {s}, dim_args(dim), Acc::kPrimitive));
    for (int64_t dim : {1, 2}) EXPECT_TRUE(Agree(op, {t}, dim_args(dim), Acc::kPrimitive));
  }
  ExpectCompared(8);
}

// ---- matmul ----------------------------------------------------------------------------

TEST_F(OracleOnednnTest, MatmulEveryShapeClassAndDtype) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{4}, {4}},             {{4}, {4, 3}},          {{3, 4}, {4}},          {{3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}}, {{1, 3, 4}, {2, 4, 5}}, {{2, 3, 4}, {1, 4, 5}}, {{3, 4}, {2, 4, 5}},
      {{2, 3, 4}, {4, 5}},    {{4}, {2, 4, 5}},       {{2, 3, 4}, {4}},       {{1, 1}, {1, 1}},
      {{0, 4}, {4, 3}},       {{3, 0}, {0, 5}},       {{2, 3, 0}, {2, 0, 4}}, {{2, 1, 3, 4}, {3, 4, 2}},
      {{3, 4}, {5, 2}},       {{}, {4}},              {{2, 3, 4}, {3, 4, 5}},  // rejected
  };
  for (ScalarType dt : all_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    for (const auto& [sa, sb] : shapes) {
      const HostTensor a = is_floating_point(dt) ? in_.uniform(dt, sa, -2, 2)
                                                 : in_.uniform(dt, sa, dt == UInt8 ? 0 : -5, 5);
      const HostTensor b = is_floating_point(dt) ? in_.uniform(dt, sb, -2, 2)
                                                 : in_.uniform(dt, sb, dt == UInt8 ? 0 : -5, 5);
      EXPECT_TRUE(Agree("matmul", {a, b}, {}, Acc::kReduce));
    }
  }
  // Mixed dtypes: torch rejects them.
  EXPECT_TRUE(Agree("matmul", {in_.uniform(Float32, {2, 3}, -1, 1), in_.uniform(Float64, {3, 2}, -1, 1)}));
  EXPECT_TRUE(Agree("matmul", {in_.random(Int32, {2, 3}), in_.random(Int64, {3, 2})}));
  ExpectCompared(70);
}

// ---- index_select, embedding -----------------------------------------------------------

TEST_F(OracleOnednnTest, IndexSelectEveryDtypeAndIndexDtype) {
  for (ScalarType index_dtype : {Int64, Int32}) {
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " by " + std::string(dtype_name(index_dtype)));
      const HostTensor a = in_.random(dt, {4, 5, 3});
      const std::vector<std::pair<int64_t, HostTensor>> cases = {
          {0, {index_dtype, {3}, {3, 0, 3}}},        {1, {index_dtype, {4}, {4, 1, 1, 0}}},
          {2, {index_dtype, {2}, {2, 0}}},           {-1, {index_dtype, {1}, {1}}},
          {-3, {index_dtype, {5}, {0, 1, 2, 3, 0}}}, {1, {index_dtype, {0}, {}}},
          {0, {index_dtype, {}, {2}}},               {0, {index_dtype, {2}, {4, 0}}},   // out of range
          {0, {index_dtype, {2}, {-1, 0}}},          {3, {index_dtype, {1}, {0}}},      // rejected
          {0, {index_dtype, {1, 2}, {0, 1}}},                                           // 2-D index
      };
      for (const auto& [dim, idx] : cases) EXPECT_TRUE(Agree("index_select", {a, idx}, dim_args(dim)));
    }
  }
  const HostTensor a = in_.random(Float32, {3, 2});
  EXPECT_TRUE(Agree("index_select", {a, HostTensor{Float32, {1}, {0}}}, dim_args(0)));  // float index
  EXPECT_TRUE(Agree("index_select", {in_.random(Float64, {}), HostTensor{Int64, {1}, {0}}}, dim_args(0)));
  ExpectCompared(80);
}

TEST_F(OracleOnednnTest, EmbeddingEveryDtypeAndIndexShape) {
  for (ScalarType index_dtype : {Int64, Int32}) {
    for (ScalarType dt : all_dtypes()) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " by " + std::string(dtype_name(index_dtype)));
      const HostTensor w = in_.random(dt, {10, 4});
      for (const HostTensor& idx :
           {HostTensor{index_dtype, {2, 3}, {1, 9, 0, 9, 4, 4}}, HostTensor{index_dtype, {5}, {0, 1, 2, 3, 9}},
            HostTensor{index_dtype, {}, {7}}, HostTensor{index_dtype, {2, 0}, {}},
            HostTensor{index_dtype, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}},
            HostTensor{index_dtype, {2}, {10, 0}}}) {  // out of range: rejected
        EXPECT_TRUE(Agree("embedding", {w, idx}));
      }
    }
  }
  EXPECT_TRUE(Agree("embedding", {in_.random(Float32, {4, 2}), HostTensor{Float32, {1}, {0}}}));
  ExpectCompared(50);
}

// ---- cat, where ------------------------------------------------------------------------

TEST_F(OracleOnednnTest, CatEveryDimDtypeAndMixedDtypes) {
  for (ScalarType dt : all_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
      const int64_t d = dim < 0 ? dim + 3 : dim;
      std::vector<int64_t> s1{2, 3, 4}, s2{2, 3, 4}, s3{2, 3, 4};
      s2[d] = 1;
      s3[d] = 3;
      EXPECT_TRUE(Agree("cat", {in_.random(dt, s1), in_.random(dt, s2), in_.random(dt, s3)}, dim_args(dim)));
    }
    EXPECT_TRUE(Agree("cat", {in_.random(dt, {3})}, dim_args(0)));
    EXPECT_TRUE(Agree("cat", {in_.random(dt, {2, 3}), in_.random(dt, {0, 3}), in_.random(dt, {0})}, dim_args(0)));
    EXPECT_TRUE(Agree("cat", {in_.random(dt, {2, 3}), in_.random(dt, {2, 4})}, dim_args(0)));  // rejected
    EXPECT_TRUE(Agree("cat", {in_.random(dt, {2, 3}), in_.random(dt, {2, 3})}, dim_args(2)));  // rejected
  }
  const std::vector<std::vector<ScalarType>> combos = {
      {Float32, Int64, Bool}, {Int32, UInt8}, {UInt8, Bool}, {Float64, Float32}, {Bool, Int32, Float64}, {Int64, Int32},
  };
  for (const auto& dts : combos) {
    for (int64_t dim : {0, 1}) {
      std::vector<HostTensor> hs;
      for (size_t i = 0; i < dts.size(); ++i) {
        const int64_t k = static_cast<int64_t>(i) + 1;
        hs.push_back(in_.random(dts[i], dim == 0 ? std::vector<int64_t>{k, 3} : std::vector<int64_t>{3, k}));
      }
      EXPECT_TRUE(Agree("cat", hs, dim_args(dim)));
    }
  }
  EXPECT_TRUE(Agree("cat", {}, dim_args(0)));  // no inputs: rejected
  EXPECT_TRUE(Agree("cat", {in_.random(Float32, {})}, dim_args(0)));  // 0-dim: rejected
  ExpectCompared(50);
}

TEST_F(OracleOnednnTest, WhereBroadcastingAndPromotion) {
  const std::vector<std::vector<std::vector<int64_t>>> shapes = {
      {{3, 4}, {3, 4}, {3, 4}}, {{3, 1}, {1, 4}, {4}}, {{2, 1, 4}, {3, 1}, {}}, {{}, {2, 3}, {2, 3}},
      {{0, 3}, {3}, {1}},       {{2}, {3}, {3}},  // rejected
  };
  for (ScalarType dt : all_dtypes()) {
    SCOPED_TRACE(dtype_name(dt));
    for (const auto& s : shapes) {
      EXPECT_TRUE(Agree("where", {in_.random(Bool, s[0]), in_.random(dt, s[1]), in_.random(dt, s[2])}));
    }
  }
  for (ScalarType da : all_dtypes()) {
    for (ScalarType db : all_dtypes()) {
      const HostTensor c = in_.random(Bool, {2, 3}), a = in_.random(da, {2, 3});
      EXPECT_TRUE(Agree("where", {c, a, in_.random(db, {3})}));
      EXPECT_TRUE(Agree("where", {c, a, in_.random(db, {})}));
      EXPECT_TRUE(Agree("where", {c, in_.random(db, {}), a}));
    }
  }
  const HostTensor ci = in_.random(Int64, {3});
  EXPECT_TRUE(Agree("where", {ci, ci, ci}));  // a non-bool condition: rejected
  const HostTensor f{Float64, {4}, {kNaN, -0.0, kInf, 1}};
  EXPECT_TRUE(Agree("where", {HostTensor{Bool, {4}, {1, 1, 0, 1}}, f, HostTensor{Float32, {}, {-kInf}}}));
  ExpectCompared(130);
}

// ---- to --------------------------------------------------------------------------------

TEST_F(OracleOnednnTest, ToEveryDtypePair) {
  const std::vector<ScalarType> every = {Float32, Float64, Int32, Int64, UInt8, Bool, Float16, BFloat16_};
  for (ScalarType from : every) {
    for (ScalarType to : every) {
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
      EXPECT_TRUE(Agree("to", {in_.uniform(from, {3, 4}, 0, 100)}, to_args(to)));
      EXPECT_TRUE(Agree("to", {in_.uniform(from, {}, 0, 100)}, to_args(to)));
      EXPECT_TRUE(Agree("to", {in_.uniform(from, {0, 2}, 0, 100)}, to_args(to)));
    }
  }
  // Truncation toward zero, integer wrap-around, rounding to float32/float16/bfloat16,
  // overflow to inf, NaN and signed zero (to floating dtypes and bool).
  for (ScalarType from : {Float32, Float64}) {
    const HostTensor a{from, {8}, {2.9, -2.9, 0.5, -0.5, 1e6 + 0.75, -7.0, 126.99, -0.0}};
    for (ScalarType to : {Int32, Int64, Bool}) EXPECT_TRUE(Agree("to", {a}, to_args(to)));
    EXPECT_TRUE(Agree("to", {HostTensor{from, {4}, {0.99, 254.9, 3.5, 17.0}}}, to_args(UInt8)));
    HostTensor s{from, {12}, {}};
    for (double v : {0.0, -0.0, 1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048, 65519.0, 65520.0, 70000.0, 5.96e-8, 1e-9,
                     kInf, -kInf, kNaN}) {
      s.values.push_back(representable(from, v));
    }
    for (ScalarType to : {Float32, Float64, Float16, BFloat16_, Bool}) EXPECT_TRUE(Agree("to", {s}, to_args(to)));
  }
  const HostTensor big{Int64, {3}, {4294967296.0 + 5, -2147483649.0, 300}};
  for (ScalarType to : {Int32, UInt8, Float32, Bool}) EXPECT_TRUE(Agree("to", {big}, to_args(to)));
  EXPECT_TRUE(Agree("to", {HostTensor{Float64, {3}, {0.1, 1.0 / 3.0, 16777217.0}}}, to_args(Float32)));
  ExpectCompared(200);
}

// Ops on float16/bfloat16 other than "to": custody keeps them storage-only, so the oneDNN
// oracle rejects what torch computes (documented in oracle_onednn.h).
TEST_F(OracleOnednnTest, StorageOnlyDtypesAreRejectedExceptTo) {
  for (ScalarType half : {Float16, BFloat16_}) {
    const HostTensor h = in_.uniform(half, {3}, -2, 2);
    EXPECT_NO_THROW(oracle("add", {h, h}));
    EXPECT_THROW(onednn_oracle("add", {h, h}), std::runtime_error);
    EXPECT_THROW(onednn_oracle("exp", {h}), std::runtime_error);
    EXPECT_TRUE(Close(onednn_oracle("to", {h}, to_args(Float32)), oracle("to", {h}, to_args(Float32)), 0, 0));
  }
}

// ---- the oneDNN primitive path ------------------------------------------------------------

TEST_F(OracleOnednnTest, LargeFloat32OnThePrimitivePath) {
  const HostTensor a = in_.uniform(Float32, {128, 160}, -3, 3), b = in_.nonzero(Float32, {128, 160}, -3, 3);
  const HostTensor row = in_.nonzero(Float32, {160}, -3, 3), p = in_.uniform(Float32, {128, 160}, 0.05, 8);
  for (const std::string op : {"add", "sub", "mul", "div", "maximum", "minimum", "lt"}) {
    EXPECT_TRUE(Agree(op, {a, b}, {}, Acc::kPrimitive));
    EXPECT_TRUE(Agree(op, {a, row}, {}, Acc::kPrimitive));
    EXPECT_TRUE(Agree(op, {a}, scalar_args(-1.25, false), Acc::kPrimitive));
  }
  EXPECT_TRUE(Agree("add_", {a, row}, {}, Acc::kPrimitive));
  for (const std::string& op : unary_ops()) {
    const bool positive = op == "log" || op == "sqrt" || op == "rsqrt";
    EXPECT_TRUE(Agree(op, {positive ? p : a}, {}, Acc::kPrimitive));
  }
  const HostTensor r = in_.uniform(Float32, {16, 64, 32}, 0.5, 1.5);
  for (const std::string op : {"sum", "mean", "max", "min", "argmax", "argmin"}) {
    for (const auto& dims : {shape({}), shape({0}), shape({2}), shape({0, 2})}) {
      if ((op == "argmax" || op == "argmin") && dims.size() > 1) continue;
      EXPECT_TRUE(Agree(op, {r}, reduce_args(dims, false), Acc::kPrimitiveSum));
    }
  }
  const HostTensor s = in_.uniform(Float32, {8, 64, 40}, -6, 6);
  for (const std::string op : {"softmax", "log_softmax"}) {
    for (int64_t dim : {0, 2}) EXPECT_TRUE(Agree(op, {s}, dim_args(dim), Acc::kPrimitive));
  }
  EXPECT_TRUE(Agree("matmul", {in_.uniform(Float32, {64, 128}, -1, 1), in_.uniform(Float32, {128, 96}, -1, 1)}, {},
                    Acc::kPrimitiveSum));
  EXPECT_TRUE(Agree("matmul", {in_.uniform(Float32, {4, 32, 64}, -1, 1), in_.uniform(Float32, {64, 48}, -1, 1)},
                    {}, Acc::kPrimitiveSum));
  ExpectCompared(55);
}

// ---- oracle_nn -------------------------------------------------------------------------------

TEST_F(OracleOnednnTest, NnLinearAndRmsNorm) {
  for (ScalarType dt : {Float32, Float64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tol tol = tolerance(dt, Acc::kReduce);
    const HostTensor x = in_.uniform(dt, {4, 5}, -2, 2), w = in_.uniform(dt, {3, 5}, -1, 1);
    const HostTensor b = in_.uniform(dt, {3}, -1, 1), x3 = in_.uniform(dt, {2, 4, 5}, -2, 2);
    EXPECT_TRUE(AgreeNn("linear", {x, w, b}, {}, tol.rtol, tol.atol));
    EXPECT_TRUE(AgreeNn("linear", {x, w}, {}, tol.rtol, tol.atol));
    EXPECT_TRUE(AgreeNn("linear", {x3, w, b}, {}, tol.rtol, tol.atol));
    EXPECT_TRUE(AgreeNn("linear", {in_.uniform(dt, {5}, -2, 2), w, b}, {}, tol.rtol, tol.atol));
    EXPECT_TRUE(AgreeNn("linear", {x, in_.uniform(dt, {3, 4}, -1, 1)}, {}, tol.rtol, tol.atol));  // rejected
    EXPECT_TRUE(AgreeNn("linear", {x}, {}, tol.rtol, tol.atol));                                  // rejected
    for (double eps : {1e-5, 1e-6, 0.5}) {
      OracleArgs args;
      args.scalar = eps;
      EXPECT_TRUE(AgreeNn("rms_norm", {in_.uniform(dt, {2, 3, 6}, -3, 3), in_.uniform(dt, {6}, 0.5, 1.5)}, args,
                          tol.rtol, tol.atol));
      EXPECT_TRUE(AgreeNn("rms_norm", {in_.uniform(dt, {4, 8}, -1, 1), in_.uniform(dt, {8}, -1, 1)}, args,
                          tol.rtol, tol.atol));
    }
    EXPECT_TRUE(AgreeNn("rms_norm", {in_.uniform(dt, {4, 8}, -1, 1), in_.uniform(dt, {8}, -1, 1)}, {}, tol.rtol,
                        tol.atol));  // default eps
    EXPECT_TRUE(AgreeNn("rms_norm", {HostTensor{dt, {2, 2}, {0, 0, 1e-3, -2}}, HostTensor{dt, {2}, {1, 2}}}, {},
                        tol.rtol, tol.atol));
  }
  ExpectCompared(20);
}

TEST_F(OracleOnednnTest, NnMlpAndCrossEntropyLossAndGradients) {
  for (ScalarType dt : {Float32, Float64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tol tol = tolerance(dt, Acc::kReduce);
    for (const auto& [batch, in, hidden, classes] :
         std::vector<std::array<int64_t, 4>>{{4, 6, 5, 3}, {16, 12, 32, 10}, {1, 3, 2, 2}}) {
      const HostTensor x = in_.uniform(dt, {batch, in}, -2, 2);
      HostTensor onehot{dt, {batch, classes}, {}}, soft{dt, {batch, classes}, {}};
      for (int64_t i = 0; i < batch; ++i) {
        for (int64_t c = 0; c < classes; ++c) {
          onehot.values.push_back(c == (i * 7 + 1) % classes ? 1 : 0);
          soft.values.push_back(representable(dt, (c + 1.0) / (classes * (classes + 1) / 2.0)));
        }
      }
      const HostTensor w1 = in_.uniform(dt, {hidden, in}, -0.7, 0.7), b1 = in_.uniform(dt, {hidden}, -0.3, 0.3);
      const HostTensor w2 = in_.uniform(dt, {classes, hidden}, -0.7, 0.7);
      const HostTensor b2 = in_.uniform(dt, {classes}, -0.3, 0.3);
      EXPECT_TRUE(AgreeNn("mlp_grads", {x, onehot, w1, b1, w2, b2}, {}, tol.rtol, tol.atol));
      EXPECT_TRUE(AgreeNn("mlp_grads", {x, soft, w1, b1, w2, b2}, {}, tol.rtol, tol.atol));
      const HostTensor logits = in_.uniform(dt, {batch, classes}, -3, 3);
      EXPECT_TRUE(AgreeNn("cross_entropy", {logits, onehot}, {}, tol.rtol, tol.atol));
      EXPECT_TRUE(AgreeNn("cross_entropy", {logits, soft}, {}, tol.rtol, tol.atol));
    }
  }
  EXPECT_TRUE(AgreeNn("mlp_grads", {in_.uniform(Float32, {2, 3}, -1, 1)}, {}, 0, 0));  // rejected
  ExpectCompared(24);
}

// ---- errors ------------------------------------------------------------------------------------

TEST_F(OracleOnednnTest, ErrorsAreRuntimeErrorsNamingTheOp) {
  const HostTensor b{Bool, {2}, {1, 0}};
  try {
    onednn_oracle("sub", {b, b});
    ADD_FAILURE() << "bool - bool: no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("oracle(sub)"), std::string::npos) << e.what();
    EXPECT_EQ(dynamic_cast<const Error*>(&e), nullptr) << "a custody::Error, not converted";
  }
  try {
    onednn_oracle_nn("linear", {HostTensor{Float32, {2, 3}, {1, 2, 3, 4, 5, 6}}, HostTensor{Float32, {2, 2}, {1, 2, 3, 4}}});
    ADD_FAILURE() << "linear with mismatched shapes: no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("oracle_nn(linear)"), std::string::npos) << e.what();
    EXPECT_EQ(dynamic_cast<const Error*>(&e), nullptr);
  }
  EXPECT_THROW(onednn_oracle("frobnicate", {b}), std::runtime_error);
  EXPECT_THROW(onednn_oracle_nn("frobnicate", {b}), std::runtime_error);
  EXPECT_THROW(onednn_oracle("add", {b}), std::runtime_error);                      // no scalar
  EXPECT_THROW(onednn_oracle("exp", {HostTensor{Float32, {3}, {1}}}), std::runtime_error);  // 1 value for 3
}

}  // namespace
}  // namespace custody::testing::numerics
