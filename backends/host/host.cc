// Copyright 2026 The custody Authors.

#include "backends/host/host.h"

namespace custody::host {

absl::Status check_indices(const KernelView& in, int64_t dim, const KernelView& index) {
  const int64_t* idx = static_cast<const int64_t*>(index.data);
  const int64_t size = in.sizes[dim];
  for (int64_t i = 0; i < index.sizes[0]; ++i) {
    const int64_t v = idx[i * index.strides[0]];
    if (v < 0 || v >= size) return index_out_of_range("index_select", v, dim, size, in.sizes);
  }
  return absl::OkStatus();
}

}  // namespace custody::host
