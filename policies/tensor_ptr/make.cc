// Copyright 2026 The custody Authors.

#include "policies/tensor_ptr/make.h"

#include <algorithm>

namespace custody::tensor_ptr::internal {

Dims resolve_strides(const char* op, IntSpan sizes, const std::vector<DimOrderType>& dim_order,
                     const std::vector<StridesType>& strides) {
  Dims from_order;
  if (!dim_order.empty()) {
    if (dim_order.size() != sizes.size()) {
      throw ShapeError(absl::StrFormat("%s: dim_order has %d entries but sizes %s have %d dims", op,
                                       dim_order.size(), shape_str(sizes), sizes.size()));
    }
    std::vector<bool> seen(sizes.size(), false);
    for (DimOrderType d : dim_order) {
      if (d >= sizes.size() || seen[d]) {
        throw ShapeError(absl::StrFormat("%s: dim_order is not a permutation of [0, %d)", op,
                                         sizes.size()));
      }
      seen[d] = true;
    }
    from_order.assign(sizes.size(), 0);
    int64_t s = 1;
    for (int64_t i = static_cast<int64_t>(dim_order.size()) - 1; i >= 0; --i) {
      from_order[dim_order[i]] = s;
      s *= std::max<int64_t>(sizes[dim_order[i]], 1);
    }
  }
  if (!strides.empty()) {
    if (strides.size() != sizes.size()) {
      throw ShapeError(absl::StrFormat("%s: strides %s and sizes %s have different lengths", op,
                                       shape_str(strides), shape_str(sizes)));
    }
    if (!from_order.empty() &&
        !std::equal(from_order.begin(), from_order.end(), strides.begin(), strides.end())) {
      throw ShapeError(absl::StrFormat("%s: strides %s disagree with dim_order (which implies %s)", op,
                                       shape_str(strides), shape_str(from_order)));
    }
    return Dims(strides.begin(), strides.end());
  }
  if (!from_order.empty()) return from_order;
  return contiguous_strides(sizes);
}

bool is_dense(IntSpan sizes, IntSpan strides) {
  if (strides.size() != sizes.size()) return false;
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return true;  // no elements
  // Innermost first; size-1 dims are never stepped over, so their strides do not matter.
  std::vector<size_t> dims;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != 1) dims.push_back(i);
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (size_t d : dims) {
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

void check_dense_strides(const char* op, IntSpan sizes, IntSpan strides) {
  if (strides.size() != sizes.size()) {
    throw ShapeError(absl::StrFormat("%s: strides %s and sizes %s have different lengths", op,
                                     shape_str(strides), shape_str(sizes)));
  }
  if (!is_dense(sizes, strides)) {
    throw ShapeError(absl::StrFormat(
        "%s: strides %s do not lay out sizes %s densely; data given by value is the tensor's "
        "memory, so its strides must be a permutation of row-major (wrap other layouts with "
        "from_blob)", op, shape_str(strides), shape_str(sizes)));
  }
}

void check_device(const char* op, Device device, Device backend_device, const char* backend_name) {
  if (device != backend_device) {
    throw DeviceError(absl::StrFormat(
        "%s: the data is on %s but a TensorPtr of backend %s lives on %s; use that device's "
        "backend as the first template argument (e.g. make_tensor_ptr<custody::Cuda>(...)), or "
        "clone_tensor_ptr_to<Backend>(t) to copy between devices",
        op, device.str(), backend_name, backend_device.str()));
  }
}

}  // namespace custody::tensor_ptr::internal
