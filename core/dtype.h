// Copyright 2026 The custody Authors.
//
// core/dtype.h — scalar types, their C++ counterparts, promotion and cast rules.
//
// custody has thirteen dtypes, numbered as in c10 and ExecuTorch:
//  * eight computational dtypes (float32, float64, int8, int16, int32, int64,
//    uint8, bool) that every op takes where ATen takes them;
//  * two storage-only dtypes (float16, bfloat16) that can be created, viewed,
//    copied and cast with `to(dtype)` but not computed on;
//  * three "barebones" unsigned dtypes (uint16, uint32, uint64), as in ATen 2.x:
//    created, viewed, copied, cast, printed and compared, with the few other
//    ops ATen runs on them (is_barebones_unsigned; ops.h lists them).
//
// Promotion follows ATen (`torch.result_type`: uint8 + int8 -> int16; the wide
// unsigned dtypes promote only with themselves and with floating dtypes), cast
// rules for the maker API follow ExecuTorch's `canCast`: no floating ->
// integral and no non-bool -> bool, where, as in c10, uint16/32/64 are not
// "integral" (so float32 -> uint32 is allowed).

#ifndef CUSTODY_CORE_DTYPE_H_
#define CUSTODY_CORE_DTYPE_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <type_traits>

#include "absl/strings/string_view.h"

#if defined(__CUDACC__)
#define CUSTODY_HOST_DEVICE __host__ __device__
#else
#define CUSTODY_HOST_DEVICE
#endif

namespace custody {

// The values are c10's (and ExecuTorch's), so a dtype read as a number means
// the same thing in all three; the gaps are dtypes custody does not have.
enum class ScalarType : int8_t {
  Byte = 0,       // uint8
  Char = 1,       // int8
  Short = 2,      // int16
  Int = 3,        // int32
  Long = 4,       // int64
  Half = 5,       // float16 (storage + casts only)
  Float = 6,      // float32
  Double = 7,     // float64
  Bool = 11,
  BFloat16 = 15,  // storage + casts only
  UInt16 = 27,    // barebones unsigned (see above)
  UInt32 = 28,
  UInt64 = 29,
};
inline constexpr int kNumScalarTypes = 13;
inline constexpr ScalarType kAllScalarTypes[kNumScalarTypes] = {
    ScalarType::Byte,   ScalarType::Char,   ScalarType::Short,  ScalarType::Int,
    ScalarType::Long,   ScalarType::Half,   ScalarType::Float,  ScalarType::Double,
    ScalarType::Bool,   ScalarType::BFloat16, ScalarType::UInt16, ScalarType::UInt32,
    ScalarType::UInt64};

// A dense index 0..kNumScalarTypes-1 (kAllScalarTypes[dtype_index(t)] == t), for tables.
constexpr int dtype_index(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return 0;
    case ScalarType::Char: return 1;
    case ScalarType::Short: return 2;
    case ScalarType::Int: return 3;
    case ScalarType::Long: return 4;
    case ScalarType::Half: return 5;
    case ScalarType::Float: return 6;
    case ScalarType::Double: return 7;
    case ScalarType::Bool: return 8;
    case ScalarType::BFloat16: return 9;
    case ScalarType::UInt16: return 10;
    case ScalarType::UInt32: return 11;
    case ScalarType::UInt64: return 12;
  }
  return 0;
}

// IEEE half precision, storage only. Conversions round to nearest even.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  CUSTODY_HOST_DEVICE explicit Half(float f) : bits(FromFloat(f)) {}
  CUSTODY_HOST_DEVICE operator float() const { return ToFloat(bits); }
  CUSTODY_HOST_DEVICE static uint16_t FromFloat(float f);
  CUSTODY_HOST_DEVICE static float ToFloat(uint16_t h);
};

// bfloat16 (the high 16 bits of a float32), storage only. Round to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  CUSTODY_HOST_DEVICE explicit BFloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it quiet.
      bits = 0x7fc0;
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      bits = static_cast<uint16_t>(u >> 16);
    }
  }
  CUSTODY_HOST_DEVICE operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

CUSTODY_HOST_DEVICE inline uint16_t Half::FromFloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (x >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (x < 0x38800000u) {  // subnormal or zero in half
    if (x < 0x33000000u) return static_cast<uint16_t>(sign);  // underflow
    const uint32_t e = x >> 23;
    uint32_t m = (x & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14 + (112 - e) ... results in 0..
    uint32_t half_m = m >> (shift);
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
    return static_cast<uint16_t>(sign | half_m);
  }
  uint32_t h = ((x - 0x38000000u) >> 13);
  const uint32_t rem = x & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

CUSTODY_HOST_DEVICE inline float Half::ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  uint32_t u;
  if (e == 0) {
    if (m == 0) {
      u = sign;
    } else {  // subnormal: normalise
      e = 1;
      while ((m & 0x400u) == 0) {
        m <<= 1;
        --e;
      }
      m &= 0x3ffu;
      u = sign | ((e + 112) << 23) | (m << 13);
    }
  } else if (e == 31) {
    u = sign | 0x7f800000u | (m << 13);
  } else {
    u = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The C++ type of each dtype and back.
template <ScalarType S> struct ScalarTypeToCpp;
template <> struct ScalarTypeToCpp<ScalarType::Byte> { using type = uint8_t; };
template <> struct ScalarTypeToCpp<ScalarType::Char> { using type = int8_t; };
template <> struct ScalarTypeToCpp<ScalarType::Short> { using type = int16_t; };
template <> struct ScalarTypeToCpp<ScalarType::Int> { using type = int32_t; };
template <> struct ScalarTypeToCpp<ScalarType::Long> { using type = int64_t; };
template <> struct ScalarTypeToCpp<ScalarType::Half> { using type = Half; };
template <> struct ScalarTypeToCpp<ScalarType::Float> { using type = float; };
template <> struct ScalarTypeToCpp<ScalarType::Double> { using type = double; };
template <> struct ScalarTypeToCpp<ScalarType::Bool> { using type = bool; };
template <> struct ScalarTypeToCpp<ScalarType::BFloat16> { using type = BFloat16; };
template <> struct ScalarTypeToCpp<ScalarType::UInt16> { using type = uint16_t; };
template <> struct ScalarTypeToCpp<ScalarType::UInt32> { using type = uint32_t; };
template <> struct ScalarTypeToCpp<ScalarType::UInt64> { using type = uint64_t; };

template <class T> struct CppToScalarType;
template <> struct CppToScalarType<uint8_t> { static constexpr ScalarType value = ScalarType::Byte; };
template <> struct CppToScalarType<int8_t> { static constexpr ScalarType value = ScalarType::Char; };
template <> struct CppToScalarType<int16_t> { static constexpr ScalarType value = ScalarType::Short; };
template <> struct CppToScalarType<int32_t> { static constexpr ScalarType value = ScalarType::Int; };
template <> struct CppToScalarType<int64_t> { static constexpr ScalarType value = ScalarType::Long; };
template <> struct CppToScalarType<Half> { static constexpr ScalarType value = ScalarType::Half; };
template <> struct CppToScalarType<float> { static constexpr ScalarType value = ScalarType::Float; };
template <> struct CppToScalarType<double> { static constexpr ScalarType value = ScalarType::Double; };
template <> struct CppToScalarType<bool> { static constexpr ScalarType value = ScalarType::Bool; };
template <> struct CppToScalarType<BFloat16> { static constexpr ScalarType value = ScalarType::BFloat16; };
template <> struct CppToScalarType<uint16_t> { static constexpr ScalarType value = ScalarType::UInt16; };
template <> struct CppToScalarType<uint32_t> { static constexpr ScalarType value = ScalarType::UInt32; };
template <> struct CppToScalarType<uint64_t> { static constexpr ScalarType value = ScalarType::UInt64; };

// Element type for host buffers of T: std::vector<bool> is packed, so bools are
// kept as bytes (the same representation as bool).
template <class T>
using HostElement = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <class T>
inline constexpr bool kIsScalarCppType = requires { CppToScalarType<T>::value; };

template <class T>
inline constexpr ScalarType scalar_type_of = CppToScalarType<T>::value;

// `visit_dtype(t, f)` calls `f(Tag<T>{})` with T the C++ type of `t`.
template <class T> struct Tag { using type = T; };

template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: return f(Tag<uint8_t>{});
    case ScalarType::Char: return f(Tag<int8_t>{});
    case ScalarType::Short: return f(Tag<int16_t>{});
    case ScalarType::Int: return f(Tag<int32_t>{});
    case ScalarType::Long: return f(Tag<int64_t>{});
    case ScalarType::Half: return f(Tag<Half>{});
    case ScalarType::Float: return f(Tag<float>{});
    case ScalarType::Double: return f(Tag<double>{});
    case ScalarType::Bool: return f(Tag<bool>{});
    case ScalarType::BFloat16: return f(Tag<BFloat16>{});
    case ScalarType::UInt16: return f(Tag<uint16_t>{});
    case ScalarType::UInt32: return f(Tag<uint32_t>{});
    case ScalarType::UInt64: return f(Tag<uint64_t>{});
  }
  return f(Tag<float>{});
}

// Like visit_dtype over the eight computational dtypes; other dtypes are the
// caller's job to reject first (check_computable in core/ops.h).
template <class F>
decltype(auto) visit_compute_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: return f(Tag<uint8_t>{});
    case ScalarType::Char: return f(Tag<int8_t>{});
    case ScalarType::Short: return f(Tag<int16_t>{});
    case ScalarType::Int: return f(Tag<int32_t>{});
    case ScalarType::Long: return f(Tag<int64_t>{});
    case ScalarType::Double: return f(Tag<double>{});
    case ScalarType::Bool: return f(Tag<bool>{});
    default: return f(Tag<float>{});
  }
}

// Like visit_compute_dtype, and the three barebones unsigned dtypes too: for
// the kernels ATen also runs on uint16/32/64 (comparisons, where, max/min, ...).
template <class F>
decltype(auto) visit_compute_or_unsigned_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::UInt16: return f(Tag<uint16_t>{});
    case ScalarType::UInt32: return f(Tag<uint32_t>{});
    case ScalarType::UInt64: return f(Tag<uint64_t>{});
    default: return visit_compute_dtype(t, static_cast<F&&>(f));
  }
}

constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
    case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16:
    case ScalarType::UInt16: return 2;
    case ScalarType::Int: case ScalarType::Float: case ScalarType::UInt32: return 4;
    case ScalarType::Long: case ScalarType::Double: case ScalarType::UInt64: return 8;
  }
  return 0;
}

constexpr bool is_floating_point(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}
// As c10's isIntegralType: uint8, int8, int16, int32, int64 (and bool when
// asked), not the barebones unsigned dtypes.
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long || (include_bool && t == ScalarType::Bool);
}
// uint16, uint32 and uint64: ATen 2.x's "barebones" unsigned dtypes.
constexpr bool is_barebones_unsigned(ScalarType t) {
  return t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}
// The values of an integer dtype (bool and the unsigned ones included),
// inclusive; false for the floating dtypes. uint64's max is reported as
// INT64_MAX (the largest int64): callers that need 2^64-1 ask for UInt64 first.
constexpr bool integer_range(ScalarType t, int64_t* min, int64_t* max) {
  switch (t) {
    case ScalarType::Bool: *min = 0; *max = 1; return true;
    case ScalarType::Byte: *min = 0; *max = 255; return true;
    case ScalarType::Char: *min = INT8_MIN; *max = INT8_MAX; return true;
    case ScalarType::Short: *min = INT16_MIN; *max = INT16_MAX; return true;
    case ScalarType::Int: *min = INT32_MIN; *max = INT32_MAX; return true;
    case ScalarType::Long: *min = INT64_MIN; *max = INT64_MAX; return true;
    case ScalarType::UInt16: *min = 0; *max = UINT16_MAX; return true;
    case ScalarType::UInt32: *min = 0; *max = UINT32_MAX; return true;
    case ScalarType::UInt64: *min = 0; *max = INT64_MAX; return true;
    default: return false;
  }
}
// float16 and bfloat16 are storage-only: ops other than copies reject them.
constexpr bool is_storage_only(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16;
}

// "float32", "int64", ... as in `torch.float32`.
absl::string_view dtype_name(ScalarType t);
std::ostream& operator<<(std::ostream& os, ScalarType t);
// Lets absl::StrFormat("%v") and StrCat print dtypes.
template <class Sink>
void AbslStringify(Sink& sink, ScalarType t) { sink.Append(dtype_name(t)); }

// The dtype of `a op b` as in torch.result_type for two tensors (c10's
// promoteTypes). uint16/32/64 promote only with themselves and with floating
// dtypes, as in ATen: any other pair with one of them is a DTypeError naming
// `op` and both dtypes.
ScalarType promote_types(ScalarType a, ScalarType b, const char* op = "promote_types");

// ExecuTorch's canCast: false for floating -> integral and non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

// Default dtypes for scalars, as in ATen.
inline constexpr ScalarType kDefaultFloat = ScalarType::Float;
inline constexpr ScalarType kDefaultInt = ScalarType::Long;

}  // namespace custody

#endif  // CUSTODY_CORE_DTYPE_H_
