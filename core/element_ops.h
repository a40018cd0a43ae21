// Copyright 2026 The custody Authors.
//
// core/element_ops.h — what one element of each op computes, ATen's semantics,
// for every backend: the CPU loops (backends/host/loops.h) and the
// CUDA kernels (backends/cuda/internal/kernels.cu) call these same functions,
// so a value is computed by one definition whatever the backend (README: "the
// same ops, the same errors and the same numbers").
//
//   convert<To>(v)        dtype conversion: float -> int truncates toward zero;
//                         out-of-range values and NaN give libtorch's (x86-64)
//                         answers, never undefined behaviour (Note [Float to
//                         integer]); anything -> bool is != 0
//   wrap_add/sub/mul      integer arithmetic wraps (computed unsigned), as ATen
//   int_pow               integer power by squaring, wrapping
//   max_nan / min_nan     maximum/minimum propagating NaN
//   apply_binary / apply_unary   one element of a BinaryOp / UnaryOp
//
// Header-only, host and device (CUSTODY_HOST_DEVICE under nvcc); NaN is tested
// as x != x so no <cmath> classification function is needed on the device.

#ifndef CUSTODY_CORE_ELEMENT_OPS_H_
#define CUSTODY_CORE_ELEMENT_OPS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/backend.h"
#include "core/dtype.h"

namespace custody::element {

template <class T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class T>
CUSTODY_HOST_DEVICE inline bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

// The mean of `n` values whose sum (accumulated wider, e.g. in double) is
// `sum`, as ATen's CPU mean: the sum rounded to T first, then divided by n in
// T (so a float32 sum that overflows gives inf, as ATen's does).
template <class T, class Acc>
CUSTODY_HOST_DEVICE inline T mean_of(Acc sum, int64_t n) {
  return static_cast<T>(static_cast<T>(sum) / static_cast<T>(n));
}

template <class To, class From>
CUSTODY_HOST_DEVICE inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalfLike<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (kIsHalfLike<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Note [Float to integer]
    // ~~~~~~~~~~~~~~~~~~~~~~~
    // C++ leaves an out-of-range float -> int conversion undefined; libtorch's
    // answer is what x86-64's truncating conversion gives, and custody gives
    // it on every backend and device: a value outside the intermediate type's
    // range, or NaN, becomes that type's minimum (the "integer indefinite"
    // value), and narrower types keep the low bits. The intermediate type is
    // int64 for int64 and for unsigned types (c10's cast to uint8 goes through
    // int64), int32 for the other signed types:
    //   1e10 -> int32: INT32_MIN   300.7 -> uint8: 44   -1 -> uint8: 255
    //   NaN -> int64: INT64_MIN    1e20 -> uint8: 0
    // uint64 alone also takes [2^63, 2^64) exactly, as C++'s (and c10's)
    // static_cast<uint64_t> does: 1e19 -> 10000000000000000000.
    using Via = std::conditional_t<(sizeof(To) == 8 || std::is_unsigned_v<To>), int64_t, int32_t>;
    const double d = static_cast<double>(v);
    if constexpr (std::is_same_v<To, uint64_t>) {
      if (d >= 9223372036854775808.0 && d < 18446744073709551616.0) return static_cast<To>(d);
    }
    // -2^(n-1) <= d < 2^(n-1), both bounds exact as doubles.
    const double lo = static_cast<double>(std::numeric_limits<Via>::min());
    const bool in_range = d >= lo && d < -lo;  // false for NaN
    const Via via = in_range ? static_cast<Via>(d) : std::numeric_limits<Via>::min();
    return static_cast<To>(via);  // modular for a narrower To (C++20)
  } else {
    // Integer -> integer is modular (well defined in C++20); the rest are
    // value conversions.
    return static_cast<To>(v);
  }
}

template <class T>
CUSTODY_HOST_DEVICE inline T wrap_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <class T>
CUSTODY_HOST_DEVICE inline T wrap_sub(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a != b;  // never reached: core refuses bool subtraction, as ATen
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <class T>
CUSTODY_HOST_DEVICE inline T wrap_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    // Types narrower than unsigned would promote to (signed) int and could overflow.
    using U = std::conditional_t<sizeof(T) < sizeof(unsigned), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// Integer power by squaring, wrapping. A negative exponent gives ATen's
// answer for tensor exponents: 1 for base 1, +-1 for base -1, else 0 (a
// negative *scalar* exponent is rejected by core, as in ATen).
template <class T>
CUSTODY_HOST_DEVICE inline T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

template <class T>
CUSTODY_HOST_DEVICE inline T max_nan(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a > b ? a : b;
}

template <class T>
CUSTODY_HOST_DEVICE inline T min_nan(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a < b ? a : b;
}

// One element of an arithmetic BinaryOp (not a comparison) on a computational dtype.
template <class T>
CUSTODY_HOST_DEVICE inline T apply_binary(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd: return wrap_add(a, b);
    case BinaryOp::kSub: return wrap_sub(a, b);
    case BinaryOp::kMul: return wrap_mul(a, b);
    case BinaryOp::kDiv:
      if constexpr (std::is_floating_point_v<T>) {
        return a / b;
      } else {
        return b == T(0) ? T(0) : static_cast<T>(a / b);  // unreachable: ints promote to float
      }
    case BinaryOp::kMaximum: return max_nan(a, b);
    case BinaryOp::kMinimum: return min_nan(a, b);
    case BinaryOp::kPow:
      if constexpr (std::is_floating_point_v<T>) {
        using std::pow;
        return pow(a, b);
      } else if constexpr (std::is_same_v<T, bool>) {
        return a || !b;
      } else {
        return int_pow(a, b);
      }
    default: return T(0);
  }
}

// One element of a comparison BinaryOp.
template <class T>
CUSTODY_HOST_DEVICE inline bool apply_comparison(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kEq: return a == b;
    case BinaryOp::kNe: return a != b;
    case BinaryOp::kLt: return a < b;
    case BinaryOp::kLe: return a <= b;
    case BinaryOp::kGt: return a > b;
    case BinaryOp::kGe: return a >= b;
    default: return false;
  }
}

// One element of a UnaryOp. Float-only ops never reach integral dtypes (core
// promotes them first); on integers they return x.
template <class T>
CUSTODY_HOST_DEVICE inline T apply_unary(UnaryOp op, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    using std::cos, std::erf, std::exp, std::fabs, std::log, std::sin, std::sqrt, std::tanh;
    switch (op) {
      case UnaryOp::kNeg: return -x;
      case UnaryOp::kAbs: return fabs(x);
      case UnaryOp::kExp: return exp(x);
      case UnaryOp::kLog: return log(x);
      case UnaryOp::kSqrt: return sqrt(x);
      case UnaryOp::kRsqrt: return T(1) / sqrt(x);
      case UnaryOp::kTanh: return tanh(x);
      case UnaryOp::kSigmoid: return T(1) / (T(1) + exp(-x));
      case UnaryOp::kRelu: return is_nan(x) ? x : (x > T(0) ? x : T(0));
      case UnaryOp::kGelu: return T(0.5) * x * (T(1) + erf(x * T(0.70710678118654752440)));
      case UnaryOp::kSilu: return x / (T(1) + exp(-x));
      case UnaryOp::kSin: return sin(x);
      case UnaryOp::kCos: return cos(x);
    }
    return x;
  } else {
    switch (op) {
      case UnaryOp::kNeg: return wrap_sub(T(0), x);
      case UnaryOp::kAbs:
        if constexpr (std::is_signed_v<T>) {
          return x < 0 ? wrap_sub(T(0), x) : x;
        } else {
          return x;
        }
      case UnaryOp::kRelu:
        if constexpr (std::is_signed_v<T>) {
          return x > 0 ? x : T(0);
        } else {
          return x;
        }
      default: return x;
    }
  }
}

}  // namespace custody::element

#endif  // CUSTODY_CORE_ELEMENT_OPS_H_
