// Copyright 2026 The custody Authors.

#include "core/scalar.h"

#include "absl/strings/str_cat.h"

namespace custody {

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::kBool: return i_ ? "true" : "false";
    case Kind::kInt: return unsigned_ ? absl::StrCat(static_cast<uint64_t>(i_)) : absl::StrCat(i_);
    case Kind::kFloat: return absl::StrCat(d_);
  }
  return "";
}

ScalarType promote_with_scalar(ScalarType t, const Scalar& s) {
  auto category = [](ScalarType d) {
    return d == ScalarType::Bool ? 0 : (is_floating_point(d) ? 2 : 1);
  };
  const int sc = s.is_bool() ? 0 : (s.is_integral() ? 1 : 2);
  if (sc > category(t)) return s.default_dtype();
  return t;
}

}  // namespace custody
