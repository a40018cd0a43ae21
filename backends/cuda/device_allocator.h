// Copyright 2026 The custody Authors.
//
// backends/cuda/device_allocator.h — the CUDA backend's memory: a
// stream-ordered pool (cudaMallocFromPoolAsync / cudaFreeAsync on the
// backend's one stream, from a pool of our own on the device: cudaMemPoolCreate,
// so that its release threshold and reclaim() leave other libraries' memory
// alone), or, on a device without memory pools, cudaMalloc/cudaFree behind a
// block cache with the same semantics. Host code only: compiled by the host
// compiler against the CUDA runtime, built with --config=cuda.
//
//   DeviceAllocator& a = DeviceAllocator::for_device(0, &stats);
//   absl::StatusOr<void*> p = a.allocate(bytes);   // ordered on a.stream()
//   a.deallocate(*p, bytes);                        // back to the pool, not the driver
//   a.reclaim();                                    // cached memory back to the driver
//   a.name();                                       // which allocator runs, and why
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
// A request larger than the device, or one the driver refuses with any of the
// codes of Note [Impossible allocations] (internal/errors.h), returns
// ResourceExhausted saying how much was asked, how much is in use and
// reserved, by how many live tensors, and what to do.
//
// Note [Without memory pools]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Some virtualised GPUs (and old drivers) report
// cudaDevAttrMemoryPoolsSupported = 0, or fail cudaMemPoolCreate with
// cudaErrorNotSupported, or make a pool that then refuses allocations: set-up
// therefore probes a new pool with one small allocation and free (synchronized)
// before using it, so such a pool falls back here at set-up, saying why in
// name(), instead of failing the first tensor as "out of memory allocating 4
// bytes". A probe that fails with a sticky error (Note [Device faults]) is
// that error: no allocator would work. There the allocator uses cudaMalloc and cudaFree
// behind a cache of freed blocks keyed by their rounded size: a freed block
// is kept for the next request of its size (reuse is ordered on the one stream
// as with the pool: later work on the same stream cannot overtake earlier
// work), reserved bytes are every byte obtained from cudaMalloc and not yet
// given back, reclaim() synchronizes and cudaFree's the cached blocks, the
// release threshold caps the cached bytes, and a failed cudaMalloc reclaims and
// retries once. CUSTODY_CUDA_ALLOCATOR=malloc forces this path on any device
// (so it can be tested where pools work); =pool refuses to fall back.
// pool_fallback() is the decision, from the error codes alone (tested without
// a GPU: device_allocator_fallback_test).

#ifndef CUSTODY_BACKENDS_CUDA_DEVICE_ALLOCATOR_H_
#define CUSTODY_BACKENDS_CUDA_DEVICE_ALLOCATOR_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/stats.h"

namespace custody::cuda_internal {

// Whether a CUDA device can be used; else a status saying why (no driver, no
// device), which tests print when they skip.
absl::Status device_available();

// The pool's set-up step that failed: cudaMemPoolCreate, or the probe (a
// kPoolProbeBytes cudaMallocFromPoolAsync, its cudaFreeAsync and a stream
// synchronize).
enum class PoolStep { kCreate, kProbe };
inline constexpr size_t kPoolProbeBytes = 256;

// What set-up does when `step` failed with `err` on `device`, given
// CUSTODY_CUDA_ALLOCATOR=`want` ("", "pool" or "malloc"; Note [Without memory
// pools]): the name of the cudaMalloc path, saying why, when falling back is
// right; an error under want == "pool", for a sticky error (a device fault: no
// allocator would work), and for a cudaMemPoolCreate failure other than
// cudaErrorNotSupported.
absl::StatusOr<std::string> pool_fallback(int device, std::string_view want, PoolStep step,
                                          cudaError_t err);

class DeviceAllocator {
 public:
  // The allocator of `device`, made on first use (its stream and pool set up
  // then); `stats` (not owned) receives its accounting.
  static absl::StatusOr<DeviceAllocator*> for_device(int device, MemoryStats* stats);

  // Device memory for a tensor, counted in the stats.
  absl::StatusOr<void*> allocate(size_t bytes);
  void deallocate(void* p, size_t bytes);
  // Kernel scratch for `op` (CUB's temporaries, dense copies), from the same
  // memory, not counted as bytes in use; freed stream-ordered.
  absl::StatusOr<void*> allocate_scratch(size_t bytes, const char* op);
  void deallocate_scratch(void* p);
  // Waits for the stream, then returns the unused cached memory to the
  // driver; the bytes returned.
  int64_t reclaim();
  // Memory kept cached after a free (the pool's cudaMemPoolAttrReleaseThreshold,
  // or the cache's cap without pools).
  absl::Status set_release_threshold(uint64_t bytes);
  // Memory held from the driver, as the driver reports it (pool), or as
  // counted (cache).
  int64_t reserved_bytes() const;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  // The device's memory (cudaMemGetInfo's total at set-up).
  int64_t total_bytes() const { return total_bytes_; }
  // Whether the stream-ordered pool runs (else Note [Without memory pools]).
  bool uses_pool() const { return pool_ != nullptr; }
  // Which allocator runs, and why: for logs and the GPU preflight.
  const std::string& name() const { return name_; }

 private:
  DeviceAllocator(int device, MemoryStats* stats, cudaStream_t stream, cudaMemPool_t pool,
                  int64_t total_bytes, std::string name)
      : device_(device),
        stats_(stats),
        stream_(stream),
        pool_(pool),
        total_bytes_(total_bytes),
        name_(std::move(name)) {}

  // One attempt; the CUDA error code (cudaSuccess with *p set).
  cudaError_t try_allocate(size_t bytes, void** p);
  // try_allocate, then reclaim() and once more on an allocation failure;
  // `*retried` says whether the second attempt succeeded.
  cudaError_t allocate_with_trim(size_t bytes, void** p, bool* retried);
  void free_block(void* p);
  // A block for a tensor (scratch_for null: retries counted) or for `scratch_for`'s kernel scratch.
  absl::StatusOr<void*> allocate_block(size_t bytes, const char* scratch_for);
  absl::Status refuse(size_t bytes, const char* scratch_for) const;
  void refresh_reserved();

  const int device_;
  MemoryStats* const stats_;
  const cudaStream_t stream_;
  const cudaMemPool_t pool_;  // null without memory pools
  const int64_t total_bytes_;
  const std::string name_;

  // Note [Without memory pools]: the block cache (unused with a pool).
  mutable std::mutex mu_;
  absl::flat_hash_map<void*, size_t> block_bytes_;            // every block we hold: its size
  absl::flat_hash_map<size_t, std::vector<void*>> cached_;    // freed blocks by size
  int64_t cached_bytes_ = 0, driver_bytes_ = 0;
  uint64_t release_threshold_ = UINT64_MAX;
};

}  // namespace custody::cuda_internal

#endif  // CUSTODY_BACKENDS_CUDA_DEVICE_ALLOCATOR_H_
