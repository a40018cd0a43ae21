// Copyright 2026 The custody Authors.
//
// backends/cuda/internal/kernels.h — the CUDA backend's device kernels
// (kernels.cu, compiled by nvcc), called by cuda.cc on the backend's stream.
// Each takes the kernel arguments of core/backend.h (see "Kernel argument
// conventions" there) and returns once the work is queued: OkStatus, or a
// DeviceError for a launch that failed (cuda_status, internal/errors.h: Note
// [Device faults]) or a layout the kernels cannot take.
//
// Elementwise kernels merge dims that are contiguous for every operand (as
// the CPU loops do), then run one flat grid-stride loop when one dim is left,
// or a strided one with per-element index arithmetic otherwise.

#ifndef CUSTODY_BACKENDS_CUDA_INTERNAL_KERNELS_H_
#define CUSTODY_BACKENDS_CUDA_INTERNAL_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "absl/status/status.h"
#include "core/backend.h"

namespace custody::cuda_internal {

class DeviceAllocator;  // device_allocator.h

// Where and how wide to launch: the backend's stream, and the grid cap of the
// grid-stride loops (enough blocks to fill every SM).
struct Launch {
  cudaStream_t stream = nullptr;
  DeviceAllocator* allocator = nullptr;  // the backend's memory, for kernel scratch
  int max_blocks = 1024;
};

// Kernel scratch (CUB's temporary storage, matmul's dense copies) from the
// backend's allocator (DeviceAllocator::allocate_scratch), ordered on its
// stream, not counted as bytes in use; an OutOfMemoryError status naming `op`
// when the device has no room. At least one byte, so the pointer is never
// null. Defined in cuda.cc (host code).
absl::StatusOr<void*> scratch_allocate(const Launch& l, size_t bytes, const char* op);
// Back to the allocator once the work queued so far on the stream is done.
void scratch_free(const Launch& l, void* p);

absl::Status copy(const Launch& l, const KernelView& dst, const KernelView& src);
absl::Status fill(const Launch& l, const KernelView& dst, const Scalar& value);
absl::Status binary(const Launch& l, BinaryOp op, const KernelView& out, const KernelView& a,
                    const KernelView& b);
absl::Status binary_scalar(const Launch& l, BinaryOp op, const KernelView& out,
                           const KernelView& a, const Scalar& s, bool scalar_first);
absl::Status unary(const Launch& l, UnaryOp op, const KernelView& out, const KernelView& in);
absl::Status where(const Launch& l, const KernelView& out, const KernelView& cond,
                   const KernelView& a, const KernelView& b);
// CUB (DeviceReduce / DeviceSegmentedReduce) over any layout.
absl::Status reduce(const Launch& l, ReduceOp op, const KernelView& out, const KernelView& in);
absl::Status softmax(const Launch& l, const KernelView& out, const KernelView& in, int64_t dim,
                     bool log);
// matmul for the dtypes cuBLAS has no GEMM for (integers, bool): wrapping
// arithmetic, one thread per output element. float32/float64 go to cuBLAS (cuda.cc).
absl::Status matmul_integral(const Launch& l, const KernelView& out, const KernelView& a,
                             const KernelView& b);
// Checks the indices on the device and waits for the answer (one 16-byte
// copy), so a bad index is reported by this call with index_out_of_range()'s
// message; then gathers.
absl::Status index_select(const Launch& l, const KernelView& out, const KernelView& in,
                          int64_t dim, const KernelView& index);
absl::Status random(const Launch& l, const KernelView& out, RandomDist dist,
                    const RandomParams& params);

}  // namespace custody::cuda_internal

#endif  // CUSTODY_BACKENDS_CUDA_INTERNAL_KERNELS_H_
