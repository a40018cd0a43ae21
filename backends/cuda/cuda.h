// Copyright 2026 The custody Authors.
//
// backends/cuda/cuda.h — `custody::Cuda`, the GPU backend: tensors in CUDA
// device memory, kernels on one CUDA stream per process (device 0).
//
//   using T = custody::BasicTensor<custody::scope::Policy, custody::Cuda>;
//   T a = T::rand({4096, 4096}), b = T::rand({4096, 4096});
//   T c = a.matmul(b).relu();                  // cuBLAS, then our elementwise kernel
//   float s = c.sum().item<float>();           // CUB; item() copies 4 bytes to the host
//
// Memory comes from a stream-ordered pool (device_allocator.h): freeing a
// tensor returns its block to the pool, ordered after the work that used it;
// Cuda::reclaim() gives cached blocks back to the driver. stats() separates
// bytes in use (exact) from the pool's reserved bytes.
//
// Kernels (internal/kernels.cu): our own elementwise, broadcast and strided
// kernels (every dtype, ATen's semantics, the same element functions as the
// CPU loops: core/element_ops.h), CUB for reductions and argmax/argmin,
// cuBLAS for float32/float64 matmul (batched, transposed views without a
// copy), a block-per-row softmax, index_select with the bounds check on the
// device, and Philox random numbers giving the CPU backends' values for the
// same seed (Note [Device contract], core/backend.h). A kernel takes views of
// at most 16 dims once dims contiguous for every operand are merged (a
// 17-dim view that cannot be merged is refused with an error naming the op;
// the CPU backends have no such bound).
//
// Ordering (Note [Device contract]): kernels are queued on the stream and
// return before they run; copy_to_host / copy_from_host wait for the stream.
// A kernel's Status reports launch errors; a fault inside a kernel surfaces at
// the next CUDA call (a copy, synchronize(), the next op) as a DeviceError
// saying an earlier kernel faulted; the context is unusable from then on, and
// CUDA_LAUNCH_BLOCKING=1 makes the op that launched it report it
// (Note [Device faults], internal/errors.h).
//
// Without a GPU (or driver) available() is false, and the conformance tests
// skip saying so; allocate() fails with the reason.
//
// Built only with --config=cuda (//tools/build_defs:cuda.bzl).

#ifndef CUSTODY_BACKENDS_CUDA_CUDA_H_
#define CUSTODY_BACKENDS_CUDA_CUDA_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"

namespace custody {

struct Cuda {
  static constexpr const char* name = "cuda";
  static Device device() { return Device{DeviceType::kCUDA, 0}; }
  // Whether a CUDA device can be used (decided once per process).
  static bool available();
  // Why not, when available() is false ("no CUDA device found: ...").
  static absl::Status availability();

  // allocate, deallocate, copy_to_host, copy_from_host, stats and the kernels
  // (Note [The kernel interface, declared once], core/backend.h). The copies
  // are synchronous with the host, they wait for the stream (Note [Device contract]).
  CUSTODY_DECLARE_BACKEND_FUNCTIONS()
  // Waits for every kernel and copy queued so far; reports a fault in any of them.
  static absl::Status synchronize();

  // Returns the pool's cached, unused memory to the driver (after waiting for
  // the stream); the bytes returned.
  static int64_t reclaim();
  // How much freed memory the pool keeps cached (default: all of it).
  static absl::Status set_release_threshold(uint64_t bytes);
  // Which allocator runs, and why ("stream-ordered pool (...)", or "cudaMalloc
  // with a block cache (...)" where the device has no memory pools:
  // device_allocator.h), or why there is none.
  static std::string allocator_name();

};

static_assert(Backend<Cuda>);

}  // namespace custody

#endif  // CUSTODY_BACKENDS_CUDA_CUDA_H_
