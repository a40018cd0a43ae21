// Copyright 2026 The custody Authors.

#include "core/dtype.h"

#include "absl/strings/str_format.h"
#include "core/error.h"

namespace custody {

absl::string_view dtype_name(ScalarType t) {
#define CUSTODY_DTYPE_NAME_(index, cpp, name, number, text) \
  case ScalarType::name:                                   \
    return text;
  switch (t) { CUSTODY_FORALL_SCALAR_TYPES(CUSTODY_DTYPE_NAME_) }
#undef CUSTODY_DTYPE_NAME_
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
