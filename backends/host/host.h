// Copyright 2026 The custody Authors.
//
// backends/host/host.h — what the host backends (onednn, aten, opaque's
// kernels) share and core must not do itself, since it reads or writes backend
// memory (core never does: Note [Device contract] in core/backend.h):
//
//   host::check_indices(in, dim, index)     index_select's bounds check, reading
//                                           the index tensor on the host
//   host::random_sample<T>(dist, p, i)      element i of a random stream, for
//                                           kernels that fill host memory
//
// A device backend does the same on the device: the same bounds and message
// (index_out_of_range), the same Philox function of (seed, offset, i).

#ifndef CUSTODY_BACKENDS_HOST_HOST_H_
#define CUSTODY_BACKENDS_HOST_HOST_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/backend.h"
#include "core/philox.h"

namespace custody::host {

// index_select on host memory: every index of the 1-D int64 `index` lies in
// [0, in.sizes[dim]); else index_out_of_range("index_select", ...) for the
// first that does not.
absl::Status check_indices(const KernelView& in, int64_t dim, const KernelView& index);

// a + b * c rounded twice, as the host computes it: nvcc would fuse it into
// one fma on the device (rounded once), and the values would differ from the
// CPU backends' for ranges other than [0, 1).
CUSTODY_HOST_DEVICE inline double add_product(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, __dmul_rn(b, c));
#else
  return a + b * c;
#endif
}

// Element `i` of the random stream `p` as a T (Philox 4x32-10 via
// core/philox.h): one seed gives the same values on every backend. Host and
// device code (the CUDA kernels call it too).
template <class T>
CUSTODY_HOST_DEVICE inline T random_sample(RandomDist dist, const RandomParams& p, uint64_t i) {
  switch (dist) {
    case RandomDist::kUniform:
      return static_cast<T>(
          add_product(p.low, p.high - p.low, philox::uniform01(philox::bits(p.seed, p.offset, i))));
    case RandomDist::kNormal:
      return static_cast<T>(add_product(p.low, p.high, philox::normal(p.seed, p.offset, i)));
    case RandomDist::kRandInt:
      return static_cast<T>(philox::randint(p.seed, p.offset, i, p.int_low, p.int_high));
  }
  return T();
}

}  // namespace custody::host

#endif  // CUSTODY_BACKENDS_HOST_HOST_H_
