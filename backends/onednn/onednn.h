// Copyright 2026 The custody Authors.
//
// backends/onednn/onednn.h — `custody::Onednn`, the CPU backend.
//
// Threads: primitives run on custody::num_threads() OpenMP threads
// (core/threads.h), re-applied on the calling thread before each one.
// Memory: 64-byte aligned host allocations from a size-classed cache
// (core/host_allocator.h), counted exactly in `stats()`.
// Kernels: oneDNN primitives (binary, eltwise, matmul, softmax,
// reorder) for large float32 work, with primitive descriptors cached by shape;
// a direct loop path (backends/host/loops.h) for tiny tensors, where oneDNN's
// dispatch would cost more than the work, for reductions (vector lanes summed
// in double, split over the threads), and for every other dtype and layout.
//
//   using T = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Onednn>;

#ifndef CUSTODY_BACKENDS_ONEDNN_ONEDNN_H_
#define CUSTODY_BACKENDS_ONEDNN_ONEDNN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"

namespace custody {

struct Onednn {
  static constexpr const char* name = "onednn";
  static Device device() { return Device{DeviceType::kCPU, 0}; }
  static bool available() { return true; }

  // allocate, deallocate, copy_to_host, copy_from_host, stats and the kernels:
  // Note [The kernel interface, declared once], core/backend.h.
  CUSTODY_DECLARE_BACKEND_FUNCTIONS()
  static absl::Status synchronize() { return absl::OkStatus(); }
  // Host memory is cached by size class (core/host_allocator.h): a freed block
  // is reused by the next request of its class, pages still mapped.
  // stats().reserved_bytes includes the cache; reclaim() returns it to the
  // system (the bytes returned); set_cache_limit(0) turns caching off.
  static int64_t reclaim();
  static int64_t cached_bytes();
  static void set_cache_limit(int64_t bytes);

  // Element count from which float32 work goes to oneDNN primitives (below it,
  // the direct loops). Tests lower it to exercise both paths on small inputs.
  static void set_primitive_threshold(int64_t numel);
  static int64_t primitive_threshold();
  // Number of oneDNN primitive executions so far (to verify the path taken).
  static int64_t primitive_calls();
  // "key -> implementation" for every primitive created so far (oneDNN's
  // implementation names, e.g. "brg:avx512_core", "gemm:jit", "jit:uni"). Never
  // a "ref" one: those are rejected and the fallback runs instead (Note [No
  // reference kernels] in onednn.cc); rejected_primitives() counts them.
  static std::vector<std::string> implementations();
  static int64_t rejected_primitives();
};

static_assert(Backend<Onednn>);

}  // namespace custody

#endif  // CUSTODY_BACKENDS_ONEDNN_ONEDNN_H_
