// Copyright 2026 The custody Authors.
//
// core/ops_impl_reduce.h — the op layer's ops whose every output element
// combines many input elements: reductions (sum, mean, max, min, argmax,
// argmin), softmax and log_softmax, and matmul.
//
// Part of the definitions of internal::Ops<Backend>: include core/ops_impl.h.

#ifndef CUSTODY_CORE_OPS_IMPL_REDUCE_H_
#define CUSTODY_CORE_OPS_IMPL_REDUCE_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/ops.h"

namespace custody::internal {

// ---- reductions --------------------------------------------------------------

namespace detail {
// Marks reduced dims; ShapeError on out-of-range or repeated dims.
inline std::vector<bool> reduced_dims(const char* op, const TensorImpl& t, IntSpan dims) {
  std::vector<bool> r(static_cast<size_t>(t.dim()), dims.empty());
  for (int64_t d : dims) {
    const int64_t w = ValueOrThrow(wrap_dim(d, t.dim(), op));
    if (t.dim() == 0) continue;
    if (r[w]) {
      throw ShapeError(absl::StrFormat("%s: dim %d appears multiple times in the list of dims %s",
                                       op, w, shape_str(dims)));
    }
    r[w] = true;
  }
  return r;
}

inline Dims drop_reduced(IntSpan sizes, const std::vector<bool>& r) {
  Dims out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!r[i]) out.push_back(sizes[i]);
  }
  return out;
}

inline void check_nonempty_reduction(const char* op, const TensorImpl& t,
                                     const std::vector<bool>& r) {
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] && t.size(static_cast<int64_t>(i)) == 0) {
      throw ShapeError(absl::StrFormat(
          "%s: cannot reduce over dim %d of size 0 (shape %s): there is no identity for %s", op, i,
          shape_str(t.sizes()), op));
    }
  }
}
}  // namespace detail

template <class B>
ImplRef Ops<B>::reduce(ReduceOp op, const TensorImpl& t, IntSpan dims, bool keepdim) {
  const char* name = op_name(op);
  check_computable(name, t.scalar_type(), /*takes_unsigned=*/op == ReduceOp::kSum);
  ScalarType out_dtype = t.scalar_type();
  if (op == ReduceOp::kSum && !is_floating_point(out_dtype)) out_dtype = ScalarType::Long;
  if (op == ReduceOp::kMean && !is_floating_point(out_dtype)) {
    throw DTypeError(absl::StrFormat(
        "mean: could not infer the output dtype: input dtype must be floating point, but got %s; "
        "cast with to(float32) first", dtype_name(out_dtype)));
  }
  const std::vector<bool> r = detail::reduced_dims(name, t, dims);
  if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
    if (t.numel() == 0 && (dims.empty() || t.dim() == 0)) {
      throw ShapeError(absl::StrFormat(
          "%s: cannot reduce an empty tensor (shape %s) without a dim; specify a dim of nonzero size",
          name, shape_str(t.sizes())));
    }
    detail::check_nonempty_reduction(name, t, r);
  }
  Dims keep(t.sizes().begin(), t.sizes().end());
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i]) keep[i] = 1;
  }
  ImplRef c = to_dtype(t, out_dtype, name);
  ImplRef out = empty(keep, out_dtype, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) ThrowIfError(B::reduce(op, kernel_view(*out), kernel_view(*c)));
  if (keepdim) return out;
  const Dims final_sizes = detail::drop_reduced(t.sizes(), r);
  return make_view(*out, final_sizes, contiguous_strides(final_sizes), 0);
}

template <class B>
ImplRef Ops<B>::arg_reduce(ReduceOp op, const TensorImpl& t, std::optional<int64_t> dim,
                           bool keepdim) {
  const char* name = op_name(op);
  check_computable(name, t.scalar_type());
  if (t.scalar_type() == ScalarType::Bool) {
    throw DTypeError(absl::StrFormat("%s: not implemented for bool tensors; cast with to(uint8) first", name));
  }
  if (!dim.has_value()) {
    if (t.numel() == 0) {
      throw ShapeError(absl::StrFormat("%s: cannot reduce an empty tensor (shape %s) without a dim",
                                       name, shape_str(t.sizes())));
    }
    ImplRef flat = reshape(t, Dims{t.numel()});
    ImplRef out = empty(Dims{1}, ScalarType::Long, TensorShapeDynamism::DYNAMIC_BOUND, name);
    ThrowIfError(B::reduce(op, kernel_view(*out), kernel_view(*flat)));
    const Dims final_sizes = keepdim ? Dims(t.dim(), 1) : Dims{};
    return make_view(*out, final_sizes, contiguous_strides(final_sizes), 0);
  }
  const int64_t d = ValueOrThrow(wrap_dim(*dim, t.dim(), name));
  std::vector<bool> r(static_cast<size_t>(t.dim()), false);
  if (t.dim() > 0) r[d] = true;
  detail::check_nonempty_reduction(name, t, r);
  Dims keep(t.sizes().begin(), t.sizes().end());
  if (t.dim() > 0) keep[d] = 1;
  ImplRef out = empty(keep, ScalarType::Long, TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() > 0) ThrowIfError(B::reduce(op, kernel_view(*out), kernel_view(t)));
  if (keepdim) return out;
  const Dims final_sizes = detail::drop_reduced(t.sizes(), r);
  return make_view(*out, final_sizes, contiguous_strides(final_sizes), 0);
}

template <class B>
ImplRef Ops<B>::softmax(const TensorImpl& t, int64_t dim, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  check_computable(name, t.scalar_type());
  if (!is_floating_point(t.scalar_type())) {
    throw DTypeError(absl::StrFormat("%s: expected a floating point tensor but got %s; cast with "
                                     "to(float32) first", name, dtype_name(t.scalar_type())));
  }
  const int64_t d = ValueOrThrow(wrap_dim(dim, t.dim(), name));
  ImplRef out = empty(t.sizes(), t.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, name);
  if (out->numel() == 0) return out;
  if (t.dim() == 0) {  // softmax of a scalar is 1 (log: 0)
    fill_(*out, Scalar(log ? 0.0 : 1.0), name);
    return out;
  }
  ThrowIfError(B::softmax(kernel_view(*out), kernel_view(t), d, log));
  return out;
}

// ---- matmul -------------------------------------------------------------------

template <class B>
ImplRef Ops<B>::matmul(const TensorImpl& a, const TensorImpl& b) {
  check_computable("matmul", a.scalar_type());
  check_computable("matmul", b.scalar_type());
  if (a.scalar_type() != b.scalar_type()) {
    throw DTypeError(absl::StrFormat(
        "matmul: expected both inputs to have the same dtype, but got %s (shape %s) and %s "
        "(shape %s)", dtype_name(a.scalar_type()), shape_str(a.sizes()),
        dtype_name(b.scalar_type()), shape_str(b.sizes())));
  }
  if (a.scalar_type() == ScalarType::Bool) {
    throw DTypeError("matmul: not implemented for bool tensors; cast with to(...) first");
  }
  if (a.dim() == 0 || b.dim() == 0) {
    throw ShapeError(absl::StrFormat("matmul: both arguments need to be at least 1-D, but got shapes "
                                     "%s and %s", shape_str(a.sizes()), shape_str(b.sizes())));
  }
  // As ATen's matmul: the last two dims are the matrix ([n, k] and [k, m]), a
  // 1-D lhs is a row [1, k] and a 1-D rhs a column [k, 1] (their unit dim left
  // out of the result), and the dims before the matrix are batch dims that
  // broadcast from the right, as elementwise ops do.
  const size_t ra = a.dim(), rb = b.dim();
  const int64_t n = ra == 1 ? 1 : a.size(ra - 2), k = a.size(ra - 1);
  const int64_t k2 = rb == 1 ? b.size(0) : b.size(rb - 2), m = rb == 1 ? 1 : b.size(rb - 1);
  const int64_t san = ra == 1 ? 0 : a.stride(ra - 2), sak = a.stride(ra - 1);
  const int64_t sbk = rb == 1 ? b.stride(0) : b.stride(rb - 2), sbm = rb == 1 ? 0 : b.stride(rb - 1);
  if (k != k2) {
    throw ShapeError(absl::StrFormat("matmul: shapes %s and %s cannot be multiplied (%d != %d)",
                                     shape_str(a.sizes()), shape_str(b.sizes()), k, k2));
  }
  const size_t na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0, nbatch = std::max(na, nb);
  Dims final_sizes(nbatch, 1);
  for (size_t i = 0; i < nbatch; ++i) {
    const int64_t da = i + na >= nbatch ? a.size(i + na - nbatch) : 1;
    const int64_t db = i + nb >= nbatch ? b.size(i + nb - nbatch) : 1;
    if (da != db && da != 1 && db != 1) {
      throw ShapeError(absl::StrFormat(
          "matmul: the batch dims of %s and %s do not broadcast (%d vs %d at batch dim %d)",
          shape_str(a.sizes()), shape_str(b.sizes()), da, db, i));
    }
    final_sizes[i] = da == 1 ? db : da;  // 1 broadcasts, also to 0
  }
  if (ra > 1) final_sizes.push_back(n);
  if (rb > 1) final_sizes.push_back(m);
  ImplRef out = empty(final_sizes, a.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, "matmul");
  if (out->numel() == 0) return out;
  if (k == 0) {
    fill_(*out, Scalar(0), "matmul");
    return out;
  }
  // The kernel sees [batch..., n, k] x [batch..., k, m] -> [batch..., n, m]
  // with out's batch sizes on all three and stride 0 where an operand is
  // broadcast. Batch dims of size 1 are left out and neighbours that every
  // operand steps through as one are merged, so that the usual cases (equal
  // batches, one operand a single matrix) reach it with one batch dim.
  Dims bs, as, bst, os;  // batch sizes; a's, b's and out's batch strides
  int64_t out_stride = n * m;
  Dims out_batch_strides(nbatch);
  for (size_t i = nbatch; i-- > 0;) {
    out_batch_strides[i] = out_stride;
    out_stride *= final_sizes[i];
  }
  for (size_t i = 0; i < nbatch; ++i) {
    const int64_t size = final_sizes[i];
    if (size == 1) continue;
    const int64_t sa = i + na >= nbatch && a.size(i + na - nbatch) != 1 ? a.stride(i + na - nbatch) : 0;
    const int64_t sb = i + nb >= nbatch && b.size(i + nb - nbatch) != 1 ? b.stride(i + nb - nbatch) : 0;
    const int64_t so = out_batch_strides[i];
    if (!bs.empty() && as.back() == sa * size && bst.back() == sb * size && os.back() == so * size) {
      bs.back() *= size;
      as.back() = sa;
      bst.back() = sb;
      os.back() = so;
      continue;
    }
    bs.push_back(size);
    as.push_back(sa);
    bst.push_back(sb);
    os.push_back(so);
  }
  if (bs.empty()) {
    bs.push_back(1);
    as.push_back(0);
    bst.push_back(0);
    os.push_back(n * m);
  }
  // Two push_backs each: InlinedVector's insert of a list is an out-of-line
  // call, on a path every small product takes.
  const auto append = [](Dims& d, int64_t x, int64_t y) {
    d.push_back(x);
    d.push_back(y);
  };
  Dims a_sizes = bs, b_sizes = bs, o_sizes = bs;
  append(a_sizes, n, k);
  append(b_sizes, k, m);
  append(o_sizes, n, m);
  append(as, san, sak);
  append(bst, sbk, sbm);
  append(os, m, 1);
  ThrowIfError(B::matmul(kernel_view(*out, o_sizes, os), kernel_view(a, a_sizes, as),
                         kernel_view(b, b_sizes, bst)));
  return out;
}

}  // namespace custody::internal

#endif  // CUSTODY_CORE_OPS_IMPL_REDUCE_H_
