// Copyright 2026 The custody Authors.
//
// core/ops_impl_elementwise.h — the op layer's elementwise ops: binary ops of
// two tensors or a tensor and a scalar (dtype promotion, broadcasting), their
// in-place forms, copy_, fill_, unary ops and where.
//
// Part of the definitions of internal::Ops<Backend>: include core/ops_impl.h.

#ifndef CUSTODY_CORE_OPS_IMPL_ELEMENTWISE_H_
#define CUSTODY_CORE_OPS_IMPL_ELEMENTWISE_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/ops.h"

namespace custody::internal {

// ---- elementwise ------------------------------------------------------------

namespace detail {
// torch.result_type of two tensors: a 0-dim tensor takes part like a scalar,
// deciding the dtype only when it is of a higher category (bool < integral <
// floating) than the dimensioned operand (int32[3] + float64[] -> float64,
// but float32[3] + float64[] -> float32 and int32[3] + int64[] -> int32).
inline ScalarType result_type(const TensorImpl& a, const TensorImpl& b, const char* op) {
  if ((a.dim() == 0) == (b.dim() == 0)) return promote_types(a.scalar_type(), b.scalar_type(), op);
  const ScalarType dimmed = a.dim() == 0 ? b.scalar_type() : a.scalar_type();
  const ScalarType zero = a.dim() == 0 ? a.scalar_type() : b.scalar_type();
  if (is_floating_point(dimmed)) return dimmed;
  if (dimmed == ScalarType::Bool || is_floating_point(zero)) return promote_types(dimmed, zero, op);
  return dimmed;
}

// `b` is the other operand's dtype (a scalar's default dtype for tensor-scalar forms).
inline ScalarType binary_compute_dtype(BinaryOp op, ScalarType common, const char* name,
                                       ScalarType a, ScalarType b) {
  // ATen rejects subtraction whenever either operand is bool, whatever the result dtype.
  if (op == BinaryOp::kSub && (a == ScalarType::Bool || b == ScalarType::Bool)) {
    throw DTypeError(absl::StrFormat(
        "%s: subtraction with a bool operand (%s, %s) is not supported; use logical ops or "
        "cast with to(int64) first", name, dtype_name(a), dtype_name(b)));
  }
  if (common == ScalarType::Bool) {
    if (op == BinaryOp::kPow) {
      throw DTypeError(absl::StrFormat("%s: not supported for bool tensors (%s, %s)", name,
                                       dtype_name(a), dtype_name(b)));
    }
  }
  if (op == BinaryOp::kDiv && !is_floating_point(common)) return kDefaultFloat;
  return common;
}

// Whether binary op `op` takes uint16/32/64 operands (Note [Barebones unsigned ops]).
constexpr bool binary_takes_unsigned(BinaryOp op) {
  return op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul ||
         op == BinaryOp::kDiv || is_comparison(op);
}

// c10's canCast, for the result of an in-place op: no floating -> integer
// (uint16/32/64 included, unlike ExecuTorch's canCast in can_cast) and no
// non-bool -> bool.
inline bool result_can_cast(ScalarType from, ScalarType to) {
  return can_cast(from, to) && !(is_floating_point(from) && is_barebones_unsigned(to));
}

// ATen's check for pow(tensor, scalar): an integral (or bool) tensor to a
// negative integral scalar power is an error, judged on the scalar's value
// (before it is converted to the tensor's dtype, where -1 would become 255).
inline void check_int_pow_scalar(ScalarType base, const Scalar& exp) {
  if (is_integral(base, /*include_bool=*/true) && !exp.is_floating_point() && exp.to<int64_t>() < 0) {
    throw InvalidArgument(absl::StrFormat(
        "pow: integers to negative integer powers are not allowed (a %s tensor to the power %s); "
        "cast to a floating point dtype first", dtype_name(base), exp.str()));
  }
  // An integer exponent the base's integer dtype cannot hold (2**300 in uint8) is
  // refused, as ATen refuses it, rather than wrapped before the power is taken.
  if (is_integral(base, /*include_bool=*/false) && exp.is_integral()) {
    check_fill_value(exp, base, "pow");
  }
}
}  // namespace detail

template <class B>
ImplRef Ops<B>::binary(BinaryOp op, const TensorImpl& a, const TensorImpl& b) {
  const char* name = op_name(op);
  check_computable(name, a.scalar_type(), detail::binary_takes_unsigned(op));
  check_computable(name, b.scalar_type(), detail::binary_takes_unsigned(op));
  const ScalarType compute = detail::binary_compute_dtype(
      op, detail::result_type(a, b, name), name, a.scalar_type(), b.scalar_type());
  const ScalarType out_dtype = is_comparison(op) ? ScalarType::Bool : compute;
  // Fast path (most ops of a training step): same sizes, no cast, no broadcast.
  if (a.scalar_type() == compute && b.scalar_type() == compute && a.sizes() == b.sizes()) {
    ImplRef out = empty(a.sizes(), out_dtype, TensorShapeDynamism::DYNAMIC_BOUND, name);
    if (out->numel() > 0) ThrowIfError(B::binary(op, kernel_view(*out), kernel_view(a), kernel_view(b)));
    return out;
  }
  const Dims shape = ValueOrThrow(broadcast_shapes(a.sizes(), b.sizes(), name));
  ImplRef ca = to_dtype(a, compute, name);
  ImplRef cb = to_dtype(b, compute, name);
  ImplRef out = empty(shape, out_dtype, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) {
    ThrowIfError(B::binary(op, kernel_view(*out), kernel_view(*ca, shape, broadcast_to(*ca, shape)),
                           kernel_view(*cb, shape, broadcast_to(*cb, shape))));
  }
  return out;
}

template <class B>
ImplRef Ops<B>::binary(BinaryOp op, const TensorImpl& a, const Scalar& s, bool scalar_first) {
  const char* name = op_name(op);
  check_computable(name, a.scalar_type(), detail::binary_takes_unsigned(op));
  // ATen computes x ** 0.5 as sqrt(x) and x ** -0.5 as rsqrt(x), which differ from pow on
  // special values ((-inf) ** 0.5 is NaN, (-0.) ** -0.5 is -inf): the same here.
  if (op == BinaryOp::kPow && !scalar_first && s.is_floating_point() &&
      (s.to_double() == 0.5 || s.to_double() == -0.5) && a.scalar_type() != ScalarType::Bool) {
    return unary(s.to_double() > 0 ? UnaryOp::kSqrt : UnaryOp::kRsqrt, a);
  }
  if (op == BinaryOp::kPow && !scalar_first) detail::check_int_pow_scalar(a.scalar_type(), s);
  const ScalarType common = promote_with_scalar(a.scalar_type(), s);
  const ScalarType compute =
      detail::binary_compute_dtype(op, common, name, a.scalar_type(), s.default_dtype());
  ImplRef ca = to_dtype(a, compute, name);
  ImplRef out = empty(a.sizes(), is_comparison(op) ? ScalarType::Bool : compute,
                      TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) {
    ThrowIfError(B::binary_scalar(op, kernel_view(*out), kernel_view(*ca), s, scalar_first));
  }
  return out;
}

namespace detail {
inline void check_writable(const char* op, const TensorImpl& self) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.stride(d) == 0 && self.size(d) > 1) {
      throw InvalidArgument(absl::StrFormat(
          "%s: more than one element of the written-to tensor (shape %s, strides %s) refers to a "
          "single memory location; call clone() before the in-place op",
          op, shape_str(self.sizes()), shape_str(self.strides())));
    }
  }
}
inline std::string inplace_name(const char* name) { return absl::StrCat(name, "_"); }
}  // namespace detail

template <class B>
void Ops<B>::binary_(BinaryOp op, TensorImpl& self, const TensorImpl& other) {
  const std::string name = detail::inplace_name(op_name(op));
  check_computable(name.c_str(), self.scalar_type(), detail::binary_takes_unsigned(op));
  check_computable(name.c_str(), other.scalar_type(), detail::binary_takes_unsigned(op));
  const ScalarType compute = detail::binary_compute_dtype(
      op, detail::result_type(self, other, name.c_str()), name.c_str(), self.scalar_type(),
      other.scalar_type());
  if (!detail::result_can_cast(compute, self.scalar_type())) {
    throw DTypeError(absl::StrFormat("%s: result type %s can't be cast to the desired output type %s",
                                     name, dtype_name(compute), dtype_name(self.scalar_type())));
  }
  const Dims shape = ValueOrThrow(broadcast_shapes(self.sizes(), other.sizes(), name.c_str()));
  if (!std::equal(shape.begin(), shape.end(), self.sizes().begin(), self.sizes().end())) {
    throw ShapeError(absl::StrFormat(
        "%s: output with shape %s doesn't match the broadcast shape %s (other has shape %s)", name,
        shape_str(self.sizes()), shape_str(shape), shape_str(other.sizes())));
  }
  detail::check_writable(name.c_str(), self);
  check_no_partial_overlap(name.c_str(), self, other);
  if (self.numel() == 0) return;
  if (compute != self.scalar_type()) {
    ImplRef tmp = binary(op, self, other);
    ThrowIfError(B::copy(kernel_view(self), kernel_view(*tmp)));
    return;
  }
  // An operand that overlaps self in another layout is copied first, so the
  // kernel never reads an element it already overwrote.
  ImplRef src = (shares_storage(self, other) && !same_view(self, other)) ? clone(other)
                                                                          : retain(other);
  ImplRef cs = to_dtype(*src, compute, name.c_str());
  ThrowIfError(B::binary(op, kernel_view(self), kernel_view(self),
                         kernel_view(*cs, shape, broadcast_to(*cs, shape))));
}

template <class B>
void Ops<B>::binary_(BinaryOp op, TensorImpl& self, const Scalar& s) {
  const std::string name = detail::inplace_name(op_name(op));
  check_computable(name.c_str(), self.scalar_type(), detail::binary_takes_unsigned(op));
  const ScalarType compute = detail::binary_compute_dtype(
      op, promote_with_scalar(self.scalar_type(), s), name.c_str(), self.scalar_type(),
      s.default_dtype());
  if (!detail::result_can_cast(compute, self.scalar_type())) {
    throw DTypeError(absl::StrFormat("%s: result type %s can't be cast to the desired output type %s",
                                     name, dtype_name(compute), dtype_name(self.scalar_type())));
  }
  detail::check_writable(name.c_str(), self);
  if (self.numel() == 0) return;
  if (compute != self.scalar_type()) {
    ImplRef tmp = binary(op, self, s, false);
    ThrowIfError(B::copy(kernel_view(self), kernel_view(*tmp)));
    return;
  }
  ThrowIfError(B::binary_scalar(op, kernel_view(self), kernel_view(self), s, false));
}

template <class B>
void Ops<B>::copy_(TensorImpl& self, const TensorImpl& src) {
  const Dims shape = ValueOrThrow(broadcast_shapes(self.sizes(), src.sizes(), "copy_"));
  if (!std::equal(shape.begin(), shape.end(), self.sizes().begin(), self.sizes().end())) {
    throw ShapeError(absl::StrFormat("copy_: source of shape %s cannot be broadcast to the "
                                     "destination's shape %s", shape_str(src.sizes()),
                                     shape_str(self.sizes())));
  }
  detail::check_writable("copy_", self);
  check_no_partial_overlap("copy_", self, src);
  if (self.numel() == 0 || same_view(self, src)) return;
  ImplRef s = shares_storage(self, src) ? clone(src) : retain(src);
  ThrowIfError(B::copy(kernel_view(self), kernel_view(*s, shape, broadcast_to(*s, shape))));
}

template <class B>
void Ops<B>::fill_(TensorImpl& self, const Scalar& value, const char* op) {
  check_fill_value(value, self.scalar_type(), op);
  if (self.numel() == 0) return;
  ThrowIfError(B::fill(kernel_view(self), value));
}

template <class B>
ImplRef Ops<B>::unary(UnaryOp op, const TensorImpl& t) {
  const char* name = op_name(op);
  // exp, log, ...: integers (uint16/32/64 included) compute in float32.
  const bool to_float = op != UnaryOp::kNeg && op != UnaryOp::kAbs && op != UnaryOp::kRelu &&
                        op != UnaryOp::kGelu && op != UnaryOp::kSilu;
  check_computable(name, t.scalar_type(), to_float);
  ScalarType compute = t.scalar_type();
  switch (op) {
    case UnaryOp::kNeg: case UnaryOp::kAbs: case UnaryOp::kRelu:
      if (compute == ScalarType::Bool) {
        throw DTypeError(absl::StrFormat("%s: not supported for bool tensors; cast with to(...) first", name));
      }
      break;
    case UnaryOp::kGelu: case UnaryOp::kSilu:
      if (!is_floating_point(compute)) {
        throw DTypeError(absl::StrFormat("%s: expected a floating point tensor but got %s; cast with "
                                         "to(float32) first", name, dtype_name(compute)));
      }
      break;
    default:  // exp, log, ...: integral inputs compute in the default float dtype (ATen)
      if (!is_floating_point(compute)) compute = kDefaultFloat;
  }
  ImplRef c = to_dtype(t, compute, name);
  ImplRef out = empty(t.sizes(), compute, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) ThrowIfError(B::unary(op, kernel_view(*out), kernel_view(*c)));
  return out;
}

template <class B>
ImplRef Ops<B>::where(const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b) {
  if (cond.scalar_type() != ScalarType::Bool) {
    throw DTypeError(absl::StrFormat("where: expected condition to be a bool tensor, but got %s",
                                     dtype_name(cond.scalar_type())));
  }
  check_computable("where", a.scalar_type(), /*takes_unsigned=*/true);
  check_computable("where", b.scalar_type(), /*takes_unsigned=*/true);
  const ScalarType dt = detail::result_type(a, b, "where");
  Dims shape = ValueOrThrow(broadcast_shapes(cond.sizes(), a.sizes(), "where"));
  shape = ValueOrThrow(broadcast_shapes(shape, b.sizes(), "where"));
  ImplRef ca = to_dtype(a, dt, "where");
  ImplRef cb = to_dtype(b, dt, "where");
  ImplRef out = empty(shape, dt, TensorShapeDynamism::DYNAMIC_BOUND, "where");
  if (out->numel() > 0) {
    ThrowIfError(B::where(kernel_view(*out), kernel_view(cond, shape, broadcast_to(cond, shape)),
                          kernel_view(*ca, shape, broadcast_to(*ca, shape)),
                          kernel_view(*cb, shape, broadcast_to(*cb, shape))));
  }
  return out;
}

}  // namespace custody::internal

#endif  // CUSTODY_CORE_OPS_IMPL_ELEMENTWISE_H_
