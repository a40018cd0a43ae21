// Copyright 2026 The custody Authors.
//
// core/shape.h — sizes, strides, dim order and the shape arithmetic every op
// shares: contiguous strides, checked element counts, dim wrapping and
// broadcasting. Sizes and strides are counted in elements, as in ATen.

#ifndef CUSTODY_CORE_SHAPE_H_
#define CUSTODY_CORE_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace custody {

// Sizes, strides and dim orders of up to 6 dims live inline (no allocation).
using Dims = absl::InlinedVector<int64_t, 6>;
using IntSpan = absl::Span<const int64_t>;

// Shape dynamism (ExecuTorch's TensorShapeDynamism).
//   STATIC          sizes never change after creation (rank-0 tensors are always STATIC)
//   DYNAMIC_BOUND   may be resized to at most the element count it had at creation
//   DYNAMIC_UNBOUND may be resized to any size; growing past capacity reallocates
enum class TensorShapeDynamism : uint8_t { STATIC = 0, DYNAMIC_BOUND = 1, DYNAMIC_UNBOUND = 2 };
const char* dynamism_name(TensorShapeDynamism d);

// "[2, 3]" — how every error message prints a shape.
std::string shape_str(IntSpan sizes);

// Row-major strides for `sizes` (size-0/1 dims get the stride they would have
// if they were larger, as ATen does).
Dims contiguous_strides(IntSpan sizes);

// Product of `sizes`; error (ShapeError) on a negative size or int64 overflow.
absl::StatusOr<int64_t> checked_numel(IntSpan sizes, const char* op);
// The product of `sizes` in *numel when every size is positive and the product
// fits in int64; false otherwise (then checked_numel says 0 or which error).
inline bool positive_numel(IntSpan sizes, int64_t* numel) {
  int64_t n = 1;
  bool ok = true;
  for (int64_t s : sizes) ok &= s > 0 && !__builtin_mul_overflow(n, s, &n);
  *numel = n;
  return ok;
}

// Number of elements a strided view spans in its storage (max offset + 1),
// 0 when any size is 0. Error on overflow.
absl::StatusOr<int64_t> storage_extent(IntSpan sizes, IntSpan strides, const char* op);

bool is_contiguous(IntSpan sizes, IntSpan strides);

// The dim order (outermost first) implied by strides: dims sorted by
// decreasing stride, ties broken by dim index (as ExecuTorch's dim_order_from_stride).
Dims dim_order_from_strides(IntSpan strides);

// Maps a possibly negative dim into [0, ndim). `ndim` 0 accepts -1 and 0.
absl::StatusOr<int64_t> wrap_dim(int64_t dim, int64_t ndim, const char* op);

// The broadcast shape of `a` and `b` (numpy rules) or a ShapeError naming `op`.
absl::StatusOr<Dims> broadcast_shapes(IntSpan a, IntSpan b, const char* op);

// Strides that view a tensor of shape `sizes`/`strides` as `target` (which it
// must broadcast to): stride 0 on broadcast dims.
Dims broadcast_strides(IntSpan sizes, IntSpan strides, IntSpan target);

// ATen's computeStride: the strides that let `old` be viewed as `new_sizes`
// without copying, or nullopt-equivalent (empty status) when it needs a copy.
bool compute_view_strides(IntSpan old_sizes, IntSpan old_strides, IntSpan new_sizes,
                          Dims* new_strides);

// Resolves a single -1 in `sizes` against `numel`; ShapeError when impossible.
absl::StatusOr<Dims> infer_size(IntSpan sizes, int64_t numel, const char* op);

}  // namespace custody

#endif  // CUSTODY_CORE_SHAPE_H_
