// Copyright 2026 The custody Authors.

#include "core/shape.h"

#include <algorithm>
#include <numeric>

#include "absl/base/optimization.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace custody {

const char* dynamism_name(TensorShapeDynamism d) {
  switch (d) {
    case TensorShapeDynamism::STATIC: return "STATIC";
    case TensorShapeDynamism::DYNAMIC_BOUND: return "DYNAMIC_BOUND";
    case TensorShapeDynamism::DYNAMIC_UNBOUND: return "DYNAMIC_UNBOUND";
  }
  return "?";
}

std::string shape_str(IntSpan sizes) { return "[" + absl::StrJoin(sizes, ", ") + "]"; }

Dims contiguous_strides(IntSpan sizes) {
  Dims strides(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    // Saturate instead of overflowing: such shapes fail checked_numel anyway.
    if (__builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s)) s = INT64_MAX;
  }
  return strides;
}

absl::StatusOr<int64_t> checked_numel(IntSpan sizes, const char* op) {
  // One pass; a zero size makes the count 0 even where the others overflow.
  int64_t n = 1;
  bool negative = false, zero = false, overflow = false;
  for (int64_t s : sizes) {
    negative |= s < 0;
    zero |= s == 0;
    overflow |= __builtin_mul_overflow(n, s, &n);
  }
  if (ABSL_PREDICT_TRUE(!(negative | zero | overflow))) return n;
  for (int64_t s : sizes) {
    if (s < 0) return ShapeStatus("%s: negative size %d in shape %s", op, s, shape_str(sizes));
  }
  if (zero) return 0;
  return ShapeStatus(
      "%s: shape %s has more elements than fit in int64 (numel overflow); use smaller sizes", op,
      shape_str(sizes));
}

absl::StatusOr<int64_t> storage_extent(IntSpan sizes, IntSpan strides, const char* op) {
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (strides[i] < 0) {
      return ShapeStatus("%s: negative stride %d in strides %s", op, strides[i], shape_str(strides));
    }
    int64_t span;
    if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) ||
        __builtin_add_overflow(extent, span, &extent)) {
      return ShapeStatus("%s: sizes %s with strides %s overflow int64", op, shape_str(sizes),
                         shape_str(strides));
    }
  }
  return extent;
}

bool is_contiguous(IntSpan sizes, IntSpan strides) {
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] == 0) return true;
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

Dims dim_order_from_strides(IntSpan strides) {
  Dims order(strides.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
  return order;
}

absl::StatusOr<int64_t> wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  if (dim < -n || dim >= n) {
    return MakeStatus(ErrorKind::kShape, absl::StatusCode::kOutOfRange,
                      absl::StrFormat("%s: dim %d is out of range for a tensor of rank %d "
                                      "(expected a dim in [%d, %d])",
                                      op, dim, ndim, -n, n - 1));
  }
  return dim < 0 ? dim + n : dim;
}

absl::StatusOr<Dims> broadcast_shapes(IntSpan a, IntSpan b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return ShapeStatus("%s: shapes %s and %s are not broadcastable (size %d vs %d at dim %d)",
                         op, shape_str(a), shape_str(b), da, db, i);
    }
  }
  return out;
}

Dims broadcast_strides(IntSpan sizes, IntSpan strides, IntSpan target) {
  Dims out(target.size(), 0);
  const size_t lead = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    out[lead + i] = (sizes[i] == 1 && target[lead + i] != 1) ? 0 : strides[i];
  }
  return out;
}

bool compute_view_strides(IntSpan old_sizes, IntSpan old_strides, IntSpan new_sizes,
                          Dims* new_strides) {
  new_strides->assign(new_sizes.size(), 0);
  if (old_sizes.empty()) {
    for (auto& s : *new_strides) s = 1;
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    if (std::equal(old_sizes.begin(), old_sizes.end(), new_sizes.begin(), new_sizes.end())) {
      new_strides->assign(old_strides.begin(), old_strides.end());
      return true;
    }
    *new_strides = contiguous_strides(new_sizes);
    return true;
  }
  // Walk chunks of old dims that are contiguous with each other (ATen's algorithm).
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        (*new_strides)[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

absl::StatusOr<Dims> infer_size(IntSpan sizes, int64_t numel, const char* op) {
  Dims out(sizes.begin(), sizes.end());
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (infer >= 0) return ShapeStatus("%s: only one dimension can be -1, got %s", op, shape_str(sizes));
      infer = static_cast<int64_t>(i);
    } else if (sizes[i] < 0) {
      return ShapeStatus("%s: invalid size %d in shape %s", op, sizes[i], shape_str(sizes));
    } else if (__builtin_mul_overflow(known, sizes[i], &known)) {
      return ShapeStatus("%s: shape %s overflows int64", op, shape_str(sizes));
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      return ShapeStatus("%s: shape %s is invalid for input of size %d", op, shape_str(sizes), numel);
    }
    out[infer] = numel / known;
  } else if (known != numel) {
    return ShapeStatus("%s: shape %s is invalid for input of size %d", op, shape_str(sizes), numel);
  }
  return out;
}

}  // namespace custody
