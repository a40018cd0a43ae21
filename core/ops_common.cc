// Copyright 2026 The custody Authors.
//
// Backend-independent pieces of the op layer: kernel views, dtype checks and
// PyTorch-style printing.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "core/ops.h"

namespace custody {

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
    case BinaryOp::kMaximum: return "maximum";
    case BinaryOp::kMinimum: return "minimum";
    case BinaryOp::kPow: return "pow";
    case BinaryOp::kEq: return "eq";
    case BinaryOp::kNe: return "ne";
    case BinaryOp::kLt: return "lt";
    case BinaryOp::kLe: return "le";
    case BinaryOp::kGt: return "gt";
    case BinaryOp::kGe: return "ge";
  }
  return "?";
}

const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNeg: return "neg";
    case UnaryOp::kAbs: return "abs";
    case UnaryOp::kExp: return "exp";
    case UnaryOp::kLog: return "log";
    case UnaryOp::kSqrt: return "sqrt";
    case UnaryOp::kRsqrt: return "rsqrt";
    case UnaryOp::kTanh: return "tanh";
    case UnaryOp::kSigmoid: return "sigmoid";
    case UnaryOp::kRelu: return "relu";
    case UnaryOp::kGelu: return "gelu";
    case UnaryOp::kSilu: return "silu";
    case UnaryOp::kSin: return "sin";
    case UnaryOp::kCos: return "cos";
  }
  return "?";
}

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMean: return "mean";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kArgMax: return "argmax";
    case ReduceOp::kArgMin: return "argmin";
  }
  return "?";
}

absl::Status index_out_of_range(const char* op, int64_t index, int64_t dim, int64_t size,
                                IntSpan input_sizes) {
  return MakeStatus(ErrorKind::kInvalidArgument, absl::StatusCode::kOutOfRange,
                    absl::StrFormat("%s: index %d is out of range for dim %d of size %d (input "
                                    "shape %s)", op, index, dim, size, shape_str(input_sizes)));
}

namespace internal {

void throw_no_data(const TensorImpl& t, const char* op) {
  throw InvalidArgument(absl::StrFormat(
      "%s%sa %s tensor of shape %s has no data (it was made from a null pointer): bind memory to it "
      "with TensorImpl::set_data before an op reads or writes its elements",
      op == nullptr ? "" : op, op == nullptr ? "" : ": ", dtype_name(t.scalar_type()),
      shape_str(t.sizes())));
}

void check_fill_value(const Scalar& value, ScalarType dtype, const char* op) {
  if (value.is_bool() || dtype == ScalarType::Bool) return;
  bool fits = true;
  // As c10::overflows: lo <= v <= hi (a fraction past the last integer overflows), except that a
  // negative integer goes into an unsigned type while -v fits (-1 -> uint8 255).
  auto in_integer_range = [&](long double lo, long double hi) {
    if (value.is_integral()) {
      const auto v = value.is_large_unsigned() ? static_cast<long double>(value.to<uint64_t>())
                                                : static_cast<long double>(value.to<int64_t>());
      return (v >= lo && v <= hi) || (lo == 0 && v < 0 && -v <= hi);
    }
    const long double x = value.to_double();
    return std::isfinite(x) && x >= lo && x <= hi;
  };
  auto in_float_range = [&](long double max) {
    const long double x = value.to_double();
    return !std::isfinite(x) || std::fabs(x) <= max;
  };
  int64_t min = 0, max = 0;
  if (integer_range(dtype, &min, &max)) {
    fits = in_integer_range(static_cast<long double>(min),
                            dtype == ScalarType::UInt64 ? static_cast<long double>(UINT64_MAX)
                                                        : static_cast<long double>(max));
  } else if (dtype == ScalarType::Float) {
    fits = in_float_range(std::numeric_limits<float>::max());
  } else if (dtype == ScalarType::Half) {
    fits = in_float_range(65504.0L);
  } else if (dtype == ScalarType::BFloat16) {
    fits = in_float_range(3.38953139e38L);
  }
  if (!fits) {
    throw InvalidArgument(absl::StrFormat("%s: value %s cannot be converted to %s without overflow",
                                          op, value.str(), dtype_name(dtype)));
  }
}

void throw_not_computable(const char* op, ScalarType dtype) {
  if (is_barebones_unsigned(dtype)) {
    throw DTypeError(absl::StrFormat(
        "%s: not implemented for %s (uint16/32/64 take creation, copies, casts, comparisons, "
        "add/sub/mul, div and sum, as in ATen); cast with to(int64) first", op, dtype_name(dtype)));
  }
  throw DTypeError(absl::StrFormat(
      "%s: %s is a storage-only dtype in custody (create, view, copy and cast only); cast with "
      "to(float32) first", op, dtype_name(dtype)));
}

ImplRef retain(const TensorImpl& t) { return ImplRef::Retain(const_cast<TensorImpl*>(&t)); }

bool shares_storage(const TensorImpl& a, const TensorImpl& b) {
  return a.storage().get() == b.storage().get() ||
         (a.storage()->data() == b.storage()->data() && a.storage()->data() != nullptr);
}

bool same_view(const TensorImpl& a, const TensorImpl& b) {
  return a.data() == b.data() && a.scalar_type() == b.scalar_type() &&
         std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin(), b.sizes().end()) &&
         std::equal(a.strides().begin(), a.strides().end(), b.strides().begin(), b.strides().end());
}

// Note [In-place overlap]
// ~~~~~~~~~~~~~~~~~~~~~~~
// An in-place op whose input overlaps what it writes in another layout
// (`a.add_(a.t())`, `v.narrow(0, 1, 3).copy_(v.narrow(0, 0, 3))`) has no answer
// independent of the order the kernel visits elements. ATen refuses it when
// both views are dense (no gaps, no element twice) and their byte ranges
// intersect, unless they are the same view; for other layouts it cannot tell
// cheaply and computes. custody refuses exactly what ATen refuses, and for the
// rest copies the input first (read-before-write), never an order-dependent
// answer.
namespace {

// Every element once, no gaps: the strides, sorted, pack the sizes densely.
bool non_overlapping_and_dense(const TensorImpl& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size), size-1 dims left out
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1) dims.emplace_back(t.stride(d), t.size(d));
  }
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

}  // namespace

void check_no_partial_overlap(const char* op, const TensorImpl& self, const TensorImpl& src) {
  if (&self == &src || self.numel() == 0 || src.numel() == 0 || !shares_storage(self, src)) return;
  if (!non_overlapping_and_dense(self) || !non_overlapping_and_dense(src)) return;
  const auto* a = static_cast<const char*>(self.data());
  const auto* b = static_cast<const char*>(src.data());
  const char* a_end = a + self.numel() * static_cast<int64_t>(self.element_size());
  const char* b_end = b + src.numel() * static_cast<int64_t>(src.element_size());
  const bool full = a == b && a_end == b_end &&
                    std::equal(self.strides().begin(), self.strides().end(), src.strides().begin(),
                               src.strides().end());
  if (!full && a < b_end && b < a_end) {
    throw InvalidArgument(absl::StrFormat(
        "%s: some elements of the input (shape %s, strides %s) and the written-to tensor (shape %s, "
        "strides %s) refer to a single memory location; clone() the input first",
        op, shape_str(src.sizes()), shape_str(src.strides()), shape_str(self.sizes()),
        shape_str(self.strides())));
  }
}

absl::Status renamed_op(const absl::Status& status, const char* from, const char* to) {
  const std::string prefix = absl::StrCat(from, ": ");
  if (status.ok() || !absl::StartsWith(status.message(), prefix)) return status;
  absl::Status s(status.code(), absl::StrCat(to, ": ", status.message().substr(prefix.size())));
  status.ForEachPayload(
      [&s](absl::string_view url, const absl::Cord& payload) { s.SetPayload(url, payload); });
  return s;
}

// ---- printing (PyTorch style) ---------------------------------------------------

namespace {

struct FloatFormat {
  bool int_mode = true;  // every finite value is an integer: print "1."
  bool sci = false;
  int precision = 4;
};

FloatFormat choose_format(const std::vector<double>& v) {
  FloatFormat f;
  double max_abs = 0, min_abs = std::numeric_limits<double>::infinity();
  bool any = false;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    any = true;
    if (x != std::floor(x)) f.int_mode = false;
    max_abs = std::max(max_abs, std::fabs(x));
    if (x != 0) min_abs = std::min(min_abs, std::fabs(x));
  }
  if (!any) return f;
  if (f.int_mode) {
    f.sci = max_abs > 1e8;
  } else {
    f.sci = max_abs / min_abs > 1000.0 || max_abs > 1e8 || min_abs < 1e-4;
  }
  return f;
}

std::string format_double(double x, const FloatFormat& f) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (f.sci) return absl::StrFormat("%.*e", f.precision, x);
  if (f.int_mode) return absl::StrFormat("%.0f.", x);
  return absl::StrFormat("%.*f", f.precision, x);
}

}  // namespace

std::string format_tensor(ScalarType dtype, IntSpan sizes, const char* host) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<std::string> items(static_cast<size_t>(n));
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto load = [&](int64_t i) {
      T v;
      std::memcpy(&v, host + i * sizeof(T), sizeof(T));
      return v;
    };
    if constexpr (std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < n; ++i) items[i] = load(i) ? "True" : "False";
    } else if constexpr (std::is_integral_v<T>) {
      // Exact, whatever the width (int64 and uint64 values past 2^53 included).
      for (int64_t i = 0; i < n; ++i) items[i] = absl::StrCat(+load(i));
    } else {
      std::vector<double> vals(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, double>) {
          vals[i] = load(i);
        } else {
          vals[i] = static_cast<float>(load(i));  // float, float16, bfloat16
        }
      }
      const FloatFormat f = choose_format(vals);
      for (int64_t i = 0; i < n; ++i) items[i] = format_double(vals[i], f);
    }
  });
  size_t width = 0;
  for (const auto& s : items) width = std::max(width, s.size());
  for (auto& s : items) s.insert(0, width - s.size(), ' ');

  std::string out = "tensor(";
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  if (ndim == 0) {
    out += items[0];
  } else if (n == 0) {
    out += "[]";
  } else {
    Dims strides = contiguous_strides(sizes);
    // Recursive printer over dims.
    std::function<void(int64_t, int64_t)> rec = [&](int64_t d, int64_t base) {
      out += "[";
      for (int64_t i = 0; i < sizes[d]; ++i) {
        if (d == ndim - 1) {
          out += items[base + i];
          if (i + 1 < sizes[d]) out += ", ";
        } else {
          rec(d + 1, base + i * strides[d]);
          if (i + 1 < sizes[d]) {
            out += ",";
            out += std::string(static_cast<size_t>(ndim - 1 - d), '\n');
            out += std::string(7 + static_cast<size_t>(d) + 1, ' ');
          }
        }
      }
      out += "]";
    };
    rec(0, 0);
  }
  if (n == 0 && !(ndim == 1)) {
    out += absl::StrFormat(", size=(%s)", [&] {
      std::string s;
      for (int64_t i = 0; i < ndim; ++i) s += absl::StrCat(i ? ", " : "", sizes[i]);
      return s;
    }());
  }
  const bool default_dtype = dtype == ScalarType::Float || dtype == ScalarType::Long ||
                             dtype == ScalarType::Bool;
  if (!default_dtype) out += absl::StrCat(", dtype=torch.", dtype_name(dtype));
  out += ")";
  return out;
}

}  // namespace internal
}  // namespace custody
