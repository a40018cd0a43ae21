// Copyright 2026 The custody Authors.
//
// The CUDA error mapping (internal/errors.h) from error codes alone: runs, and
// must pass, on machines without a GPU (CI), with the codes a device returns.

#include "backends/cuda/internal/errors.h"

#include <string>

#include "core/error.h"
#include "gtest/gtest.h"

namespace custody::cuda_internal {
namespace {

TEST(CudaErrors, EveryRefusedAllocationCodeIsOutOfMemory) {
  // Note [Impossible allocations]: the codes cudaMallocFromPoolAsync and
  // cudaMalloc give for a size the device can never serve.
  for (cudaError_t err : {cudaErrorMemoryAllocation, cudaErrorInvalidValue, cudaErrorNotSupported}) {
    EXPECT_TRUE(is_allocation_failure(err)) << cudaGetErrorName(err);
  }
  for (cudaError_t err : {cudaSuccess, cudaErrorIllegalAddress, cudaErrorInitializationError,
                          cudaErrorNoDevice, cudaErrorInsufficientDriver}) {
    EXPECT_FALSE(is_allocation_failure(err)) << cudaGetErrorName(err);
  }
}

TEST(CudaErrors, OutOfMemoryIsResourceExhaustedThatCoreThrowsAsOutOfMemoryError) {
  AllocationFailure f;
  f.device = 0;
  f.bytes = size_t{1} << 61;
  f.bytes_in_use = 4096;
  f.live_tensors = 2;
  f.reserved_bytes = 1 << 20;
  f.total_bytes = int64_t{80} << 30;
  const absl::Status s = out_of_memory_status(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  const std::string m(s.message());
  for (const char* part : {"cuda:0", "2305843009213693952 bytes", "more than the device has",
                           "4096 bytes in use by 2 live tensors", "1048576 reserved",
                           "85899345920", "reclaim"}) {
    EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
  }
  EXPECT_THROW(ThrowIfError(s), OutOfMemoryError);

  f.scratch_for = "sum";
  f.bytes = 1 << 20;
  const std::string scratch(out_of_memory_status(f).message());
  EXPECT_NE(scratch.find("sum: out of device memory for 1048576 bytes of kernel scratch"),
            std::string::npos)
      << scratch;
  EXPECT_EQ(scratch.find("more than the device has"), std::string::npos) << scratch;
}

TEST(CudaErrors, ADeviceFaultIsStickyAndSaysHowToFindTheKernel) {
  for (cudaError_t err :
       {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorAssert, cudaErrorMisalignedAddress,
        cudaErrorIllegalInstruction, cudaErrorLaunchTimeout, cudaErrorHardwareStackError,
        cudaErrorInvalidAddressSpace, cudaErrorInvalidPc, cudaErrorECCUncorrectable,
        cudaErrorNvlinkUncorrectable, cudaErrorContained}) {
    EXPECT_TRUE(is_sticky_error(err)) << cudaGetErrorName(err);
  }
  for (cudaError_t err : {cudaErrorInvalidValue, cudaErrorMemoryAllocation,
                          cudaErrorInvalidConfiguration, cudaErrorNoDevice}) {
    EXPECT_FALSE(is_sticky_error(err)) << cudaGetErrorName(err);
  }
  const absl::Status fault = cuda_status("softmax", cudaErrorIllegalAddress);
  const std::string m(fault.message());
  EXPECT_NE(m.find("cuda softmax: "), std::string::npos) << m;
  EXPECT_NE(m.find("cudaErrorIllegalAddress"), std::string::npos) << m;
  EXPECT_NE(m.find("CUDA_LAUNCH_BLOCKING=1"), std::string::npos) << m;
  EXPECT_THROW(ThrowIfError(fault), DeviceError);
  const std::string plain(cuda_status("copy", cudaErrorInvalidValue).message());
  EXPECT_EQ(plain.find("CUDA_LAUNCH_BLOCKING"), std::string::npos) << plain;
  // A hardware error the GPU contained is as fatal to the context as a kernel fault.
  const std::string contained(cuda_status("matmul", cudaErrorContained).message());
  EXPECT_NE(contained.find("cudaErrorContained"), std::string::npos) << contained;
  EXPECT_NE(contained.find("the CUDA context is unusable"), std::string::npos) << contained;
  EXPECT_FALSE(pending_error_status("add", cudaErrorNvlinkUncorrectable).ok())
      << "an NVLink error pending before an op is a dead context, not someone else's error to clear";
}

TEST(CudaErrors, AFaultPendingBeforeAnOpIsNotBlamedOnIt) {
  EXPECT_TRUE(pending_error_status("add", cudaSuccess).ok());
  // A non-sticky error left by someone else's call is not this op's failure.
  EXPECT_TRUE(pending_error_status("add", cudaErrorInvalidValue).ok());
  const absl::Status s = pending_error_status("add", cudaErrorIllegalAddress);
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_NE(m.find("cuda add: an earlier kernel faulted (found before add started)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("CUDA_LAUNCH_BLOCKING=1"), std::string::npos) << m;
  EXPECT_THROW(ThrowIfError(s), DeviceError);
}

}  // namespace
}  // namespace custody::cuda_internal
