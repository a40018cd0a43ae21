// Copyright 2026 The custody Authors.
//
// core/stats_test.cc — MemoryStats' totals and peak are exact (Note
// [Per-thread counters]): on one thread at every step, across threads once
// they have finished, whichever thread allocates and which frees; the memory
// history records the total after each event.

#include "core/stats.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace custody {
namespace {

constexpr int64_t kQuarterMiB = 256 << 10;

TEST(MemoryStatsTest, OneThreadKeepsBytesAndPeakExact) {
  MemoryStats stats;
  int64_t total = 0, peak = 0;
  std::vector<int64_t> sizes;
  // Up by more than a MiB in small steps, most of the way down, up again.
  for (int i = 0; i < 3000; ++i) {
    const int64_t b = 64 + (i * 37) % 1000;
    stats.on_alloc(b);
    sizes.push_back(b);
    total += b;
    peak = std::max(peak, total);
    if (i % 97 == 0) {
      const StatsSnapshot s = stats.snapshot();
      ASSERT_EQ(s.bytes_in_use, total) << i;
      ASSERT_EQ(s.peak_bytes_in_use, peak) << i;
    }
  }
  ASSERT_GT(total, 4 * kQuarterMiB);
  for (int i = 0; i < 2000; ++i) {
    stats.on_free(sizes.back());
    total -= sizes.back();
    sizes.pop_back();
  }
  EXPECT_EQ(stats.snapshot().bytes_in_use, total);
  EXPECT_EQ(stats.snapshot().peak_bytes_in_use, peak);
  // A second climb to a new peak, one large allocation and one small.
  stats.reset_peak();
  EXPECT_EQ(stats.snapshot().peak_bytes_in_use, total);
  stats.on_alloc(3 * kQuarterMiB + 5);
  stats.on_alloc(100);
  EXPECT_EQ(stats.snapshot().peak_bytes_in_use, total + 3 * kQuarterMiB + 105);
  stats.on_free(100);
  stats.on_free(3 * kQuarterMiB + 5);
  for (int64_t b : sizes) stats.on_free(b);
  const StatsSnapshot end = stats.snapshot();
  EXPECT_EQ(end.bytes_in_use, 0);
  EXPECT_EQ(end.num_allocs, end.num_frees);
}

TEST(MemoryStatsTest, BytesFreedOnAnotherThreadBalance) {
  MemoryStats stats;
  constexpr int kN = 5000;
  std::thread producer([&] {
    for (int i = 0; i < kN; ++i) stats.on_alloc(100);
  });
  producer.join();
  EXPECT_EQ(stats.snapshot().bytes_in_use, int64_t{100} * kN);
  std::thread consumer([&] {
    for (int i = 0; i < kN; ++i) stats.on_free(100);
  });
  consumer.join();
  const StatsSnapshot s = stats.snapshot();
  EXPECT_EQ(s.bytes_in_use, 0) << "what an exited thread allocated or freed still counts";
  EXPECT_EQ(s.num_frees, kN);
}

TEST(MemoryStatsTest, ThePeakCountsWhatOtherThreadsHold) {
  MemoryStats stats;
  std::thread other([&] {
    for (int i = 0; i < 100; ++i) stats.on_alloc(1000);  // small ones: no size threshold hides them
  });
  other.join();
  stats.reset_peak();
  for (int i = 0; i < 50; ++i) stats.on_alloc(512);
  for (int i = 0; i < 50; ++i) stats.on_free(512);
  const StatsSnapshot s = stats.snapshot();
  EXPECT_EQ(s.bytes_in_use, 100 * 1000);
  EXPECT_EQ(s.peak_bytes_in_use, 100 * 1000 + 50 * 512) << "the other thread's bytes were in use too";
  for (int i = 0; i < 100; ++i) stats.on_free(1000);
}

TEST(MemoryStatsTest, ConcurrentThreadsBalanceAndThePeakIsReal) {
  MemoryStats stats;
  constexpr int kThreads = 4, kRounds = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&stats, t] {
      std::vector<int64_t> held;
      for (int i = 0; i < kRounds; ++i) {
        const int64_t b = 64 * (1 + (i + t) % 50);
        stats.on_alloc(b);
        held.push_back(b);
        if (held.size() > 40) {
          stats.on_free(held.front());
          held.erase(held.begin());
        }
      }
      for (int64_t b : held) stats.on_free(b);
    });
  }
  for (std::thread& t : threads) t.join();
  const StatsSnapshot s = stats.snapshot();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_allocs, int64_t{kThreads} * kRounds);
  EXPECT_EQ(s.num_frees, s.num_allocs);
  // Each thread holds at most 41 blocks of up to 3200 bytes at once, and at
  // least 41 blocks of 64 once it has run 41 rounds: the peak is a total the
  // threads really held together.
  EXPECT_GE(s.peak_bytes_in_use, 41 * 64);
  EXPECT_LE(s.peak_bytes_in_use, int64_t{kThreads} * 41 * 3200);
}

TEST(MemoryStatsTest, HistoryRecordsTheTotalAfterEachEvent) {
  MemoryStats stats;
  std::thread other([&] { stats.on_alloc(1000); });  // another thread's bytes count too
  other.join();
  stats.record_history(true);
  for (int i = 0; i < 600; ++i) stats.on_alloc(1024);
  for (int i = 0; i < 600; ++i) stats.on_free(1024);
  stats.record_history(false);
  const std::vector<MemoryEvent> h = stats.history();
  ASSERT_EQ(h.size(), 1200u);
  for (int i = 0; i < 600; ++i) ASSERT_EQ(h[i].bytes_in_use, 1000 + 1024 * (i + 1)) << i;
  EXPECT_EQ(h.back().bytes_in_use, 1000);
  EXPECT_EQ(stats.snapshot().bytes_in_use, 1000);
}

}  // namespace
}  // namespace custody

namespace custody {
namespace {

// A history recording sites holds site tracking on, so the policies keep the
// sites of what holds memory (Note [Held by]); it goes back as it was after.
TEST(MemoryStatsTest, AHistoryWithSitesHoldsSiteTrackingOn) {
  sites::ScopedTracking off(false);
  MemoryStats a, b;
  a.record_history(true, /*with_sites=*/false);
  EXPECT_FALSE(sites::tracking());
  a.record_history(true, /*with_sites=*/true);
  EXPECT_TRUE(sites::tracking());
  b.record_history(true, /*with_sites=*/true);
  a.record_history(false);
  EXPECT_TRUE(sites::tracking());  // b still records sites
  b.record_history(false);
  EXPECT_FALSE(sites::tracking());
}

// Each free records what said it held the memory, innermost first, and the
// stack that freed it when sites are recorded.
TEST(MemoryStatsTest, AFreeRecordsItsHolder) {
  MemoryStats s;
  int x = 0, y = 0, z = 0;
  const sites::Site opened = sites::Site::from_frames(std::vector<void*>{&x}.data(), 1);
  s.record_history(true, /*with_sites=*/true);
  s.on_alloc(8, &x);
  s.on_alloc(8, &y);
  s.on_alloc(8, &z);
  s.on_free(8, &x);
  {
    const HeldBy scope("the dispose scope", &opened, "opened at");
    s.on_free(8, &y);
    const HeldBy node("the autograd node", nullptr, nullptr, "relu");
    s.on_free(8, &z);
  }
  s.record_history(false);
  const std::vector<MemoryEvent> h = s.history();
  ASSERT_EQ(h.size(), 6u);
  EXPECT_EQ(h[3].holder, nullptr);
  EXPECT_FALSE(h[3].site.empty());  // the stack that freed it
  EXPECT_STREQ(h[4].holder, "the dispose scope");
  EXPECT_STREQ(h[4].holder_verb, "opened at");
  EXPECT_EQ(h[4].holder_site.frames()[0], &x);
  EXPECT_STREQ(h[5].holder, "the autograd node");
  EXPECT_STREQ(h[5].holder_name, "relu");
  EXPECT_TRUE(h[5].holder_site.empty());
}

}  // namespace
}  // namespace custody
