// Copyright 2026 The custody Authors.
//
// Note [Alias lists] (internal.h): every alias is on its creating thread's list
// until a walk unlinks it; dispose() leaves it there, and each collection
// unlinks the aliases that gave their reference back and finalizes the
// unreachable ones wherever they sit in a list. A list's head is never
// unlinked, so the collection keeps it (marked) even when it is disposed and
// unreachable, and no list ever leads into swept memory.

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "policies/gc/testing.h"

namespace custody::gc {
namespace {

using T = BasicTensor<Policy, Onednn>;

using ::custody::testing::collect_clean;  // policies/gc/testing.h

// `n` aliases of `t` disposed right away.
__attribute__((noinline)) void alias_and_dispose(const T& t, int n) {
  for (int i = 0; i < n; ++i) {
    T a = t.alias();
    a.dispose();
  }
}

// `n` aliases of `t` dropped, each between `disposed` disposed ones.
__attribute__((noinline)) void drop_among_disposed(const T& t, int n, int disposed) {
  for (int i = 0; i < n; ++i) {
    T dropped = t.alias();
    alias_and_dispose(t, disposed);
  }
}

class GcListsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!collector_enabled()) GTEST_SKIP() << "the collector is disabled under ThreadSanitizer";
    since_ = testing::next_serial();
    collect_clean();
  }
  // What the test still holds goes back (LeakSanitizer checks at exit).
  void TearDown() override { testing::release_created_since(since_); }

 private:
  uint64_t since_ = 0;
};

TEST_F(GcListsTest, ACollectionUnlinksTheDisposedAliases) {
  T t = T::full({4}, 1.0f);
  collect_clean();
  const int64_t live = stats().live_references;
  const int64_t listed = testing::listed_aliases();
  EXPECT_LE(live, listed);

  alias_and_dispose(t, 10'000);
  EXPECT_EQ(stats().live_references, live);
  collect_clean();
  EXPECT_EQ(stats().live_references, live);
  // Left: the live aliases and one head per list (this thread's is now one of the disposed).
  EXPECT_LE(testing::listed_aliases(), listed + 1);
  EXPECT_EQ(t.sum().item<float>(), 4.0f);
}

TEST_F(GcListsTest, UnreachableAliasesAmongDisposedOnesAreFinalized) {
  T t = T::full({4}, 2.0f);
  const int64_t live = stats().live_references;
  const int64_t finalized = stats().finalized;
  drop_among_disposed(t, 1'000, 5);
  collect_clean();
  // Conservative scanning may keep a few; a list that skipped past them would keep all.
  EXPECT_GE(stats().finalized - finalized, 900);
  EXPECT_LE(stats().live_references - live, 100);
  EXPECT_EQ(t.sum().item<float>(), 8.0f);
}

TEST_F(GcListsTest, AnExitedThreadsDisposedLastAliasOutlivesTheCollections) {
  const int64_t live = stats().live_references;
  const int64_t listed = testing::listed_aliases();
  std::thread([] {
    T t = T::full({1}, 1.0f);
    t.dispose();  // the head of the thread's list: disposed, and unreachable once the thread ends
  }).join();

  // Collections that sweep whatever the lists do not keep, each followed by
  // aliases enough to reuse that memory.
  T t = T::full({2}, 3.0f);
  gc::vector<T> kept;
  for (int round = 0; round < 4; ++round) {
    collect_clean();
    alias_and_dispose(t, 20'000);
    for (int i = 0; i < 25; ++i) kept.push_back(t.alias());
  }
  collect_clean();
  EXPECT_EQ(stats().live_references, live + 1 + 100);  // `t` and `kept`
  EXPECT_LE(testing::listed_aliases(), listed + 1 + 100 + 2);
  for (T& k : kept) {
    T sum = k.sum();
    ASSERT_EQ(sum.item<float>(), 6.0f);
    sum.dispose();
    k.dispose();
  }
  EXPECT_EQ(stats().live_references, live + 1);
}

// Threads push onto their lists while this one collects (walks them) over and
// over: at the end every reference is accounted for, and every dropped alias
// finalized.
TEST_F(GcListsTest, CollectionsWhileOtherThreadsPushKeepTheCountsExact) {
  constexpr int kThreads = 3;
  constexpr int kRounds = 2'000;
  const int64_t live = stats().live_references;
  const int64_t finalized = stats().finalized;
  T t = T::full({2}, 1.0f);
  std::vector<gc::vector<T>> kept(kThreads);  // gc::vector buffers: the collector sees them
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w) {
    threads.emplace_back([&, w] {
      ThreadRegistration registration;
      for (int i = 0; i < kRounds; ++i) {
        T a = t.alias();
        a.dispose();
        T b = t.alias();  // dropped: the collector's
        if (i % 4 == 0) kept[w].push_back(t.alias());
      }
      running.fetch_sub(1);
    });
  }
  int64_t collections = 0;
  while (running.load() > 0) {
    collect();
    ++collections;
  }
  for (std::thread& th : threads) th.join();
  collect_clean();
  EXPECT_GT(collections, 0);
  const int64_t held = kThreads * kRounds / 4;
  EXPECT_GE(stats().live_references, live + 1 + held);
  EXPECT_LE(stats().live_references, live + 1 + held + 3);  // kScanKeeps: a stale word or three
  EXPECT_GE(stats().finalized - finalized, kThreads * kRounds - 3);
  for (gc::vector<T>& v : kept) {
    for (T& k : v) k.dispose();
  }
  EXPECT_LE(stats().live_references, live + 1 + 3);
}

}  // namespace
}  // namespace custody::gc
