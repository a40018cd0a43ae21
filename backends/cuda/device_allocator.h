// Copyright 2026 The custody Authors.
//
// backends/cuda/device_allocator.h — the CUDA backend's memory: a
// stream-ordered pool (cudaMallocAsync / cudaFreeAsync on the backend's one
// stream, from a pool of our own on the device: cudaMemPoolCreate, so that
// its release threshold and reclaim() leave other libraries' memory alone).
// Host code only: compiled by the host
// compiler against the CUDA runtime, built with --config=cuda.
//
//   DeviceAllocator& a = DeviceAllocator::for_device(0, &stats);
//   absl::StatusOr<void*> p = a.allocate(bytes);   // ordered on a.stream()
//   a.deallocate(*p, bytes);                        // back to the pool, not the driver
//   a.reclaim();                                    // cached pool memory back to the driver
//
// Note [Stream-ordered pool]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every kernel and copy of the backend runs on one stream (Note [Device
// contract], core/backend.h), so allocation and free are ordered with the work
// that uses the memory: a block freed after the kernel that reads it is reused
// only by work queued later, with no synchronization. The pool keeps freed
// memory for reuse up to its release threshold (default: keep everything,
// like PyTorch's caching allocator); reclaim() synchronizes the stream and
// trims the pool to what is in use. Stats (MemoryStats, core/stats.h): bytes
// in use are exact (on_alloc/on_free with the requested size); reserved bytes
// are the pool's reserved memory as the driver reports it, refreshed on every
// allocation, free and reclaim. An allocation the pool cannot serve first
// trims the pool (reclaim()) and tries once more, counted as a retry; core
// counts the OOMs and the retries after its reclaimers (e.g. gc's collection).
// A failed allocation returns ResourceExhausted saying how much was asked, how
// much is in use and reserved, by how many live tensors, and what to do.

#ifndef CUSTODY_BACKENDS_CUDA_DEVICE_ALLOCATOR_H_
#define CUSTODY_BACKENDS_CUDA_DEVICE_ALLOCATOR_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/stats.h"

namespace custody::cuda_internal {

// Whether a CUDA device can be used; else a status saying why (no driver, no
// device), which tests print when they skip.
absl::Status device_available();

class DeviceAllocator {
 public:
  // The allocator of `device`, made on first use (its stream and pool set up
  // then); `stats` (not owned) receives its accounting.
  static absl::StatusOr<DeviceAllocator*> for_device(int device, MemoryStats* stats);

  absl::StatusOr<void*> allocate(size_t bytes);
  void deallocate(void* p, size_t bytes);
  // Waits for the stream, then returns the pool's unused memory to the driver;
  // the bytes returned.
  int64_t reclaim();
  // Memory the pool keeps cached after a free (cudaMemPoolAttrReleaseThreshold).
  absl::Status set_release_threshold(uint64_t bytes);
  // The pool's reserved memory, as the driver reports it.
  int64_t reserved_bytes() const;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  // The backend's own pool on this device (kernel scratch comes from it too).
  cudaMemPool_t pool() const { return pool_; }

 private:
  DeviceAllocator(int device, MemoryStats* stats, cudaStream_t stream, cudaMemPool_t pool)
      : device_(device), stats_(stats), stream_(stream), pool_(pool) {}
  void refresh_reserved();

  const int device_;
  MemoryStats* const stats_;
  const cudaStream_t stream_;
  const cudaMemPool_t pool_;
};

}  // namespace custody::cuda_internal

#endif  // CUSTODY_BACKENDS_CUDA_DEVICE_ALLOCATOR_H_
