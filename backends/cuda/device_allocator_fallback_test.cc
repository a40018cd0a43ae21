// Copyright 2026 The custody Authors.
//
// The allocator's choice when its memory pool cannot be made or refuses the
// set-up probe (pool_fallback, Note [Without memory pools] in
// device_allocator.h), from error codes alone: runs, and must pass, on
// machines without a GPU (CI).

#include <string>

#include "backends/cuda/device_allocator.h"
#include "core/error.h"
#include "gtest/gtest.h"

namespace custody::cuda_internal {
namespace {

TEST(PoolFallback, APoolThatRefusesTheProbeFallsBackSayingWhy) {
  for (cudaError_t err : {cudaErrorMemoryAllocation, cudaErrorNotSupported, cudaErrorInvalidValue,
                          cudaErrorNotPermitted}) {
    absl::StatusOr<std::string> name = pool_fallback(0, "", PoolStep::kProbe, err);
    ASSERT_TRUE(name.ok()) << cudaGetErrorName(err) << ": " << name.status();
    EXPECT_EQ(*name,
              std::string("cudaMalloc with a block cache (the memory pool refused a 256-byte "
                          "probe allocation: ") +
                  cudaGetErrorName(err) + ")");
  }
}

TEST(PoolFallback, APoolTheDeviceCannotMakeFallsBack) {
  absl::StatusOr<std::string> name = pool_fallback(0, "", PoolStep::kCreate, cudaErrorNotSupported);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "cudaMalloc with a block cache (cudaMemPoolCreate: not supported)");
  // Any other failure to make the pool is the driver's error, not a reason to fall back.
  absl::StatusOr<std::string> other =
      pool_fallback(0, "", PoolStep::kCreate, cudaErrorInvalidValue);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("cudaMemPoolCreate"), absl::string_view::npos)
      << other.status();
  EXPECT_THROW(ThrowIfError(other.status()), DeviceError);
}

TEST(PoolFallback, CustodyCudaAllocatorPoolRefusesToFallBack) {
  for (PoolStep step : {PoolStep::kCreate, PoolStep::kProbe}) {
    absl::StatusOr<std::string> r = pool_fallback(3, "pool", step, cudaErrorNotSupported);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
    const std::string m(r.status().message());
    EXPECT_NE(m.find("cuda:3: CUSTODY_CUDA_ALLOCATOR=pool, but "), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorNotSupported"), std::string::npos) << m;
    if (step == PoolStep::kProbe) {
      EXPECT_NE(m.find("the new pool refused a 256-byte allocation and free"), std::string::npos)
          << m;
    }
  }
}

TEST(PoolFallback, ADeviceFaultDuringTheProbeIsAnErrorNotAFallback) {
  // The context is unusable: cudaMalloc would fail as well.
  for (const char* want : {"", "pool"}) {
    absl::StatusOr<std::string> r =
        pool_fallback(0, want, PoolStep::kProbe, cudaErrorIllegalAddress);
    ASSERT_FALSE(r.ok()) << want;
    const std::string m(r.status().message());
    EXPECT_NE(m.find("memory pool probe"), std::string::npos) << m;
    EXPECT_NE(m.find("CUDA_LAUNCH_BLOCKING=1"), std::string::npos) << m;
    EXPECT_THROW(ThrowIfError(r.status()), DeviceError);
  }
}

}  // namespace
}  // namespace custody::cuda_internal
