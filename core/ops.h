// Copyright 2026 The custody Authors.
//
// core/ops.h — `internal::Ops<Backend>`: the op set v1 on TensorImpls.
//
// This is the layer between handles and kernels. It checks arguments (shapes,
// dtypes, dims, indices) and throws the matching custody::Error naming the op,
// promotes dtypes as ATen does, allocates outputs through the backend, and calls
// the backend's kernels. It knows nothing about ownership policies: every
// function returns a fresh +1 reference (`ImplRef`) that the caller's policy
// wraps in a handle.
//
// Only declarations live here: the definitions are in core/ops_impl.h and are
// explicitly instantiated once per backend (see backends/*/), so user code
// never compiles them.

#ifndef CUSTODY_CORE_OPS_H_
#define CUSTODY_CORE_OPS_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/tensor_impl.h"
#include "core/view_ops.h"

namespace custody::internal {

template <class B>
struct Ops {
  // ---- factories ---------------------------------------------------------
  static ImplRef empty(IntSpan sizes, ScalarType dtype, TensorShapeDynamism dyn, const char* op);
  static ImplRef empty_strided(IntSpan sizes, IntSpan strides, ScalarType dtype,
                               TensorShapeDynamism dyn, const char* op);
  static ImplRef full(IntSpan sizes, const Scalar& value, ScalarType dtype,
                      TensorShapeDynamism dyn, const char* op);
  static ImplRef full_strided(IntSpan sizes, IntSpan strides, const Scalar& value, ScalarType dtype,
                              TensorShapeDynamism dyn, const char* op);
  static ImplRef arange(const Scalar& start, const Scalar& end, const Scalar& step,
                        std::optional<ScalarType> dtype);
  // uniform (low, high) or normal (mean, std); floating dtypes.
  static ImplRef random(IntSpan sizes, IntSpan strides, ScalarType dtype, RandomDist dist,
                        double low, double high, TensorShapeDynamism dyn, const char* op);
  // Integers in [low, high), which must lie in `dtype`'s range.
  static ImplRef randint(IntSpan sizes, IntSpan strides, ScalarType dtype, int64_t low, int64_t high,
                         TensorShapeDynamism dyn, const char* op);
  // Copies `nbytes` of host data (dense, row-major, of `dtype`) into a new tensor.
  static ImplRef from_host(const void* data, size_t nbytes, ScalarType dtype, IntSpan sizes,
                           TensorShapeDynamism dyn, const char* op);
  // Wraps backend memory without copying; `deleter` (may be empty) runs once.
  // A null `data` is an InvalidArgument unless there are no elements or
  // `allow_null_data` (ExecuTorch's makers: data bound later; check_has_data).
  static ImplRef from_blob(void* data, IntSpan sizes, std::optional<IntSpan> strides,
                           ScalarType dtype, TensorShapeDynamism dyn,
                           std::function<void(void*)> deleter, const char* op,
                           bool allow_null_data = false);

  // ---- copies and conversions ----------------------------------------------
  static ImplRef clone(const TensorImpl& t, const char* op = "clone");
  static ImplRef contiguous(const TensorImpl& t);
  static ImplRef to_dtype(const TensorImpl& t, ScalarType dtype, const char* op);
  static ImplRef reshape(const TensorImpl& t, IntSpan sizes);
  static ImplRef flatten(const TensorImpl& t, int64_t start, int64_t end);
  // Dense row-major bytes of `t` on the host.
  static std::vector<char> to_host(const TensorImpl& t);
  template <class T> static T item(const TensorImpl& t);
  static std::string to_string(const TensorImpl& t);
  // Copies `t` (any backend B2's memory, read through host) into a B tensor.
  template <class B2> static ImplRef from_other(const TensorImpl& t);

  // ---- elementwise --------------------------------------------------------
  static ImplRef binary(BinaryOp op, const TensorImpl& a, const TensorImpl& b);
  static ImplRef binary(BinaryOp op, const TensorImpl& a, const Scalar& s, bool scalar_first);
  static void binary_(BinaryOp op, TensorImpl& self, const TensorImpl& other);
  static void binary_(BinaryOp op, TensorImpl& self, const Scalar& s);
  static void copy_(TensorImpl& self, const TensorImpl& src);
  static void fill_(TensorImpl& self, const Scalar& value, const char* op);
  static ImplRef unary(UnaryOp op, const TensorImpl& t);
  static ImplRef where(const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b);

  // ---- reductions, softmax, linear algebra, indexing -----------------------
  // `dims` empty = all dims.
  static ImplRef reduce(ReduceOp op, const TensorImpl& t, IntSpan dims, bool keepdim);
  static ImplRef arg_reduce(ReduceOp op, const TensorImpl& t, std::optional<int64_t> dim,
                            bool keepdim);
  static ImplRef softmax(const TensorImpl& t, int64_t dim, bool log);
  static ImplRef matmul(const TensorImpl& a, const TensorImpl& b);
  // `op`: the name errors give (embedding calls it as "embedding").
  static ImplRef index_select(const TensorImpl& t, int64_t dim, const TensorImpl& index,
                              const char* op = "index_select");
  static ImplRef embedding(const TensorImpl& weight, const TensorImpl& indices);
  static ImplRef cat(const std::vector<const TensorImpl*>& tensors, int64_t dim);

  // ---- resizing (ExecuTorch rules; see core/tensor.h) -----------------------
  static absl::Status resize(TensorImpl& t, IntSpan sizes);
};

// Shared, backend-independent helpers (core/ops_common.cc).
// InvalidArgument when `t` has elements but no data (made from a null pointer
// by ExecuTorch's makers, not yet bound with TensorImpl::set_data): an op that
// would read or write them. `op` may be null (kernel_view does not know it).
[[noreturn]] void throw_no_data(const TensorImpl& t, const char* op);
inline void check_has_data(const TensorImpl& t, const char* op) {
  if (t.storage()->data() == nullptr && t.numel() != 0) [[unlikely]] throw_no_data(t, op);
}
// The view a kernel gets of `t` (optionally with other sizes and strides, e.g.
// broadcast ones); it borrows them, so `t` and the arrays outlive the call.
// Checks that `t` has data (check_has_data).
inline KernelView kernel_view(const TensorImpl& t, IntSpan sizes, IntSpan strides) {
  check_has_data(t, nullptr);
  t.storage()->note_use();
  return KernelView{t.data(), t.scalar_type(), sizes, strides};
}
inline KernelView kernel_view(const TensorImpl& t) { return kernel_view(t, t.sizes(), t.strides()); }
// A DTypeError unless op `op` computes on `dtype`: never on a storage-only
// dtype (float16, bfloat16); on uint16/32/64 only when `takes_unsigned`.
//
// Note [Barebones unsigned ops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// uint16, uint32 and uint64 take what ATen 2.x runs on them, and the few
// exact ops its CPU kernels leave out only by omission (add, sub, lt/le/gt/ge,
// where): creation (empty, zeros, full, randint, from data), views, clone,
// contiguous, to/copy_/fill_, cat, index_select/embedding, where, item and
// printing; add, sub and mul (wrapping, as uint8 does); the six comparisons;
// div and exp, log, sqrt, rsqrt, tanh, sigmoid, sin, cos (computed in
// float32, as ATen does for integers); sum (int64, as ATen). Every other op
// (neg, abs, relu, gelu, silu, pow, maximum, minimum, mean, max, min, argmax,
// argmin, softmax, matmul, arange, rand, randn) is a DTypeError naming the op
// and the dtype, as ATen's "not implemented for 'UInt32'".
[[noreturn]] void throw_not_computable(const char* op, ScalarType dtype);
inline void check_computable(const char* op, ScalarType dtype, bool takes_unsigned = false) {
  if (is_storage_only(dtype) || (!takes_unsigned && is_barebones_unsigned(dtype))) [[unlikely]] {
    throw_not_computable(op, dtype);
  }
}
// An InvalidArgument unless `value` fits `dtype` (fill_, full): integer dtypes
// take finite values within their range (fractions truncate), float32/16 and
// bfloat16 finite values within theirs (or a NaN or an infinity); bool and
// float64 take any value. As ATen refuses "value cannot be converted to type
// ... without overflow".
void check_fill_value(const Scalar& value, ScalarType dtype, const char* op);
std::string format_tensor(ScalarType dtype, IntSpan sizes, const char* host_data);
ImplRef retain(const TensorImpl& t);
bool shares_storage(const TensorImpl& a, const TensorImpl& b);
bool same_view(const TensorImpl& a, const TensorImpl& b);
// InvalidArgument naming `op` when `src` and the written-to `self` overlap in
// memory without being the same view, as ATen refuses it (Note [In-place
// overlap], ops_common.cc). Views ATen cannot decide for (not dense) pass; the
// caller then copies `src` first, so the kernel never reads what it wrote.
void check_no_partial_overlap(const char* op, const TensorImpl& self, const TensorImpl& src);
// `status` with its leading "<from>: " renamed "<to>: " (code and error kind
// kept): for an op built on another, whose kernel names the inner op.
absl::Status renamed_op(const absl::Status& status, const char* from, const char* to);

}  // namespace custody::internal

// ---- member templates that user code instantiates -----------------------------
namespace custody::internal {

// The name item<T>() gives T in its messages: the dtype's name where T is one.
template <class T>
std::string item_type_name() {
  if constexpr (kIsScalarCppType<T>) {
    return std::string(dtype_name(scalar_type_of<T>));
  } else if constexpr (std::is_integral_v<T>) {
    return absl::StrCat(std::is_signed_v<T> ? "int" : "uint", 8 * sizeof(T));
  } else {
    return absl::StrCat("float", 8 * sizeof(T));
  }
}

// item<T>()'s conversion, checked as ATen's item<T>() checks it: to bool
// anything (nonzero is true); to an integer type a value in its range
// (fractions truncate toward zero), never NaN or infinite; to float a value
// within float's range (or an infinity or NaN, kept). Else InvalidArgument
// saying which value did not fit which type.
template <class T, class S>
T item_convert(S v, ScalarType from) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<S, bool>) {
    return static_cast<T>(v);
  } else {
    bool fits = true;
    if constexpr (std::is_integral_v<T> && std::is_floating_point_v<S>) {
      // lowest <= v <= max, as c10::overflows: a fraction past the last integer overflows.
      const long double x = v;
      fits = std::isfinite(x) && x >= static_cast<long double>(std::numeric_limits<T>::lowest()) &&
             x <= static_cast<long double>(std::numeric_limits<T>::max());
    } else if constexpr (std::is_integral_v<T> && std::is_integral_v<S>) {
      // c10::overflows lets a negative integer into an unsigned type while -v fits (-1 -> 255).
      fits = std::in_range<T>(v) ||
             (std::is_unsigned_v<T> && std::is_signed_v<S> && v < 0 &&
              static_cast<uint64_t>(0) - static_cast<uint64_t>(v) <= std::numeric_limits<T>::max());
    } else if constexpr (std::is_same_v<T, float> && std::is_same_v<S, double>) {
      fits = !std::isfinite(v) || std::abs(v) <= std::numeric_limits<float>::max();
    }
    if (!fits) {
      throw InvalidArgument(absl::StrFormat(
          "item: value %s of a %s tensor cannot be converted to %s without overflow",
          absl::StrCat(+v), dtype_name(from), item_type_name<T>()));
    }
    return static_cast<T>(v);
  }
}

template <class B>
template <class T>
T Ops<B>::item(const TensorImpl& t) {
  if (t.numel() != 1) {
    throw InvalidArgument(absl::StrFormat(
        "item: a tensor with %d elements (shape %s) cannot be converted to a scalar; only "
        "one-element tensors can", t.numel(), shape_str(t.sizes())));
  }
  // Any dtype, the storage-only float16/bfloat16 included: reading one value computes nothing.
  std::vector<char> host = to_host(t);
  return visit_dtype(t.scalar_type(), [&](auto tag) -> T {
    using S = typename decltype(tag)::type;
    S v;
    std::memcpy(&v, host.data(), sizeof(S));
    if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
      return item_convert<T>(static_cast<float>(v), t.scalar_type());
    } else {
      return item_convert<T>(v, t.scalar_type());
    }
  });
}



template <class B>
template <class B2>
ImplRef Ops<B>::from_other(const TensorImpl& t) {
  std::vector<char> host = Ops<B2>::to_host(t);
  return from_host(host.data(), host.size(), t.scalar_type(), t.sizes(), t.shape_dynamism(), "to");
}

}  // namespace custody::internal
#endif  // CUSTODY_CORE_OPS_H_
