// Copyright 2026 The custody Authors.
//
// core/host_allocator_test.cc — the caching host allocator reuses blocks of a
// size class, keeps in-use and reserved bytes exact, honours its cache limit,
// gives everything back on reclaim(), and stays balanced under threads.

#include "core/host_allocator.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace custody {
namespace {

TEST(CachingHostAllocatorTest, SizeClassesRoundUpByAtMostAQuarter) {
  EXPECT_TRUE(CachingHostAllocator::classes_consistent());
  EXPECT_EQ(CachingHostAllocator::class_size(0), 64u);
  EXPECT_EQ(CachingHostAllocator::class_size(1), 64u);
  EXPECT_EQ(CachingHostAllocator::class_size(65), 80u);
  EXPECT_EQ(CachingHostAllocator::class_size(4096), 4096u);
  EXPECT_EQ(CachingHostAllocator::class_size(4097), 5120u);
  EXPECT_EQ(CachingHostAllocator::class_size(size_t{64} << 20), size_t{64} << 20);
  for (size_t b = 65; b < (size_t{1} << 22); b = b * 3 / 2 + 7) {
    const size_t c = CachingHostAllocator::class_size(b);
    EXPECT_GE(c, b);
    EXPECT_LE(c, b + b / 4 + 64) << b;
    EXPECT_EQ(c % 16, 0u);
  }
}

TEST(CachingHostAllocatorTest, ReusesAFreedBlockOfTheSameClass) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats);
  void* p = *alloc.allocate(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, 1000);
  alloc.deallocate(p, 1000);
  void* q = *alloc.allocate(1010);  // same class (1024)
  EXPECT_EQ(p, q);
  alloc.deallocate(q, 1010);
  void* r = *alloc.allocate(3000);  // another class: a fresh block
  EXPECT_NE(r, p);
  alloc.deallocate(r, 3000);
  alloc.reclaim();
}

TEST(CachingHostAllocatorTest, InUseIsExactReservedCountsTheCache) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats);
  void* a = *alloc.allocate(100);    // class 112, a 128-byte block (64-byte multiples)
  void* b = *alloc.allocate(5000);   // class 5120
  StatsSnapshot s = stats.snapshot();
  EXPECT_EQ(s.bytes_in_use, 5100);
  EXPECT_EQ(s.reserved_bytes, 128 + 5120);
  EXPECT_EQ(s.num_allocs, 2);
  alloc.deallocate(a, 100);
  alloc.deallocate(b, 5000);
  s = stats.snapshot();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_frees, 2);
  EXPECT_EQ(s.reserved_bytes, 128 + 5120);  // cached, pages kept
  EXPECT_EQ(alloc.cached_bytes(), 128 + 5120);
  EXPECT_EQ(alloc.reclaim(), 128 + 5120);
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0);
  EXPECT_EQ(alloc.cached_bytes(), 0);
  EXPECT_EQ(alloc.reclaim(), 0);
}

TEST(CachingHostAllocatorTest, CacheLimitReturnsBlocksToTheSystem) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats);
  alloc.set_cache_limit(8192);
  void* a = *alloc.allocate(4096);
  void* b = *alloc.allocate(4096);
  void* c = *alloc.allocate(4096);
  alloc.deallocate(a, 4096);
  alloc.deallocate(b, 4096);
  alloc.deallocate(c, 4096);  // over the limit: freed
  EXPECT_EQ(alloc.cached_bytes(), 8192);
  EXPECT_EQ(stats.snapshot().reserved_bytes, 8192);
  alloc.set_cache_limit(0);  // lowering the limit empties the cache
  EXPECT_EQ(alloc.cached_bytes(), 0);
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0);
}

TEST(CachingHostAllocatorTest, ImpossibleSizeIsResourceExhausted) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats);
  absl::StatusOr<void*> p = alloc.allocate(size_t{1} << 63);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(stats.snapshot().bytes_in_use, 0);
  EXPECT_EQ(stats.snapshot().num_allocs, 0);
}

class CachingHostAllocatorThreadsTest : public ::testing::TestWithParam<bool> {};

TEST_P(CachingHostAllocatorThreadsTest, ThreadsBalance) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats, {.thread_cache = GetParam()});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::pair<void*, size_t>> held;
      for (int i = 0; i < 2000; ++i) {
        const size_t bytes = 64 + static_cast<size_t>((i * 37 + t * 11) % 5000);
        held.emplace_back(*alloc.allocate(bytes), bytes);
        if (held.size() > 8) {
          alloc.deallocate(held.front().first, held.front().second);
          held.erase(held.begin());
        }
      }
      for (auto& [p, b] : held) alloc.deallocate(p, b);
    });
  }
  for (auto& th : threads) th.join();
  const StatsSnapshot s = stats.snapshot();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_allocs, s.num_frees);
  EXPECT_EQ(s.reserved_bytes, alloc.cached_bytes());
  alloc.reclaim();
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0);
}

INSTANTIATE_TEST_SUITE_P(PerThreadBlocks, CachingHostAllocatorThreadsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "PerThreadBlocks" : "SharedListsOnly";
                         });

// Note [Per-thread blocks]: a freed small block stays with its thread.
TEST(CachingHostAllocatorTest, PerThreadBlocksAreReusedByTheirThread) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats, {.thread_cache = true});
  void* p = *alloc.allocate(100);  // a 128-byte block
  alloc.deallocate(p, 100);
  EXPECT_EQ(alloc.cached_bytes(), 0) << "held by this thread, not in the shared lists";
  EXPECT_EQ(stats.snapshot().reserved_bytes, 128);
  // Another thread does not see it: it gets a fresh block.
  void* other = nullptr;
  std::thread([&] {
    other = *alloc.allocate(100);
    alloc.deallocate(other, 100);
  }).join();
  EXPECT_NE(other, p);
  EXPECT_EQ(alloc.cached_bytes(), 128) << "the exited thread's block went to the shared lists";
  EXPECT_EQ(*alloc.allocate(100), p) << "this thread's own block first";
  alloc.deallocate(p, 100);
  EXPECT_EQ(alloc.reclaim(), 256) << "the shared block and this thread's";
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0);
  EXPECT_EQ(stats.snapshot().bytes_in_use, 0);
}

TEST(CachingHostAllocatorTest, PerThreadBlocksAreBoundedPerClassAndBySize) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats, {.thread_cache = true});
  constexpr int kN = CachingHostAllocator::kThreadBlocksPerClass + 3;
  std::vector<void*> small, large;
  for (int i = 0; i < kN; ++i) small.push_back(*alloc.allocate(64));
  large.push_back(*alloc.allocate(CachingHostAllocator::kThreadCacheMaxBytes + 1));
  for (void* p : small) alloc.deallocate(p, 64);
  alloc.deallocate(large[0], CachingHostAllocator::kThreadCacheMaxBytes + 1);
  const int64_t large_block =
      static_cast<int64_t>(CachingHostAllocator::class_size(CachingHostAllocator::kThreadCacheMaxBytes + 1));
  EXPECT_EQ(alloc.cached_bytes(), 3 * 64 + large_block)
      << "past kThreadBlocksPerClass, and above kThreadCacheMaxBytes, blocks go to the shared lists";
  EXPECT_EQ(alloc.reclaim(), kN * 64 + large_block);
}

TEST(CachingHostAllocatorTest, LowCacheLimitTurnsPerThreadBlocksOff) {
  MemoryStats stats;
  CachingHostAllocator alloc(&stats, {.thread_cache = true});
  void* a = *alloc.allocate(64);
  alloc.deallocate(a, 64);
  EXPECT_EQ(stats.snapshot().reserved_bytes, 64);
  alloc.set_cache_limit(0);  // this thread's block goes back too, and is freed
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0);
  void* b = *alloc.allocate(64);
  alloc.deallocate(b, 64);
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0) << "no caching at all under a zero limit";
  alloc.set_cache_limit(CachingHostAllocator::kDefaultCacheLimit);
  void* c = *alloc.allocate(64);
  alloc.deallocate(c, 64);
  EXPECT_EQ(stats.snapshot().reserved_bytes, 64);
  EXPECT_EQ(alloc.cached_bytes(), 0) << "per-thread again";
}

TEST(CachingHostAllocatorTest, DestructionReturnsTheCache) {
  MemoryStats stats;
  {
    CachingHostAllocator alloc(&stats, {.thread_cache = true});
    void* a = *alloc.allocate(64);
    void* b = *alloc.allocate(8192);
    alloc.deallocate(a, 64);
    alloc.deallocate(b, 8192);
    EXPECT_EQ(stats.snapshot().reserved_bytes, 64 + 8192);
  }
  EXPECT_EQ(stats.snapshot().reserved_bytes, 0);
}

}  // namespace
}  // namespace custody
