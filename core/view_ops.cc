// Copyright 2026 The custody Authors.

#include "core/view_ops.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "core/error.h"

namespace custody::internal {

ImplRef make_view(const TensorImpl& src, IntSpan sizes, IntSpan strides, int64_t storage_offset) {
  return TensorImpl::Create(src.storage(), storage_offset, sizes, strides, src.scalar_type(),
                            src.shape_dynamism(), src.stats());
}

absl::StatusOr<ImplRef> view(const TensorImpl& t, IntSpan sizes) {
  auto inferred = infer_size(sizes, t.numel(), "view");
  if (!inferred.ok()) return inferred.status();
  Dims strides;
  if (!compute_view_strides(t.sizes(), t.strides(), *inferred, &strides)) {
    return ShapeStatus(
        "view: shape %s is not compatible with the input's sizes %s and strides %s (at least one "
        "dimension spans across two contiguous subspaces); use reshape() instead",
        shape_str(sizes), shape_str(t.sizes()), shape_str(t.strides()));
  }
  return make_view(t, *inferred, strides, t.storage_offset());
}

absl::StatusOr<ImplRef> narrow(const TensorImpl& t, int64_t dim, int64_t start, int64_t length) {
  if (t.dim() == 0) return ShapeStatus("narrow: cannot narrow a 0-dim tensor");
  auto d = wrap_dim(dim, t.dim(), "narrow");
  if (!d.ok()) return d.status();
  const int64_t size = t.size(*d);
  if (start < -size || start > size) {
    return MakeStatus(ErrorKind::kShape, absl::StatusCode::kOutOfRange,
                      absl::StrFormat("narrow: start %d is out of range for dim %d of size %d "
                                      "(shape %s)", start, *d, size, shape_str(t.sizes())));
  }
  if (start < 0) start += size;
  if (length < 0 || length > size - start) {  // not start + length: it may overflow
    return MakeStatus(ErrorKind::kShape, absl::StatusCode::kOutOfRange,
                      absl::StrFormat("narrow: start %d + length %d exceeds dim %d of size %d "
                                      "(shape %s)", start, length, *d, size, shape_str(t.sizes())));
  }
  Dims sizes(t.sizes().begin(), t.sizes().end());
  sizes[*d] = length;
  return make_view(t, sizes, t.strides(), t.storage_offset() + start * t.stride(*d));
}

absl::StatusOr<ImplRef> select(const TensorImpl& t, int64_t dim, int64_t index) {
  if (t.dim() == 0) return ShapeStatus("select: cannot select on a 0-dim tensor");
  auto d = wrap_dim(dim, t.dim(), "select");
  if (!d.ok()) return d.status();
  const int64_t size = t.size(*d);
  if (index < -size || index >= size) {
    return MakeStatus(ErrorKind::kInvalidArgument, absl::StatusCode::kOutOfRange,
                      absl::StrFormat("select: index %d is out of range for dim %d of size %d "
                                      "(shape %s)", index, *d, size, shape_str(t.sizes())));
  }
  if (index < 0) index += size;
  Dims sizes(t.sizes().begin(), t.sizes().end());
  Dims strides(t.strides().begin(), t.strides().end());
  const int64_t offset = t.storage_offset() + index * strides[*d];
  sizes.erase(sizes.begin() + *d);
  strides.erase(strides.begin() + *d);
  return make_view(t, sizes, strides, offset);
}

absl::StatusOr<ImplRef> transpose(const TensorImpl& t, int64_t d0, int64_t d1) {
  auto a = wrap_dim(d0, t.dim(), "transpose");
  if (!a.ok()) return a.status();
  auto b = wrap_dim(d1, t.dim(), "transpose");
  if (!b.ok()) return b.status();
  Dims sizes(t.sizes().begin(), t.sizes().end());
  Dims strides(t.strides().begin(), t.strides().end());
  if (t.dim() > 0) {
    std::swap(sizes[*a], sizes[*b]);
    std::swap(strides[*a], strides[*b]);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

absl::StatusOr<ImplRef> permute(const TensorImpl& t, IntSpan dims) {
  if (static_cast<int64_t>(dims.size()) != t.dim()) {
    return ShapeStatus("permute: number of dims %s (%d) does not match the tensor's rank %d (shape %s)",
                       shape_str(dims), dims.size(), t.dim(), shape_str(t.sizes()));
  }
  Dims sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    auto d = wrap_dim(dims[i], t.dim(), "permute");
    if (!d.ok()) return d.status();
    if (seen[*d]) return ShapeStatus("permute: dim %d repeats in %s", *d, shape_str(dims));
    seen[*d] = true;
    sizes[i] = t.size(*d);
    strides[i] = t.stride(*d);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

ImplRef squeeze(const TensorImpl& t) {
  Dims sizes, strides;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.size(i) != 1) {
      sizes.push_back(t.size(i));
      strides.push_back(t.stride(i));
    }
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

absl::StatusOr<ImplRef> squeeze(const TensorImpl& t, int64_t dim) {
  auto d = wrap_dim(dim, t.dim(), "squeeze");
  if (!d.ok()) return d.status();
  Dims sizes(t.sizes().begin(), t.sizes().end());
  Dims strides(t.strides().begin(), t.strides().end());
  if (t.dim() > 0 && sizes[*d] == 1) {
    sizes.erase(sizes.begin() + *d);
    strides.erase(strides.begin() + *d);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

absl::StatusOr<ImplRef> unsqueeze(const TensorImpl& t, int64_t dim) {
  auto d = wrap_dim(dim, t.dim() + 1, "unsqueeze");
  if (!d.ok()) return d.status();
  Dims sizes(t.sizes().begin(), t.sizes().end());
  Dims strides(t.strides().begin(), t.strides().end());
  const int64_t stride = *d < t.dim() ? sizes[*d] * strides[*d] : 1;
  sizes.insert(sizes.begin() + *d, 1);
  strides.insert(strides.begin() + *d, stride);
  return make_view(t, sizes, strides, t.storage_offset());
}

absl::StatusOr<ImplRef> expand(const TensorImpl& t, IntSpan target) {
  if (static_cast<int64_t>(target.size()) < t.dim()) {
    return ShapeStatus("expand: the number of sizes %s (%d) must be at least the tensor's rank %d "
                       "(shape %s)", shape_str(target), target.size(), t.dim(), shape_str(t.sizes()));
  }
  const size_t lead = target.size() - t.dim();
  Dims sizes(target.size()), strides(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    if (i < lead) {
      if (target[i] < 0) {
        return ShapeStatus("expand: size %d is not allowed in a new leading dim (%s)", target[i],
                           shape_str(target));
      }
      sizes[i] = target[i];
      strides[i] = 0;
      continue;
    }
    const int64_t have = t.size(i - lead);
    const int64_t want = target[i] == -1 ? have : target[i];
    if (have == want) {
      sizes[i] = have;
      strides[i] = t.stride(i - lead);
    } else if (have == 1 && want >= 0) {
      sizes[i] = want;
      strides[i] = 0;
    } else {
      return ShapeStatus("expand: the expanded size %d must match the existing size %d at dim %d "
                         "(shape %s to %s); only size-1 dims can be expanded",
                         want, have, i, shape_str(t.sizes()), shape_str(target));
    }
  }
  // A view's element count must fit in int64, as every tensor's (ATen: "numel: integer
  // multiplication overflow"), though its storage holds only the original elements.
  if (absl::StatusOr<int64_t> n = checked_numel(sizes, "expand"); !n.ok()) return n.status();
  return make_view(t, sizes, strides, t.storage_offset());
}

absl::StatusOr<Dims> flatten_sizes(const TensorImpl& t, int64_t start, int64_t end) {
  auto s = wrap_dim(start, t.dim(), "flatten");
  if (!s.ok()) return s.status();
  auto e = wrap_dim(end, t.dim(), "flatten");
  if (!e.ok()) return e.status();
  if (*s > *e) return ShapeStatus("flatten: start dim %d comes after end dim %d", *s, *e);
  if (t.dim() == 0) return Dims{1};
  Dims sizes;
  for (int64_t i = 0; i < *s; ++i) sizes.push_back(t.size(i));
  int64_t prod = 1;
  for (int64_t i = *s; i <= *e; ++i) prod *= t.size(i);
  sizes.push_back(prod);
  for (int64_t i = *e + 1; i < t.dim(); ++i) sizes.push_back(t.size(i));
  return sizes;
}

Dims broadcast_to(const TensorImpl& t, IntSpan target) {
  return broadcast_strides(t.sizes(), t.strides(), target);
}

}  // namespace custody::internal
