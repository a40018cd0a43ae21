// Copyright 2026 The custody Authors.
//
// core/ops_impl_copy.h — the op layer's ops that move elements without
// computing on them: clone, contiguous, to_dtype, reshape, flatten, the copy
// to the host, index_select, embedding and cat.
//
// Part of the definitions of internal::Ops<Backend>: include core/ops_impl.h.

#ifndef CUSTODY_CORE_OPS_IMPL_COPY_H_
#define CUSTODY_CORE_OPS_IMPL_COPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/ops.h"

namespace custody::internal {

// ---- copies and conversions ----------------------------------------------------

template <class B>
ImplRef Ops<B>::clone(const TensorImpl& t, const char* op) {
  ImplRef out = empty(t.sizes(), t.scalar_type(), t.shape_dynamism(), op);
  if (t.numel() > 0) ThrowIfError(B::copy(kernel_view(*out), kernel_view(t)));
  return out;
}

template <class B>
ImplRef Ops<B>::contiguous(const TensorImpl& t) {
  if (t.is_contiguous()) return retain(t);
  return clone(t, "contiguous");
}

template <class B>
ImplRef Ops<B>::to_dtype(const TensorImpl& t, ScalarType dtype, const char* op) {
  if (t.scalar_type() == dtype) return retain(t);
  ImplRef out = empty(t.sizes(), dtype, t.shape_dynamism(), op);
  if (t.numel() > 0) ThrowIfError(B::copy(kernel_view(*out), kernel_view(t)));
  return out;
}

template <class B>
ImplRef Ops<B>::reshape(const TensorImpl& t, IntSpan sizes) {
  const Dims inferred = ValueOrThrow(infer_size(sizes, t.numel(), "reshape"));
  Dims strides;
  if (compute_view_strides(t.sizes(), t.strides(), inferred, &strides)) {
    return make_view(t, inferred, strides, t.storage_offset());
  }
  ImplRef c = clone(t);
  return make_view(*c, inferred, contiguous_strides(inferred), 0);
}

template <class B>
ImplRef Ops<B>::flatten(const TensorImpl& t, int64_t start, int64_t end) {
  const Dims sizes = ValueOrThrow(flatten_sizes(t, start, end));
  return reshape(t, sizes);
}

template <class B>
std::vector<char> Ops<B>::to_host(const TensorImpl& t) {
  check_has_data(t, "to_host");
  ImplRef c = contiguous(t);
  c->storage()->note_use();
  std::vector<char> out(c->nbytes());
  if (!out.empty()) ThrowIfError(B::copy_to_host(out.data(), c->data(), out.size()));
  return out;
}

template <class B>
std::string Ops<B>::to_string(const TensorImpl& t) {
  std::vector<char> host = to_host(t);
  return format_tensor(t.scalar_type(), t.sizes(), host.data());
}

// ---- indexing ----------------------------------------------------------------

template <class B>
ImplRef Ops<B>::index_select(const TensorImpl& t, int64_t dim, const TensorImpl& index,
                             const char* op) {
  check_computable(op, t.scalar_type(), /*takes_unsigned=*/true);
  if (index.scalar_type() != ScalarType::Long && index.scalar_type() != ScalarType::Int) {
    throw DTypeError(absl::StrFormat("%s: expected an int64 or int32 index, but got %s", op,
                                     dtype_name(index.scalar_type())));
  }
  if (index.dim() > 1) {
    throw ShapeError(absl::StrFormat("%s: index must be 0-D or 1-D, but has shape %s", op,
                                     shape_str(index.sizes())));
  }
  if (t.dim() == 0) {
    // As ATen: a 0-dim tensor is indexed as one of size 1 by one index (which must be 0), and the
    // result is 0-dim.
    if (index.numel() != 1) {
      throw ShapeError(absl::StrFormat("%s: a 0-dim tensor takes exactly one index, got %d", op,
                                       index.numel()));
    }
    if (dim != 0 && dim != -1) ValueOrThrow(wrap_dim(dim, 0, op));  // "dim out of range" as for any 0-dim op
    ImplRef one = make_view(t, Dims{1}, Dims{1}, t.storage_offset());
    ImplRef r = index_select(*one, 0, index, op);
    return make_view(*r, IntSpan(), IntSpan(), r->storage_offset());  // 0-dim
  }
  const int64_t d = ValueOrThrow(wrap_dim(dim, t.dim(), op));
  ImplRef idx = to_dtype(index, ScalarType::Long, op);
  ImplRef idx1 = make_view(*idx, Dims{idx->numel()}, Dims{idx->dim() == 0 ? 1 : idx->stride(0)},
                           idx->storage_offset());
  Dims sizes(t.sizes().begin(), t.sizes().end());
  sizes[d] = idx1->numel();
  ImplRef out = empty(sizes, t.scalar_type(), TensorShapeDynamism::DYNAMIC_BOUND, op);
  if (idx1->numel() > 0) {
    // The kernel's bound check names index_select (Note [Device contract]).
    ThrowIfError(renamed_op(B::index_select(kernel_view(*out), kernel_view(t), d, kernel_view(*idx1)),
                            "index_select", op));
  }
  return out;
}

template <class B>
ImplRef Ops<B>::embedding(const TensorImpl& weight, const TensorImpl& indices) {
  if (weight.dim() != 2) {
    throw ShapeError(absl::StrFormat("embedding: weight must be 2-D [num_embeddings, dim], but has "
                                     "shape %s", shape_str(weight.sizes())));
  }
  ImplRef flat = reshape(indices, Dims{indices.numel()});
  ImplRef rows = index_select(weight, 0, *flat, "embedding");
  Dims sizes(indices.sizes().begin(), indices.sizes().end());
  sizes.push_back(weight.size(1));
  return make_view(*rows, sizes, contiguous_strides(sizes), 0);
}

template <class B>
ImplRef Ops<B>::cat(const std::vector<const TensorImpl*>& tensors, int64_t dim) {
  if (tensors.empty()) throw InvalidArgument("cat: expected a non-empty list of tensors");
  ScalarType dt = tensors[0]->scalar_type();
  const TensorImpl* ref = nullptr;
  for (const TensorImpl* t : tensors) {
    check_computable("cat", t->scalar_type(), /*takes_unsigned=*/true);
    dt = promote_types(dt, t->scalar_type(), "cat");
    const bool legacy_empty = t->dim() == 1 && t->numel() == 0;
    if (!legacy_empty && ref == nullptr) ref = t;
  }
  if (ref == nullptr) return empty(Dims{0}, dt, TensorShapeDynamism::DYNAMIC_BOUND, "cat");
  if (ref->dim() == 0) throw ShapeError("cat: zero-dimensional tensors cannot be concatenated");
  const int64_t d = ValueOrThrow(wrap_dim(dim, ref->dim(), "cat"));
  Dims sizes(ref->sizes().begin(), ref->sizes().end());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorImpl* t = tensors[i];
    if (t->dim() == 1 && t->numel() == 0) continue;
    if (t->dim() != ref->dim()) {
      throw ShapeError(absl::StrFormat("cat: tensors must have the same rank, but tensor %d has shape "
                                       "%s and tensor 0 has shape %s", i, shape_str(t->sizes()),
                                       shape_str(ref->sizes())));
    }
    for (int64_t j = 0; j < t->dim(); ++j) {
      if (j != d && t->size(j) != ref->size(j)) {
        throw ShapeError(absl::StrFormat(
            "cat: sizes of tensors must match except in dim %d, but tensor %d has shape %s and the "
            "first has shape %s (mismatch at dim %d)", d, i, shape_str(t->sizes()),
            shape_str(ref->sizes()), j));
      }
    }
    if (__builtin_add_overflow(total, t->size(d), &total)) {
      throw ShapeError(absl::StrFormat(
          "cat: the sizes along dim %d add up to more than int64 holds (overflow at tensor %d, "
          "shape %s)", d, i, shape_str(t->sizes())));
    }
  }
  sizes[d] = total;
  ImplRef out = empty(sizes, dt, TensorShapeDynamism::DYNAMIC_BOUND, "cat");
  int64_t offset = 0;
  for (const TensorImpl* t : tensors) {
    if ((t->dim() == 1 && t->numel() == 0)) continue;
    const int64_t len = t->size(d);
    if (len > 0 && t->numel() > 0) {
      ImplRef dst = ValueOrThrow(narrow(*out, d, offset, len));
      ThrowIfError(B::copy(kernel_view(*dst), kernel_view(*t)));
    }
    offset += len;
  }
  return out;
}

}  // namespace custody::internal

#endif  // CUSTODY_CORE_OPS_IMPL_COPY_H_
