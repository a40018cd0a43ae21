// Copyright 2026 The custody Authors.
//
// backends/cuda/internal/errors.h — how the CUDA backend turns CUDA runtime
// error codes into custody statuses. Host code, and pure: every function here
// works from an error code alone, so the mapping is tested on machines without
// a GPU (errors_test) with the codes a device would return.
//
// Note [Device faults]
// ~~~~~~~~~~~~~~~~~~~~
// Kernels run asynchronously: a fault inside one (an illegal address, a
// device-side assert) is noticed by whatever CUDA call comes next — a later
// launch, a copy, a synchronize — not by the launch that caused it. Such
// errors are *sticky*: the CUDA context is unusable for the rest of the
// process and every later call returns the same code. So:
//
//   * every backend entry point first looks at the pending error
//     (cudaPeekAtLastError): a sticky one is reported as "an earlier kernel
//     faulted", naming the op that found it, never as that op's own failure;
//     a non-sticky one left by code outside the backend is cleared, not
//     blamed on the op;
//   * every launch and every library call (cuBLAS, CUB, cudaMemcpyAsync, the
//     allocator) is checked right after it, and its error cleared, under the
//     op's name: nothing of ours is left for the next op to read;
//   * the message of a sticky error says how to find the kernel that faulted:
//     rerun with CUDA_LAUNCH_BLOCKING=1, which makes every launch wait for its
//     kernel, so the fault is reported by the op that launched it
//     (tools/gpu/README.md, "Triage").
//
// Note [Impossible allocations]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A request the device cannot serve must be an OutOfMemoryError on every
// path, whatever the driver answers: cudaMallocFromPoolAsync reports a size
// past what the device could ever map as cudaErrorMemoryAllocation, as
// cudaErrorInvalidValue or as cudaErrorNotSupported depending on the size, the
// driver and the allocator (pool or cudaMalloc). The allocator therefore
// refuses a request larger than the device's total memory before asking, and
// maps each of those three codes from an allocation call to ResourceExhausted
// (core's OutOfMemoryError, with its reclaim-and-retry).

#ifndef CUSTODY_BACKENDS_CUDA_INTERNAL_ERRORS_H_
#define CUSTODY_BACKENDS_CUDA_INTERNAL_ERRORS_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace custody::cuda_internal {

// Whether `err` leaves the CUDA context unusable (Note [Device faults]).
bool is_sticky_error(cudaError_t err);

// A DeviceError status for a failed CUDA call: "cuda <what>: <error> (<name>)",
// plus, for a sticky error, that the context is lost and how to triage it.
// Clears the runtime's last (non-sticky) error.
absl::Status cuda_status(const char* what, cudaError_t err);

// What a backend entry point does with an error pending before it starts
// (cudaPeekAtLastError): OK for none; a non-sticky one is cleared (not ours)
// and OK; a sticky one is a DeviceError saying an earlier kernel faulted and
// that `op` found it.
absl::Status pending_error_status(const char* op, cudaError_t pending);

// Whether `err`, returned by an allocation call (cudaMallocFromPoolAsync,
// cudaMalloc), means the device cannot serve the request
// (Note [Impossible allocations]).
bool is_allocation_failure(cudaError_t err);

// What the allocator knows when it refuses a request, for the message.
struct AllocationFailure {
  int device = 0;
  size_t bytes = 0;             // what was asked
  int64_t bytes_in_use = 0;     // by live tensors (exact)
  int64_t live_tensors = 0;
  int64_t reserved_bytes = 0;   // held by the allocator (pool or cache)
  int64_t total_bytes = 0;      // the device's memory; 0 when unknown
  const char* scratch_for = nullptr;  // an op's kernel scratch, or nullptr for a tensor
};

// ResourceExhausted (core's OutOfMemoryError): how much was asked, against
// what the device has and holds, and what to do about it.
absl::Status out_of_memory_status(const AllocationFailure& f);

}  // namespace custody::cuda_internal

#endif  // CUSTODY_BACKENDS_CUDA_INTERNAL_ERRORS_H_
