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

// Every dtype once, as c10's AT_FORALL_SCALAR_TYPES: _(dense index, C++ type,
// ScalarType name, number, printed name). The numbers are c10's (and
// ExecuTorch's), so a dtype read as a number means the same thing in all
// three; the gaps are dtypes custody does not have. float16 and bfloat16 are
// storage + casts only; uint16/32/64 are the barebones unsigned (see above).
// The enum, kAllScalarTypes, dtype_index, the C++ type maps, visit_dtype and
// dtype_name are generated from it.
#define CUSTODY_FORALL_SCALAR_TYPES(_)     \
  _(0, uint8_t, Byte, 0, "uint8")          \
  _(1, int8_t, Char, 1, "int8")            \
  _(2, int16_t, Short, 2, "int16")         \
  _(3, int32_t, Int, 3, "int32")           \
  _(4, int64_t, Long, 4, "int64")          \
  _(5, Half, Half, 5, "float16")           \
  _(6, float, Float, 6, "float32")         \
  _(7, double, Double, 7, "float64")       \
  _(8, bool, Bool, 11, "bool")             \
  _(9, BFloat16, BFloat16, 15, "bfloat16") \
  _(10, uint16_t, UInt16, 27, "uint16")    \
  _(11, uint32_t, UInt32, 28, "uint32")    \
  _(12, uint64_t, UInt64, 29, "uint64")

#define CUSTODY_DTYPE_ENUM_(index, cpp, name, number, text) name = number,
enum class ScalarType : int8_t { CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_ENUM_) };
#undef CUSTODY_DTYPE_ENUM_

#define CUSTODY_DTYPE_COUNT_(index, cpp, name, number, text) +1
inline constexpr int kNumScalarTypes = 0 CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_COUNT_);
#undef CUSTODY_DTYPE_COUNT_

#define CUSTODY_DTYPE_VALUE_(index, cpp, name, number, text) ScalarType::name,
inline constexpr ScalarType kAllScalarTypes[kNumScalarTypes] = {
    CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_VALUE_)};
#undef CUSTODY_DTYPE_VALUE_

// A dense index 0..kNumScalarTypes-1 (kAllScalarTypes[dtype_index(t)] == t), for tables.
constexpr int dtype_index(ScalarType t) {
#define CUSTODY_DTYPE_INDEX_(index, cpp, name, number, text) \
  case ScalarType::name:                                    \
    return index;
  switch (t) { CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_INDEX_) }
#undef CUSTODY_DTYPE_INDEX_
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
template <class T> struct CppToScalarType;
#define CUSTODY_DTYPE_CPP_(index, cpp, name, number, text)                        \
  template <> struct ScalarTypeToCpp<ScalarType::name> { using type = cpp; };     \
  template <> struct CppToScalarType<cpp> {                                       \
    static constexpr ScalarType value = ScalarType::name;                         \
  };
CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_CPP_)
#undef CUSTODY_DTYPE_CPP_

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
#define CUSTODY_DTYPE_VISIT_(index, cpp, name, number, text) \
  case ScalarType::name:                                    \
    return f(Tag<cpp>{});
  switch (t) { CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_VISIT_) }
#undef CUSTODY_DTYPE_VISIT_
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
#define CUSTODY_DTYPE_SIZE_(index, cpp, name, number, text) \
  case ScalarType::name:                                   \
    return sizeof(cpp);
  switch (t) { CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_SIZE_) }
#undef CUSTODY_DTYPE_SIZE_
  return 0;
}
static_assert(element_size(ScalarType::Half) == 2 && element_size(ScalarType::BFloat16) == 2 &&
              element_size(ScalarType::Bool) == 1);

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
