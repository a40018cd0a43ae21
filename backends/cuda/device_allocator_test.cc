// Copyright 2026 The custody Authors.
//
// The CUDA backend's stream-ordered pool (device_allocator.h). Skips, saying
// why, where no CUDA device is found (CI); runs on a GPU machine (tools/gpu).

#include "backends/cuda/device_allocator.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "testing/device.h"

namespace custody::cuda_internal {
namespace {

// device_allocator_malloc_test: the allocator of devices without memory pools
// (Note [Without memory pools]), chosen before any allocator is made. Set in
// the binary itself, not by Bazel's env, so the packed test does the same on a
// GPU machine.
#ifdef CUSTODY_TEST_MALLOC_ALLOCATOR
[[maybe_unused]] const bool kForcedMalloc = setenv("CUSTODY_CUDA_ALLOCATOR", "malloc", 1) == 0;
constexpr bool kExpectPool = false;
#else
constexpr bool kExpectPool = true;
#endif

class DeviceAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status s = device_available(); !s.ok()) CUSTODY_SKIP_WITHOUT_DEVICE(s.message());
    absl::StatusOr<DeviceAllocator*> a = DeviceAllocator::for_device(0, &stats_);
    ASSERT_TRUE(a.ok()) << a.status();
    alloc_ = *a;
  }
  static MemoryStats stats_;
  DeviceAllocator* alloc_ = nullptr;
};
MemoryStats DeviceAllocatorTest::stats_;

TEST_F(DeviceAllocatorTest, SaysWhichAllocatorRuns) {
  EXPECT_GT(alloc_->total_bytes(), 0) << "cudaMemGetInfo's total, for the early OOM";
  if (kExpectPool) {
    // A device without pools falls back (its name says so); H100/H200 have them.
    EXPECT_EQ(alloc_->uses_pool(), alloc_->name().rfind("stream-ordered pool", 0) == 0)
        << alloc_->name();
  } else {
    EXPECT_FALSE(alloc_->uses_pool());
    EXPECT_EQ(alloc_->name(), "cudaMalloc with a block cache (CUSTODY_CUDA_ALLOCATOR=malloc)");
  }
}

#ifndef CUSTODY_TEST_MALLOC_ALLOCATOR
// Every device of compute capability 9.0 or newer supports memory pools: where
// a GPU is required (CUSTODY_REQUIRE_CUDA=1, as tools/gpu's launcher sets it),
// the cudaMalloc fallback there is a broken driver or pool, not a choice, and
// fails this test saying why the allocator fell back (its name). Forcing the
// fallback (CUSTODY_CUDA_ALLOCATOR=malloc) is exempt.
TEST_F(DeviceAllocatorTest, ThePoolRunsOnSm90AndNewerWhereAGpuIsRequired) {
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  const char* forced = std::getenv("CUSTODY_CUDA_ALLOCATOR");
  if (!custody::testing::device_required() || major < 9 ||
      (forced != nullptr && std::string(forced) == "malloc")) {
    GTEST_SKIP() << "required only under CUSTODY_REQUIRE_CUDA=1 on compute capability 9.0 or newer "
                    "without CUSTODY_CUDA_ALLOCATOR=malloc (here "
                 << major << "." << minor << ", allocator: " << alloc_->name() << ")";
  }
  EXPECT_TRUE(alloc_->uses_pool())
      << "compute capability " << major << "." << minor
      << " supports memory pools, but the allocator fell back: " << alloc_->name();
}
#endif

TEST_F(DeviceAllocatorTest, InUseIsExactAndFreedMemoryStaysCachedUntilReclaim) {
  const StatsSnapshot before = stats_.snapshot();
  absl::StatusOr<void*> p = alloc_->allocate(1 << 20);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(stats_.snapshot().bytes_in_use, before.bytes_in_use + (1 << 20));
  EXPECT_GE(stats_.snapshot().reserved_bytes, stats_.snapshot().bytes_in_use);
  alloc_->deallocate(*p, 1 << 20);
  EXPECT_EQ(stats_.snapshot().bytes_in_use, before.bytes_in_use);
  EXPECT_GE(alloc_->reserved_bytes(), 1 << 20) << "freed memory stays in the pool";
  EXPECT_GE(alloc_->reclaim(), 1 << 20);
  EXPECT_EQ(stats_.snapshot().reserved_bytes, alloc_->reserved_bytes());
}

TEST_F(DeviceAllocatorTest, AFreedBlockIsReusedWithoutGrowingThePool) {
  absl::StatusOr<void*> p = alloc_->allocate(4 << 20);
  ASSERT_TRUE(p.ok());
  alloc_->deallocate(*p, 4 << 20);
  const int64_t reserved = alloc_->reserved_bytes();
  absl::StatusOr<void*> q = alloc_->allocate(4 << 20);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(alloc_->reserved_bytes(), reserved);
  alloc_->deallocate(*q, 4 << 20);
}

TEST_F(DeviceAllocatorTest, OutOfMemorySaysHowMuchAndWhatToDo) {
  absl::StatusOr<void*> p = alloc_->allocate(size_t{1} << 50);  // 1 PiB
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string msg(p.status().message());
  EXPECT_NE(msg.find("1125899906842624 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in use"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reclaim"), std::string::npos) << msg;
  absl::StatusOr<void*> ok = alloc_->allocate(64);  // the next allocation works
  ASSERT_TRUE(ok.ok());
  alloc_->deallocate(*ok, 64);
}

// Note [Impossible allocations]: every size from 2^42 to 2^61 bytes is an
// out-of-memory status, whatever code the driver would give for it; so is
// the same request for kernel scratch.
TEST_F(DeviceAllocatorTest, EveryImpossibleSizeIsOutOfMemory) {
  for (int log2 = 42; log2 <= 61; ++log2) {
    const size_t bytes = size_t{1} << log2;
    absl::StatusOr<void*> p = alloc_->allocate(bytes);
    if (p.ok()) {  // 2^42 = 4 TiB: no device has that yet, but do not assume it
      alloc_->deallocate(*p, bytes);
      continue;
    }
    EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted) << log2 << ": " << p.status();
    absl::StatusOr<void*> s = alloc_->allocate_scratch(bytes, "sum");
    ASSERT_FALSE(s.ok()) << log2;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kResourceExhausted) << log2 << ": " << s.status();
  }
  absl::StatusOr<void*> ok = alloc_->allocate(64);
  ASSERT_TRUE(ok.ok()) << ok.status();
  alloc_->deallocate(*ok, 64);
}

}  // namespace
}  // namespace custody::cuda_internal
