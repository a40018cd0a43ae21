// Copyright 2026 The custody Authors.

#include "backends/cuda/device_allocator.h"

#include <array>
#include <limits>
#include <memory>
#include <mutex>

#include "absl/strings/str_format.h"

namespace custody::cuda_internal {
namespace {

absl::Status cuda_error(const char* what, cudaError_t err) {
  (void)cudaGetLastError();  // not left behind for the next kernel's launch check
  return absl::InternalError(
      absl::StrFormat("cuda: %s failed: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err)));
}

constexpr int kMaxDevices = 64;

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

absl::StatusOr<DeviceAllocator*> DeviceAllocator::for_device(int device, MemoryStats* stats) {
  static std::array<DeviceAllocator*, kMaxDevices> allocators{};  // immortal, like the backend
  static std::mutex mu;
  if (device < 0 || device >= kMaxDevices) {
    return absl::InvalidArgumentError(absl::StrFormat("cuda: device index %d out of range", device));
  }
  std::lock_guard<std::mutex> lock(mu);
  if (allocators[device] != nullptr) return allocators[device];
  if (absl::Status s = device_available(); !s.ok()) return s;
  if (cudaError_t err = cudaSetDevice(device); err != cudaSuccess) return cuda_error("cudaSetDevice", err);
  cudaStream_t stream = nullptr;
  if (cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); err != cudaSuccess) {
    return cuda_error("cudaStreamCreateWithFlags", err);
  }
  // A pool of our own, not the device's default one: other libraries in the
  // process that use cudaMallocAsync keep their own threshold, and reserved
  // bytes and reclaim() count only ours.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  if (cudaError_t err = cudaMemPoolCreate(&pool, &props); err != cudaSuccess) {
    return cuda_error("cudaMemPoolCreate", err);
  }
  // Keep freed memory cached (reclaim() gives it back), as PyTorch's allocator does.
  uint64_t keep_all = std::numeric_limits<uint64_t>::max();
  if (cudaError_t err = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
      err != cudaSuccess) {
    return cuda_error("cudaMemPoolSetAttribute(release threshold)", err);
  }
  allocators[device] = new DeviceAllocator(device, stats, stream, pool);
  return allocators[device];
}

absl::StatusOr<void*> DeviceAllocator::allocate(size_t bytes) {
  void* p = nullptr;
  // A 0-byte request gets a distinct block, as on the host backends.
  const size_t request = bytes == 0 ? 1 : bytes;
  cudaError_t err = cudaMallocFromPoolAsync(&p, request, pool_, stream_);
  if (err == cudaErrorMemoryAllocation) {
    // The pool may hold freed blocks that do not fit this request (or the
    // other pools on the device may): give them back to the driver and try once
    // more before failing.
    (void)cudaGetLastError();
    (void)reclaim();
    err = cudaMallocFromPoolAsync(&p, request, pool_, stream_);
    if (err == cudaSuccess) stats_->on_retry();
  }
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // core counts the OOM (allocate_with_retry)
    const StatsSnapshot s = stats_->snapshot();
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cuda:%d: out of device memory allocating %d bytes (%d bytes in use by %d live tensors, "
        "%d reserved by the pool); release tensors you no longer need, run gc::collect() under "
        "the gc policy, or Cuda::reclaim() to return cached memory to the driver",
        device_, bytes, s.bytes_in_use, s.live_tensors, reserved_bytes()));
  }
  if (err != cudaSuccess) return cuda_error("cudaMallocFromPoolAsync", err);
  stats_->on_alloc(static_cast<int64_t>(bytes), p);
  refresh_reserved();
  return p;
}

void DeviceAllocator::deallocate(void* p, size_t bytes) {
  if (p == nullptr) return;
  stats_->on_free(static_cast<int64_t>(bytes), p);
  // Ordered after every kernel already queued that uses `p`. A failure here
  // (a dead context at process exit) leaves nothing to do.
  if (cudaFreeAsync(p, stream_) != cudaSuccess) (void)cudaGetLastError();
  refresh_reserved();
}

int64_t DeviceAllocator::reclaim() {
  const int64_t before = reserved_bytes();
  if (cudaStreamSynchronize(stream_) != cudaSuccess) (void)cudaGetLastError();
  if (cudaMemPoolTrimTo(pool_, 0) != cudaSuccess) (void)cudaGetLastError();
  refresh_reserved();
  return before - reserved_bytes();
}

absl::Status DeviceAllocator::set_release_threshold(uint64_t bytes) {
  if (cudaError_t err = cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &bytes);
      err != cudaSuccess) {
    return cuda_error("cudaMemPoolSetAttribute(release threshold)", err);
  }
  return absl::OkStatus();
}

int64_t DeviceAllocator::reserved_bytes() const {
  uint64_t reserved = 0;
  if (cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return static_cast<int64_t>(reserved);
}

void DeviceAllocator::refresh_reserved() { stats_->set_reserved(reserved_bytes()); }

}  // namespace custody::cuda_internal
