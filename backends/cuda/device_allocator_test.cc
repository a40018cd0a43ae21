// Copyright 2026 The custody Authors.
//
// The CUDA backend's stream-ordered pool (device_allocator.h). Skips, saying
// why, where no CUDA device is found (CI); runs on a GPU machine (tools/gpu).

#include "backends/cuda/device_allocator.h"

#include <string>

#include "gtest/gtest.h"

namespace custody::cuda_internal {
namespace {

class DeviceAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status s = device_available(); !s.ok()) GTEST_SKIP() << s.message();
    absl::StatusOr<DeviceAllocator*> a = DeviceAllocator::for_device(0, &stats_);
    ASSERT_TRUE(a.ok()) << a.status();
    alloc_ = *a;
  }
  static MemoryStats stats_;
  DeviceAllocator* alloc_ = nullptr;
};
MemoryStats DeviceAllocatorTest::stats_;

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

}  // namespace
}  // namespace custody::cuda_internal
