// Copyright 2026 The custody Authors.
//
// core/view_ops.h — view operations on TensorImpls (no data is touched, so they
// are backend independent). Each returns a fresh TensorImpl that shares the
// input's Storage, or a ShapeError status naming the op and the shapes.

#ifndef CUSTODY_CORE_VIEW_OPS_H_
#define CUSTODY_CORE_VIEW_OPS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/tensor_impl.h"

namespace custody::internal {

// A new TensorImpl over `src`'s storage (same dtype and stats).
ImplRef make_view(const TensorImpl& src, IntSpan sizes, IntSpan strides, int64_t storage_offset);

absl::StatusOr<ImplRef> view(const TensorImpl& t, IntSpan sizes);  // no copy, or ShapeError
absl::StatusOr<ImplRef> narrow(const TensorImpl& t, int64_t dim, int64_t start, int64_t length);
absl::StatusOr<ImplRef> select(const TensorImpl& t, int64_t dim, int64_t index);
absl::StatusOr<ImplRef> transpose(const TensorImpl& t, int64_t d0, int64_t d1);
absl::StatusOr<ImplRef> permute(const TensorImpl& t, IntSpan dims);
ImplRef squeeze(const TensorImpl& t);
absl::StatusOr<ImplRef> squeeze(const TensorImpl& t, int64_t dim);
absl::StatusOr<ImplRef> unsqueeze(const TensorImpl& t, int64_t dim);
absl::StatusOr<ImplRef> expand(const TensorImpl& t, IntSpan sizes);
// Sizes of flatten(start, end), validating dims.
absl::StatusOr<Dims> flatten_sizes(const TensorImpl& t, int64_t start, int64_t end);

// A KernelView-compatible description broadcast to `target` sizes.
Dims broadcast_to(const TensorImpl& t, IntSpan target);

}  // namespace custody::internal

#endif  // CUSTODY_CORE_VIEW_OPS_H_
