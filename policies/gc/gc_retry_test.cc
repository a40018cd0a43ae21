// Copyright 2026 The custody Authors.
//
// Collect-then-retry (Note [Reclaim and retry] in gc.h) with an allocation that
// really fails: this binary interposes aligned_alloc — what the onednn backend
// allocates with — and, while a cap is set, fails requests that would take the
// backend's bytes_in_use past it. The garbage the collector finds is what makes
// the retried allocation fit, so MemoryStats::num_alloc_retries counts a real
// retry of the real backend.

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"

namespace {

std::atomic<int64_t> g_cap{-1};  // bytes_in_use limit for the onednn backend; -1: off
std::atomic<int> g_refused{0};

using AlignedAllocFn = void* (*)(size_t, size_t);

AlignedAllocFn next_aligned_alloc() {
  static const AlignedAllocFn fn =
      reinterpret_cast<AlignedAllocFn>(dlsym(RTLD_NEXT, "aligned_alloc"));
  return fn;
}

}  // namespace

// Interposes the C library's (or, under ASan, the sanitizer's) aligned_alloc.
extern "C" void* aligned_alloc(size_t alignment, size_t size) noexcept {
  const int64_t cap = g_cap.load();
  if (cap >= 0 &&
      custody::Onednn::stats().snapshot().bytes_in_use + static_cast<int64_t>(size) > cap) {
    g_refused.fetch_add(1);
    return nullptr;
  }
  return next_aligned_alloc()(alignment, size);
}

namespace custody::gc {
namespace {

using T = BasicTensor<Policy, Onednn>;
constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;

__attribute__((noinline)) void clobber_stack() {
  volatile char buf[64 * 1024];
  for (auto& c : buf) c = 0;
}

// `n` tensors of `bytes` each whose handles die here.
__attribute__((noinline)) void drop_tensors(int n, int64_t bytes) {
  for (int i = 0; i < n; ++i) {
    T t = T::zeros({bytes / 4});
  }
}

class GcRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!collector_enabled()) {
      GTEST_SKIP() << "the collector is disabled under ThreadSanitizer (Note [ThreadSanitizer] in gc.h)";
    }
    clobber_stack();
    collect();
    since_ = testing::next_serial();
    before_ = Onednn::stats().snapshot();
    g_refused = 0;
  }
  void TearDown() override {
    if (!collector_enabled()) return;
    g_cap = -1;
    testing::release_created_on_this_thread_since(since_);
    collect();
  }
  // Caps the backend at its current bytes in use plus `headroom`.
  static void cap_at(int64_t headroom) {
    g_cap = Onednn::stats().snapshot().bytes_in_use + headroom;
  }

  uint64_t since_ = 0;
  StatsSnapshot before_;
};

TEST_F(GcRetryTest, AllocationThatFitsOnlyAfterCollectionIsRetriedAndCounted) {
  drop_tensors(16, 512 * kKiB);  // 8 MiB of garbage
  clobber_stack();
  cap_at(1 * kMiB);              // a 4 MiB tensor fits only once >= 3 MiB of garbage is gone
  const Stats g0 = stats();
  T big = T::full(std::vector<int64_t>{kMiB}, 2.0f);
  g_cap = -1;
  const Stats g1 = stats();
  const StatsSnapshot after = Onednn::stats().snapshot();
  EXPECT_EQ(g_refused.load(), 1) << "the first attempt failed";
  EXPECT_EQ(after.num_alloc_retries, before_.num_alloc_retries + 1) << "the retry succeeded";
  EXPECT_EQ(after.num_ooms, before_.num_ooms);
  EXPECT_EQ(g1.reclaim_collections, g0.reclaim_collections + 1);
  EXPECT_GE(g1.finalized - g0.finalized, 14) << "of 16 unreachable aliases";
  EXPECT_EQ(big.sum().item<float>(), 2.0f * kMiB);
}

TEST_F(GcRetryTest, NothingToReclaimIsStillAnOutOfMemoryError) {
  T live = T::zeros({3 * kMiB / 4});  // reachable: the collector cannot free it
  cap_at(1 * kMiB);
  const Stats g0 = stats();
  try {
    (void)T::zeros({2 * kMiB / 4});
    FAIL() << "no throw";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("zeros"), std::string::npos) << e.what();
  }
  g_cap = -1;
  const StatsSnapshot after = Onednn::stats().snapshot();
  EXPECT_EQ(stats().reclaim_collections, g0.reclaim_collections + 1) << "the reclaimer ran";
  EXPECT_EQ(after.num_alloc_retries, before_.num_alloc_retries) << "no retry succeeded";
  EXPECT_EQ(after.num_ooms, before_.num_ooms + 1);
  EXPECT_FALSE(live.is_disposed());
  EXPECT_EQ(live.numel(), 3 * kMiB / 4);
}

TEST_F(GcRetryTest, ReclaimerRunsOnAThreadNotYetRegistered) {
  drop_tensors(16, 512 * kKiB);
  clobber_stack();
  cap_at(1 * kMiB);
  bool registered_before = true, ok = false;
  std::thread worker([&] {
    registered_before = thread_registered();
    // The allocation fails before this thread has a handle: the reclaimer
    // registers it for its collection, then the retry succeeds.
    T t = T::full(std::vector<int64_t>{kMiB}, 1.0f);
    ok = t.numel() == kMiB;
    t.dispose();
  });
  worker.join();
  g_cap = -1;
  EXPECT_FALSE(registered_before);
  EXPECT_TRUE(ok);
  EXPECT_EQ(Onednn::stats().snapshot().num_alloc_retries, before_.num_alloc_retries + 1);
}

TEST_F(GcRetryTest, PressureTriggerCountsThisBackendsAllocations) {
  ScopedPressureTrigger trigger(4 * kMiB, /*time_budget=*/1.0);
  const Stats g0 = stats();
  for (int i = 0; i < 64; ++i) {
    T t = T::zeros({kMiB / 4});
  }
  EXPECT_GE(stats().pressure_collections - g0.pressure_collections, 8);
  EXPECT_LT(Onednn::stats().snapshot().bytes_in_use - before_.bytes_in_use, 32 * kMiB);
}

}  // namespace
}  // namespace custody::gc
