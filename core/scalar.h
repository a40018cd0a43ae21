// Copyright 2026 The custody Authors.
//
// core/scalar.h — `Scalar`, a bool, integer or floating value passed to ops
// (`add(t, 2)`, `full(sizes, 1.5)`), with ATen's rules for the dtype it implies.

#ifndef CUSTODY_CORE_SCALAR_H_
#define CUSTODY_CORE_SCALAR_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/dtype.h"

namespace custody {

// A double as an int64 without undefined behaviour: truncated toward zero when
// it is in [-2^63, 2^63), else (NaN, infinities, beyond) INT64_MIN, the value
// x86-64's conversion gives (Note [Float to integer], core/element_ops.h).
constexpr int64_t truncate_to_int64(double d) {
  return d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? static_cast<int64_t>(d)
                                                                  : INT64_MIN;
}

class Scalar {
 public:
  enum class Kind : uint8_t { kBool, kInt, kFloat };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool b) : kind_(Kind::kBool), i_(b), d_(b) {}
  // An integer. A uint64 past INT64_MAX keeps its value: i_ holds its bits
  // (what to<uint64_t>() and the modular conversions to narrower types need)
  // and `unsigned_` says how to read them (to_double(), str(), comparisons).
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  Scalar(T v)
      : kind_(Kind::kInt), unsigned_(std::is_unsigned_v<T> && sizeof(T) == 8 &&
                                     static_cast<uint64_t>(v) > static_cast<uint64_t>(INT64_MAX)),
        i_(static_cast<int64_t>(v)), d_(static_cast<double>(v)) {}
  template <class T>
    requires std::is_floating_point_v<T>
  Scalar(T v)
      : kind_(Kind::kFloat), i_(truncate_to_int64(static_cast<double>(v))), d_(static_cast<double>(v)) {}
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}

  Kind kind() const { return kind_; }
  bool is_floating_point() const { return kind_ == Kind::kFloat; }
  bool is_integral() const { return kind_ == Kind::kInt; }
  bool is_bool() const { return kind_ == Kind::kBool; }

  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return kind_ == Kind::kFloat ? d_ != 0.0 : i_ != 0;
    } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                         std::is_same_v<T, BFloat16>) {
      return static_cast<T>(static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(
          kind_ == Kind::kFloat || unsigned_ ? d_ : static_cast<double>(i_)));
    } else {
      return static_cast<T>(kind_ == Kind::kFloat ? truncate_to_int64(d_) : i_);
    }
  }
  double to_double() const {
    return kind_ == Kind::kFloat || unsigned_ ? d_ : static_cast<double>(i_);
  }
  // An integer past INT64_MAX (only a uint64 holds one): to<int64_t>() wraps it.
  bool is_large_unsigned() const { return unsigned_; }

  // The dtype of a 0-dim tensor made from this scalar: bool, int64 or float32.
  ScalarType default_dtype() const {
    return kind_ == Kind::kBool ? ScalarType::Bool
                                : (kind_ == Kind::kInt ? kDefaultInt : kDefaultFloat);
  }
  std::string str() const;

 private:
  Kind kind_;
  bool unsigned_ = false;
  int64_t i_;
  double d_;
};

// torch.result_type(tensor, scalar): the scalar only changes the dtype when it
// is of a higher category (bool < integral < floating) than the tensor.
ScalarType promote_with_scalar(ScalarType tensor, const Scalar& s);

}  // namespace custody

#endif  // CUSTODY_CORE_SCALAR_H_
