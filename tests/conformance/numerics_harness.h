// Copyright 2026 The custody Authors.
//
// tests/conformance/numerics_harness.h — what NumericsTest
// (tests/conformance/numerics_suite.h) needs besides templates: dtype lists,
// tolerances, deterministic inputs, host-side views, argument builders and
// case descriptions. Compiled once (numerics_harness.cc) rather than in every
// matrix binary; the templates over the tensor type stay in the suite.

#ifndef CUSTODY_TESTS_CONFORMANCE_NUMERICS_HARNESS_H_
#define CUSTODY_TESTS_CONFORMANCE_NUMERICS_HARNESS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"
#include "tests/conformance/oracle.h"

namespace custody::testing::numerics {

inline constexpr ScalarType Float32 = ScalarType::Float;
inline constexpr ScalarType Float64 = ScalarType::Double;
inline constexpr ScalarType Int8 = ScalarType::Char;
inline constexpr ScalarType Int16 = ScalarType::Short;
inline constexpr ScalarType Int32 = ScalarType::Int;
inline constexpr ScalarType Int64 = ScalarType::Long;
inline constexpr ScalarType UInt8 = ScalarType::Byte;
inline constexpr ScalarType Bool = ScalarType::Bool;
inline constexpr ScalarType Float16 = ScalarType::Half;
inline constexpr ScalarType BFloat16_ = ScalarType::BFloat16;

const std::vector<ScalarType>& all_dtypes();
const std::vector<ScalarType>& integral_dtypes();  // including bool

// ---- tolerances ---------------------------------------------------------------

enum class Acc {
  kElementwise,      // float32 direct loops
  kReduce,           // reductions, softmax, small matmul
  kPrimitive,        // float32 eltwise/binary/softmax on the oneDNN path
  kPrimitiveSum,     // large float32 sums and matmul
};

struct Tol {
  double rtol;
  double atol;
};

Tol tolerance(ScalarType dt, Acc acc);

// ---- inputs -------------------------------------------------------------------

inline constexpr uint32_t kSeed = 20260417;

// `x` rounded to a value of dtype `dt` (what from_vector will store).
double representable(ScalarType dt, double x);

// Deterministic pseudo-random HostTensors.
class Inputs {
 public:
  explicit Inputs(uint32_t seed = kSeed) : rng_(seed) {}

  // Values in [lo, hi]: uniform reals for floating dtypes, integers in
  // [ceil(lo), floor(hi)] for integral ones, a fair coin for bool.
  HostTensor uniform(ScalarType dt, std::vector<int64_t> sizes, double lo, double hi);
  // Like uniform, but never 0 (|x| >= 0.25 for floats; bool: all true).
  HostTensor nonzero(ScalarType dt, std::vector<int64_t> sizes, double lo, double hi);
  // Values on a coarse grid (multiples of 0.5 in [-2, 2] for floats, [-3, 3]
  // for signed, [0, 5] for uint8) so comparisons and arg-reductions see ties.
  HostTensor grid(ScalarType dt, std::vector<int64_t> sizes);
  // The default range of dt: floats [-3, 3], signed [-20, 20], uint8 [0, 40].
  HostTensor random(ScalarType dt, std::vector<int64_t> sizes);

 private:
  double draw(ScalarType dt, double lo, double hi);
  std::mt19937 rng_;
};

// The logical values of the strided view (sizes, strides, offset) of the
// contiguous tensor `base`, computed on the host independently of custody's
// view code (what torch is fed for non-contiguous cases).
HostTensor host_view(const HostTensor& base, std::vector<int64_t> sizes,
                     std::vector<int64_t> strides, int64_t offset);

// "op(dtype[sizes], ..., scalar) dims=... dim=... keepdim=..." for failure messages.
std::string describe(const std::string& op, const std::vector<HostTensor>& in,
                     const OracleArgs& args);

// ---- ops by name ---------------------------------------------------------------

bool is_comparison_op(const std::string& op);
Scalar scalar_of(const OracleArgs& args);
const std::vector<std::string>& unary_ops();
OracleArgs scalar_args(double v, bool integral, bool is_bool = false, bool first = false);
OracleArgs reduce_args(std::vector<int64_t> dims, bool keepdim);
OracleArgs dim_args(int64_t dim);
OracleArgs to_args(ScalarType dt);

// Operand values for `op` on dtype `dt`, kept well conditioned (see the banner
// of numerics_suite.h).
HostTensor operand(Inputs& in, const std::string& op, ScalarType dt, std::vector<int64_t> sizes,
                   bool rhs);
// The scalar operands tried with `op` (each with torch's kind: bool, int, float).
std::vector<OracleArgs> scalars_for(const std::string& op);

}  // namespace custody::testing::numerics

#endif  // CUSTODY_TESTS_CONFORMANCE_NUMERICS_HARNESS_H_
