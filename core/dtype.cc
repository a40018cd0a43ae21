// Copyright 2026 The custody Authors.

#include "core/dtype.h"

namespace custody {

absl::string_view dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "uint8";
    case ScalarType::Int: return "int32";
    case ScalarType::Long: return "int64";
    case ScalarType::Half: return "float16";
    case ScalarType::Float: return "float32";
    case ScalarType::Double: return "float64";
    case ScalarType::Bool: return "bool";
    case ScalarType::BFloat16: return "bfloat16";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

namespace {
// Rank in the promotion lattice of our dtypes (no int8/int16 here, so it is a chain
// apart from float16 + bfloat16 -> float32).
int rank(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 0;
    case ScalarType::Byte: return 1;
    case ScalarType::Int: return 2;
    case ScalarType::Long: return 3;
    case ScalarType::Half: return 4;
    case ScalarType::BFloat16: return 4;
    case ScalarType::Float: return 5;
    case ScalarType::Double: return 6;
  }
  return 0;
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if ((a == ScalarType::Half && b == ScalarType::BFloat16) ||
      (a == ScalarType::BFloat16 && b == ScalarType::Half)) {
    return ScalarType::Float;
  }
  return rank(a) >= rank(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/false)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

}  // namespace custody
