// Copyright 2026 The custody Authors.

#include "backends/cuda/device_allocator.h"

#include <array>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include "absl/strings/str_format.h"
#include "backends/cuda/internal/errors.h"

namespace custody::cuda_internal {
namespace {

constexpr int kMaxDevices = 64;
// cudaMalloc returns 256-byte aligned blocks; the cache keys blocks by their
// size rounded up to this, so nearby sizes share blocks.
constexpr size_t kCacheGranule = 512;

size_t round_up(size_t bytes) {
  const size_t request = bytes == 0 ? 1 : bytes;  // a 0-byte request gets a distinct block
  return (request + kCacheGranule - 1) / kCacheGranule * kCacheGranule;
}

// Note [Without memory pools]: one small allocation and free from the new
// pool, waited for; the pool trimmed back after, so it starts empty.
cudaError_t probe_pool(cudaMemPool_t pool, cudaStream_t stream) {
  void* p = nullptr;
  cudaError_t err = cudaMallocFromPoolAsync(&p, kPoolProbeBytes, pool, stream);
  if (err == cudaSuccess) err = cudaFreeAsync(p, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err == cudaSuccess && cudaMemPoolTrimTo(pool, 0) != cudaSuccess) (void)cudaGetLastError();
  return err;
}

}  // namespace

absl::Status device_available() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // reset the runtime's last-error state
    return absl::UnavailableError(
        absl::StrFormat("no CUDA device found: %s", cudaGetErrorString(err)));
  }
  if (count == 0) return absl::UnavailableError("no CUDA device found: the driver reports 0 devices");
  return absl::OkStatus();
}

absl::StatusOr<std::string> pool_fallback(int device, std::string_view want, PoolStep step,
                                          cudaError_t err) {
  const char* what = step == PoolStep::kCreate ? "cudaMemPoolCreate" : "memory pool probe";
  if (is_sticky_error(err)) return cuda_status(what, err);
  if (want == "pool") {
    return absl::UnavailableError(absl::StrFormat(
        "cuda:%d: CUSTODY_CUDA_ALLOCATOR=pool, but %s: %s (%s)", device,
        step == PoolStep::kCreate
            ? std::string("cudaMemPoolCreate failed")
            : absl::StrFormat("the new pool refused a %d-byte allocation and free", kPoolProbeBytes),
        cudaGetErrorString(err), cudaGetErrorName(err)));
  }
  if (step == PoolStep::kCreate) {
    if (err != cudaErrorNotSupported) return cuda_status(what, err);
    return std::string("cudaMalloc with a block cache (cudaMemPoolCreate: not supported)");
  }
  return absl::StrFormat(
      "cudaMalloc with a block cache (the memory pool refused a %d-byte probe allocation: %s)",
      kPoolProbeBytes, cudaGetErrorName(err));
}

absl::StatusOr<DeviceAllocator*> DeviceAllocator::for_device(int device, MemoryStats* stats) {
  static std::array<DeviceAllocator*, kMaxDevices> allocators{};  // immortal, like the backend
  static std::mutex mu;
  if (device < 0 || device >= kMaxDevices) {
    return absl::InvalidArgumentError(absl::StrFormat("cuda: device index %d out of range", device));
  }
  std::lock_guard<std::mutex> lock(mu);
  if (allocators[device] != nullptr) return allocators[device];
  const char* env = std::getenv("CUSTODY_CUDA_ALLOCATOR");
  const std::string_view want = env == nullptr ? "" : env;
  if (want != "" && want != "pool" && want != "malloc") {
    return absl::InvalidArgumentError(absl::StrFormat(
        "CUSTODY_CUDA_ALLOCATOR=%s: allowed values are 'pool' (the stream-ordered pool, no "
        "fallback) and 'malloc' (cudaMalloc with a block cache); unset: the pool where the device "
        "supports it",
        want));
  }
  if (absl::Status s = device_available(); !s.ok()) return s;
  if (cudaError_t err = cudaSetDevice(device); err != cudaSuccess) return cuda_status("cudaSetDevice", err);
  cudaStream_t stream = nullptr;
  if (cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); err != cudaSuccess) {
    return cuda_status("cudaStreamCreateWithFlags", err);
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    total_bytes = 0;  // unknown: no early refusal, the driver decides
  }
  int pools_supported = 0;
  if (cudaDeviceGetAttribute(&pools_supported, cudaDevAttrMemoryPoolsSupported, device) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    pools_supported = 0;
  }
  cudaMemPool_t pool = nullptr;
  std::string name;
  if (want == "malloc") {
    name = "cudaMalloc with a block cache (CUSTODY_CUDA_ALLOCATOR=malloc)";
  } else if (pools_supported == 0) {
    if (want == "pool") {
      return absl::UnavailableError(absl::StrFormat(
          "cuda:%d: CUSTODY_CUDA_ALLOCATOR=pool, but the device does not support memory pools "
          "(cudaDevAttrMemoryPoolsSupported = 0)",
          device));
    }
    name = "cudaMalloc with a block cache (the device does not support memory pools)";
  } else {
    // A pool of our own, not the device's default one: other libraries in the
    // process that use cudaMallocAsync keep their own threshold, and reserved
    // bytes and reclaim() count only ours.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (const cudaError_t err = cudaMemPoolCreate(&pool, &props); err != cudaSuccess) {
      (void)cudaGetLastError();
      pool = nullptr;
      absl::StatusOr<std::string> fallback = pool_fallback(device, want, PoolStep::kCreate, err);
      if (!fallback.ok()) return fallback.status();
      name = *std::move(fallback);
    } else {
      // Keep freed memory cached (reclaim() gives it back), as PyTorch's allocator does.
      uint64_t keep_all = std::numeric_limits<uint64_t>::max();
      if (cudaError_t e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
          e != cudaSuccess) {
        return cuda_status("cudaMemPoolSetAttribute(release threshold)", e);
      }
      if (const cudaError_t probe = probe_pool(pool, stream); probe != cudaSuccess) {
        (void)cudaGetLastError();
        absl::StatusOr<std::string> fallback = pool_fallback(device, want, PoolStep::kProbe, probe);
        if (!fallback.ok()) return fallback.status();
        if (cudaMemPoolDestroy(pool) != cudaSuccess) (void)cudaGetLastError();
        pool = nullptr;
        name = *std::move(fallback);
      } else {
        name = "stream-ordered pool (cudaMallocFromPoolAsync)";
      }
    }
  }
  allocators[device] = new DeviceAllocator(device, stats, stream, pool,
                                           static_cast<int64_t>(total_bytes), std::move(name));
  return allocators[device];
}

cudaError_t DeviceAllocator::try_allocate(size_t bytes, void** p) {
  if (pool_ != nullptr) return cudaMallocFromPoolAsync(p, bytes == 0 ? 1 : bytes, pool_, stream_);
  const size_t size = round_up(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cached_.find(size);
    if (it != cached_.end() && !it->second.empty()) {
      *p = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= static_cast<int64_t>(size);
      return cudaSuccess;
    }
  }
  const cudaError_t err = cudaMalloc(p, size);
  if (err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mu_);
  block_bytes_[*p] = size;
  driver_bytes_ += static_cast<int64_t>(size);
  return cudaSuccess;
}

cudaError_t DeviceAllocator::allocate_with_trim(size_t bytes, void** p, bool* retried) {
  *retried = false;
  cudaError_t err = try_allocate(bytes, p);
  if (is_allocation_failure(err)) {
    // Cached blocks that do not fit this request (or the other pools on the
    // device) may be in the way: give them back to the driver and try once more.
    (void)cudaGetLastError();
    (void)reclaim();
    err = try_allocate(bytes, p);
    *retried = err == cudaSuccess;
  }
  return err;
}

absl::Status DeviceAllocator::refuse(size_t bytes, const char* scratch_for) const {
  (void)cudaGetLastError();  // core counts the OOM (allocate_with_retry)
  const StatsSnapshot s = stats_->snapshot();
  AllocationFailure f;
  f.device = device_;
  f.bytes = bytes;
  f.bytes_in_use = s.bytes_in_use;
  f.live_tensors = s.live_tensors;
  f.reserved_bytes = reserved_bytes();
  f.total_bytes = total_bytes_;
  f.scratch_for = scratch_for;
  return out_of_memory_status(f);
}

absl::StatusOr<void*> DeviceAllocator::allocate_block(size_t bytes, const char* scratch_for) {
  // Note [Impossible allocations]: more than the device has is refused before asking.
  if (total_bytes_ > 0 && bytes > static_cast<size_t>(total_bytes_)) return refuse(bytes, scratch_for);
  void* p = nullptr;
  bool retried = false;
  const cudaError_t err = allocate_with_trim(bytes, &p, &retried);
  if (is_allocation_failure(err)) return refuse(bytes, scratch_for);
  if (err != cudaSuccess) return cuda_status(scratch_for != nullptr ? scratch_for : "allocate", err);
  if (retried && scratch_for == nullptr) stats_->on_retry();
  return p;
}

absl::StatusOr<void*> DeviceAllocator::allocate(size_t bytes) {
  absl::StatusOr<void*> p = allocate_block(bytes, nullptr);
  if (!p.ok()) return p;
  stats_->on_alloc(static_cast<int64_t>(bytes), *p);
  refresh_reserved();
  return p;
}

absl::StatusOr<void*> DeviceAllocator::allocate_scratch(size_t bytes, const char* op) {
  return allocate_block(bytes, op);
}

void DeviceAllocator::free_block(void* p) {
  if (pool_ != nullptr) {
    // Ordered after every kernel already queued that uses `p`. A failure here
    // (a dead context at process exit) leaves nothing to do.
    if (cudaFreeAsync(p, stream_) != cudaSuccess) (void)cudaGetLastError();
    return;
  }
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = block_bytes_.find(p);
    if (it == block_bytes_.end()) return;  // not ours: nothing to give back
    size = it->second;
    if (static_cast<uint64_t>(cached_bytes_) + size <= release_threshold_) {
      cached_[size].push_back(p);
      cached_bytes_ += static_cast<int64_t>(size);
      return;
    }
    block_bytes_.erase(it);
    driver_bytes_ -= static_cast<int64_t>(size);
  }
  if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();  // waits for the device
}

void DeviceAllocator::deallocate(void* p, size_t bytes) {
  if (p == nullptr) return;
  stats_->on_free(static_cast<int64_t>(bytes), p);
  free_block(p);
  refresh_reserved();
}

void DeviceAllocator::deallocate_scratch(void* p) {
  if (p != nullptr) free_block(p);
}

int64_t DeviceAllocator::reclaim() {
  const int64_t before = reserved_bytes();
  if (cudaStreamSynchronize(stream_) != cudaSuccess) (void)cudaGetLastError();
  if (pool_ != nullptr) {
    if (cudaMemPoolTrimTo(pool_, 0) != cudaSuccess) (void)cudaGetLastError();
  } else {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [size, list] : cached_) {
        for (void* p : list) {
          blocks.push_back(p);
          block_bytes_.erase(p);
          driver_bytes_ -= static_cast<int64_t>(size);
        }
      }
      cached_.clear();
      cached_bytes_ = 0;
    }
    for (void* p : blocks) {
      if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
    }
  }
  refresh_reserved();
  return before - reserved_bytes();
}

absl::Status DeviceAllocator::set_release_threshold(uint64_t bytes) {
  if (pool_ == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    release_threshold_ = bytes;
    return absl::OkStatus();
  }
  if (cudaError_t err = cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &bytes);
      err != cudaSuccess) {
    return cuda_status("cudaMemPoolSetAttribute(release threshold)", err);
  }
  return absl::OkStatus();
}

int64_t DeviceAllocator::reserved_bytes() const {
  if (pool_ == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    return driver_bytes_;
  }
  uint64_t reserved = 0;
  if (cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return static_cast<int64_t>(reserved);
}

void DeviceAllocator::refresh_reserved() { stats_->set_reserved(reserved_bytes()); }

}  // namespace custody::cuda_internal
