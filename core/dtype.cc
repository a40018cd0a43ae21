// Copyright 2026 The custody Authors.

#include "core/dtype.h"

#include "absl/strings/str_format.h"
#include "core/error.h"

namespace custody {

absl::string_view dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "uint8";
    case ScalarType::Char: return "int8";
    case ScalarType::Short: return "int16";
    case ScalarType::Int: return "int32";
    case ScalarType::Long: return "int64";
    case ScalarType::Half: return "float16";
    case ScalarType::Float: return "float32";
    case ScalarType::Double: return "float64";
    case ScalarType::Bool: return "bool";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::UInt16: return "uint16";
    case ScalarType::UInt32: return "uint32";
    case ScalarType::UInt64: return "uint64";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

// c10's promotion table, as rules: equal dtypes keep theirs; two floating
// dtypes take the wider (float16 + bfloat16 -> float32); a floating dtype wins
// over any other; bool loses to anything; uint8 with a signed dtype takes the
// narrowest signed dtype that holds both (uint8 + int8 -> int16); two signed
// dtypes take the wider.
ScalarType promote_types(ScalarType a, ScalarType b, const char* op) {
  if (a == b) return a;
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    if (is_floating_point(a)) return a;
    if (is_floating_point(b)) return b;
    throw DTypeError(absl::StrFormat(
        "%s: promotion of %s and %s is not supported (uint16, uint32 and uint64 promote only with "
        "themselves and floating dtypes, as in ATen); cast one operand with to(dtype) first",
        op, dtype_name(a), dtype_name(b)));
  }
  const bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa && fb) {
    auto width = [](ScalarType t) { return t == ScalarType::Double ? 2 : (t == ScalarType::Float); };
    if (width(a) == width(b)) return ScalarType::Float;  // float16 and bfloat16
    return width(a) > width(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  if (a == ScalarType::Byte) return b == ScalarType::Char ? ScalarType::Short : b;
  if (b == ScalarType::Byte) return a == ScalarType::Char ? ScalarType::Short : a;
  return element_size(a) >= element_size(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/false)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

}  // namespace custody
