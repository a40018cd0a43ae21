// Copyright 2026 The custody Authors.

#include "backends/cuda/internal/errors.h"

#include "absl/strings/str_format.h"
#include "core/error.h"

namespace custody::cuda_internal {

// The codes CUDA documents as leaving the context unusable ("the process must be terminated and
// relaunched"): faults inside a kernel, and uncorrectable hardware errors (ECC, NVLink, and a fault
// contained by the GPU's error containment).
bool is_sticky_error(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContained:
      return true;
    default:
      return false;
  }
}

namespace {

constexpr char kStickyAdvice[] =
    "; this is a device fault: the CUDA context is unusable for the rest of the process, and the "
    "kernel that faulted may have been queued by an earlier op (kernels run asynchronously). "
    "Rerun with CUDA_LAUNCH_BLOCKING=1 to have it reported by the op that launched it "
    "(tools/gpu/README.md, \"Triage\")";

}  // namespace

absl::Status cuda_status(const char* what, cudaError_t err) {
  (void)cudaGetLastError();  // clear the runtime's last (non-sticky) error
  return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kInternal,
                    absl::StrFormat("cuda %s: %s (%s)%s", what, cudaGetErrorString(err),
                                    cudaGetErrorName(err),
                                    is_sticky_error(err) ? kStickyAdvice : ""));
}

absl::Status pending_error_status(const char* op, cudaError_t pending) {
  if (pending == cudaSuccess) return absl::OkStatus();
  if (!is_sticky_error(pending)) {
    (void)cudaGetLastError();  // left by code outside the backend: not this op's failure
    return absl::OkStatus();
  }
  return MakeStatus(
      ErrorKind::kDevice, absl::StatusCode::kInternal,
      absl::StrFormat("cuda %s: an earlier kernel faulted (found before %s started): %s (%s)%s", op,
                      op, cudaGetErrorString(pending), cudaGetErrorName(pending), kStickyAdvice));
}

bool is_allocation_failure(cudaError_t err) {
  return err == cudaErrorMemoryAllocation || err == cudaErrorInvalidValue ||
         err == cudaErrorNotSupported;
}

absl::Status out_of_memory_status(const AllocationFailure& f) {
  const std::string what =
      f.scratch_for != nullptr
          ? absl::StrFormat("%s: out of device memory for %d bytes of kernel scratch", f.scratch_for,
                            f.bytes)
          : absl::StrFormat("cuda:%d: out of device memory allocating %d bytes", f.device, f.bytes);
  const std::string total =
      f.total_bytes > 0 ? absl::StrFormat(" of the device's %d", f.total_bytes) : std::string();
  const std::string beyond =
      f.total_bytes > 0 && f.bytes > static_cast<size_t>(f.total_bytes)
          ? std::string(" (more than the device has)")
          : std::string();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s%s (%d bytes in use by %d live tensors, %d reserved by the allocator%s); release tensors "
      "you no longer need, run gc::collect() under the gc policy, or Cuda::reclaim() to return "
      "cached memory to the driver",
      what, beyond, f.bytes_in_use, f.live_tensors, f.reserved_bytes, total));
}

}  // namespace custody::cuda_internal
