// Copyright 2026 The custody Authors.

#include "core/tensor_impl.h"

#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

#include "core/object_cache.h"
#include "gtest/gtest.h"

namespace custody::internal {
namespace {

std::vector<int64_t> iota_dims(size_t n, int64_t first) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// Sizes and strides keep what was assigned across every change of rank:
// in place up to kInlineDims, on the heap beyond, and back.
TEST(SizesAndStridesTest, AssignAcrossInlineAndHeapRanks) {
  SizesAndStrides d;
  EXPECT_EQ(d.dim(), 0u);
  EXPECT_TRUE(d.sizes().empty());
  for (size_t rank : {size_t{1}, size_t{5}, size_t{6}, size_t{9}, size_t{9}, size_t{2}, size_t{0},
                      size_t{12}, size_t{3}}) {
    const std::vector<int64_t> sizes = iota_dims(rank, 2), strides = iota_dims(rank, 100);
    d.assign(sizes, strides);
    ASSERT_EQ(d.dim(), rank);
    EXPECT_EQ(std::vector<int64_t>(d.sizes().begin(), d.sizes().end()), sizes) << "rank " << rank;
    EXPECT_EQ(std::vector<int64_t>(d.strides().begin(), d.strides().end()), strides) << "rank " << rank;
  }
}

TEST(SizesAndStridesTest, AssignFromItsOwnValues) {
  SizesAndStrides d;
  for (size_t rank : {size_t{3}, size_t{8}}) {
    d.assign(iota_dims(rank, 1), iota_dims(rank, 50));
    d.assign(d.sizes(), d.strides());
    EXPECT_EQ(std::vector<int64_t>(d.sizes().begin(), d.sizes().end()), iota_dims(rank, 1));
    EXPECT_EQ(std::vector<int64_t>(d.strides().begin(), d.strides().end()), iota_dims(rank, 50));
  }
}

struct Block {
  char bytes[64];
};

// Blocks freed on a thread are reused by that thread, and a thread that ends
// gives its cached blocks back (LeakSanitizer would report them otherwise).
TEST(ThreadObjectCacheTest, ReusesFreedBlocksAndDrainsAtThreadExit) {
  void* a = ThreadObjectCache<Block>::allocate();
  ThreadObjectCache<Block>::deallocate(a);
  EXPECT_EQ(ThreadObjectCache<Block>::allocate(), a);
  ThreadObjectCache<Block>::deallocate(a);
  std::thread t([] {
    std::vector<void*> blocks;
    for (int i = 0; i < 100; ++i) blocks.push_back(ThreadObjectCache<Block>::allocate());
    for (void* b : blocks) ThreadObjectCache<Block>::deallocate(b);
  });
  t.join();
}

}  // namespace
}  // namespace custody::internal
