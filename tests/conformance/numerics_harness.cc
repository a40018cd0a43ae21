// Copyright 2026 The custody Authors.

#include "tests/conformance/numerics_harness.h"

#include <cmath>
#include <sstream>
#include <utility>

namespace custody::testing::numerics {

const std::vector<ScalarType>& all_dtypes() {
  static const std::vector<ScalarType> v{Float32, Float64, Int8, Int16, Int32, Int64, UInt8, Bool};
  return v;
}
const std::vector<ScalarType>& integral_dtypes() {  // including bool
  static const std::vector<ScalarType> v{Int8, Int16, Int32, Int64, UInt8, Bool};
  return v;
}

Tol tolerance(ScalarType dt, Acc acc) {
  switch (dt) {
    case ScalarType::Double: return {1e-12, 1e-12};
    case ScalarType::Float:
      switch (acc) {
        case Acc::kElementwise: return {1e-5, 1e-6};
        case Acc::kReduce: return {1e-5, 1e-5};
        case Acc::kPrimitive: return {1e-4, 1e-5};
        case Acc::kPrimitiveSum: return {1e-4, 1e-4};
      }
      return {1e-5, 1e-6};
    default: return {0, 0};  // integers, bool, float16/bfloat16: exact
  }
}

// `x` rounded to a value of dtype `dt` (what from_vector will store).
double representable(ScalarType dt, double x) {
  switch (dt) {
    case ScalarType::Float: return static_cast<double>(static_cast<float>(x));
    case ScalarType::Double: return x;
    case ScalarType::Half: return static_cast<float>(Half(static_cast<float>(x)));
    case ScalarType::BFloat16: return static_cast<float>(BFloat16(static_cast<float>(x)));
    case ScalarType::Bool: return x != 0 ? 1.0 : 0.0;
    default: return std::nearbyint(x);
  }
}

// The logical values of the strided view (sizes, strides, offset) of the
// contiguous tensor `base`, computed on the host independently of custody's
// view code (what torch is fed for non-contiguous cases).
HostTensor host_view(const HostTensor& base, std::vector<int64_t> sizes,
                     std::vector<int64_t> strides, int64_t offset) {
  HostTensor h{base.dtype, sizes, {}};
  const int64_t n = h.numel();
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = offset;
    for (size_t d = 0; d < sizes.size(); ++d) off += idx[d] * strides[d];
    h.values.push_back(base.values.at(static_cast<size_t>(off)));
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return h;
}

std::string describe(const std::string& op, const std::vector<HostTensor>& in,
                     const OracleArgs& args) {
  std::ostringstream os;
  auto scalar = [&] {
    os << *args.scalar
       << (args.scalar_is_bool ? " (bool)" : (args.scalar_is_integral ? " (int)" : " (float)"));
  };
  os << op << "(";
  if (args.scalar && args.scalar_first) {
    scalar();
    os << ", ";
  }
  for (size_t i = 0; i < in.size(); ++i) {
    os << (i ? ", " : "") << dtype_name(in[i].dtype) << "[";
    for (size_t d = 0; d < in[i].sizes.size(); ++d) os << (d ? ", " : "") << in[i].sizes[d];
    os << "]";
  }
  if (args.scalar && !args.scalar_first) {
    os << ", ";
    scalar();
  }
  os << ") dims=[";
  for (size_t i = 0; i < args.dims.size(); ++i) os << (i ? "," : "") << args.dims[i];
  os << "] dim=" << args.dim << " keepdim=" << args.keepdim;
  return os.str();
}

bool is_comparison_op(const std::string& op) {
  return op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge";
}

Scalar scalar_of(const OracleArgs& args) {
  if (args.scalar_is_bool) return Scalar(*args.scalar != 0);
  if (args.scalar_is_integral) return Scalar(static_cast<int64_t>(*args.scalar));
  return Scalar(*args.scalar);
}

const std::vector<std::string>& unary_ops() {
  static const std::vector<std::string> v{"neg",     "abs",  "exp",  "log",  "sqrt", "rsqrt", "tanh",
                                          "sigmoid", "relu", "gelu", "silu", "sin",  "cos"};
  return v;
}

OracleArgs scalar_args(double v, bool integral, bool is_bool, bool first) {
  OracleArgs a;
  a.scalar = v;
  a.scalar_is_integral = integral;
  a.scalar_is_bool = is_bool;
  a.scalar_first = first;
  return a;
}

OracleArgs reduce_args(std::vector<int64_t> dims, bool keepdim) {
  OracleArgs a;
  a.dims = std::move(dims);
  a.keepdim = keepdim;
  return a;
}

OracleArgs dim_args(int64_t dim) {
  OracleArgs a;
  a.dim = dim;
  return a;
}

OracleArgs to_args(ScalarType dt) {
  OracleArgs a;
  a.dtype = dt;
  return a;
}

// Operand values for `op` on dtype `dt`, kept well conditioned (see banner).
HostTensor operand(Inputs& in, const std::string& op, ScalarType dt, std::vector<int64_t> sizes,
                   bool rhs) {
  if (op == "div") return in.nonzero(dt, std::move(sizes), dt == UInt8 ? 1 : -20, 20);
  if (op == "pow") {
    if (is_floating_point(dt)) {
      return rhs ? in.uniform(dt, std::move(sizes), -2, 2) : in.uniform(dt, std::move(sizes), 0.25, 3);
    }
    if (rhs) return in.uniform(dt, std::move(sizes), 0, 3);
    return in.uniform(dt, std::move(sizes), dt == UInt8 ? 0 : -4, 4);
  }
  if (is_comparison_op(op) || op == "maximum" || op == "minimum") return in.grid(dt, std::move(sizes));
  return in.random(dt, std::move(sizes));
}

// The scalar operands tried with `op` (each with torch's kind: bool, int, float).
std::vector<OracleArgs> scalars_for(const std::string& op) {
  std::vector<OracleArgs> v;
  if (op == "pow") {
    // -1: integral tensors to a negative integral scalar power are an error in torch.
    v = {scalar_args(2, true), scalar_args(0, true), scalar_args(0.5, false), scalar_args(-1.5, false),
         scalar_args(1, false, true), scalar_args(-1, true)};
  } else if (is_comparison_op(op)) {
    v = {scalar_args(1, true), scalar_args(0.5, false), scalar_args(-1, true), scalar_args(1, false, true)};
  } else {
    v = {scalar_args(2, true), scalar_args(-3, true), scalar_args(1.5, false), scalar_args(-0.75, false),
         scalar_args(1, false, true), scalar_args(0, false, true)};
    if (op == "div") v.pop_back();  // x / false
  }
  if (op == "sub" || op == "div") {
    v.push_back(scalar_args(3, true, false, true));
    v.push_back(scalar_args(2.5, false, false, true));
  }
  return v;
}

HostTensor Inputs::uniform(ScalarType dt, std::vector<int64_t> sizes, double lo, double hi) {
  HostTensor h{dt, std::move(sizes), {}};
  h.values.resize(static_cast<size_t>(h.numel()));
  for (double& v : h.values) v = draw(dt, lo, hi);
  return h;
}

HostTensor Inputs::nonzero(ScalarType dt, std::vector<int64_t> sizes, double lo, double hi) {
  HostTensor h{dt, std::move(sizes), {}};
  h.values.resize(static_cast<size_t>(h.numel()));
  for (double& v : h.values) {
    if (dt == ScalarType::Bool) {
      v = 1;
      continue;
    }
    do {
      v = draw(dt, lo, hi);
    } while (std::fabs(v) < (is_floating_point(dt) ? 0.25 : 1.0));
  }
  return h;
}

HostTensor Inputs::grid(ScalarType dt, std::vector<int64_t> sizes) {
  HostTensor h{dt, std::move(sizes), {}};
  h.values.resize(static_cast<size_t>(h.numel()));
  for (double& v : h.values) {
    if (is_floating_point(dt)) {
      v = 0.5 * static_cast<double>(std::uniform_int_distribution<int>(-4, 4)(rng_));
    } else {
      v = draw(dt, dt == ScalarType::Byte ? 0 : -3, dt == ScalarType::Byte ? 5 : 3);
    }
  }
  return h;
}

HostTensor Inputs::random(ScalarType dt, std::vector<int64_t> sizes) {
  if (is_floating_point(dt)) return uniform(dt, std::move(sizes), -3, 3);
  if (dt == ScalarType::Byte) return uniform(dt, std::move(sizes), 0, 40);
  return uniform(dt, std::move(sizes), -20, 20);
}

double Inputs::draw(ScalarType dt, double lo, double hi) {
  if (dt == ScalarType::Bool) return std::bernoulli_distribution(0.5)(rng_) ? 1.0 : 0.0;
  if (is_floating_point(dt)) {
    return representable(dt, std::uniform_real_distribution<double>(lo, hi)(rng_));
  }
  return static_cast<double>(std::uniform_int_distribution<int64_t>(
      static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(std::floor(hi)))(rng_));
}

}  // namespace custody::testing::numerics
