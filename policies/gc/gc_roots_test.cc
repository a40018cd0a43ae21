// Copyright 2026 The custody Authors.
//
// The gc policy's root filter (Note [Static roots] in gc.h), in a process
// with libtorch loaded and used (the aten backend): handles kept only in
// globals of the program and of a non-system shared library survive
// collections, unreachable ones are collected, and the static data libgc
// scans shrinks to what can hold handles (libtorch and the other system
// libraries are skipped), unless set_scan_all_libraries(true).

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "backends/aten/aten.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "policies/gc/testing.h"
#include "policies/gc/gc_roots_test_library.h"

namespace custody::gc {
namespace {

using T = BasicTensor<Policy, Aten>;

constexpr int kGlobals = 32;
T g_program_handles[kGlobals];  // the main program's .bss
T* const g_program_handles_end = g_program_handles + kGlobals;

static_assert(sizeof(T) <= roots_test::kLibrarySlotBytes);
T& library_handle() { return *std::launder(static_cast<T*>(roots_test::library_slot())); }

using ::custody::testing::collect_clean;  // policies/gc/testing.h

// Stores fresh handles in the globals; no copy survives in this frame.
__attribute__((noinline)) void fill_program_globals() {
  for (int i = 0; i < kGlobals; ++i) g_program_handles[i] = T::full({4}, static_cast<float>(i));
}

__attribute__((noinline)) void fill_library_global() {
  ::new (roots_test::library_slot()) T(T::full({3}, 42.0f));
}

__attribute__((noinline)) void drop_tensors(int n) {
  for (int i = 0; i < n; ++i) {
    T t = T::empty({16});
  }
}

class GcRootsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!collector_enabled()) GTEST_SKIP() << "the collector is disabled under ThreadSanitizer";
    since_ = testing::next_serial();
    scan_all_ = scan_all_libraries();
    set_scan_all_libraries(false);  // the filter, whatever CUSTODY_GC_SCAN_ALL_LIBRARIES says
    // An at:: kernel: libtorch is loaded *and* used in this process.
    T warm = T::ones({2, 2}).add(1.0f);
    ASSERT_EQ(warm.sum().item<float>(), 8.0f);
  }
  void TearDown() override {
    set_scan_all_libraries(scan_all_);
    for (T* h = g_program_handles; h != g_program_handles_end; ++h) *h = T();
    testing::release_created_on_this_thread_since(since_);
  }

  bool scan_all_ = false;  // the setting before the test (the default, normally)

 private:
  uint64_t since_ = 0;
};

TEST_F(GcRootsTest, DefaultFilterLeavesSystemLibrariesOut) {
  if (std::getenv("CUSTODY_GC_SCAN_ALL_LIBRARIES") == nullptr) {
    EXPECT_FALSE(scan_all_) << "the default: the filter is on";
  }
  EXPECT_TRUE(testing::scans_static_data_of("")) << "the main program";
  EXPECT_TRUE(testing::scans_static_data_of(
      "/root/.cache/bazel/x/execroot/custody/bazel-out/k8-fastbuild/bin/_solib_k8/"
      "libpolicies_Sgc_Slibgc.so"));
  EXPECT_TRUE(testing::scans_static_data_of("/usr/local/lib/libmyapp.so"));
  EXPECT_TRUE(testing::scans_static_data_of("/home/me/build/libmodel.so"));
  EXPECT_FALSE(testing::scans_static_data_of("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13"));
  EXPECT_FALSE(testing::scans_static_data_of("/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(testing::scans_static_data_of("/lib64/ld-linux-x86-64.so.2"));
  EXPECT_FALSE(testing::scans_static_data_of("/usr/local/cuda-12.2/lib64/libcudart.so.12"));
  // CUSTODY_GC_SYSTEM_DIRS (BUILD sets "/opt/custody-gpu/lib::/usr/local/nvidia/"): folders, not
  // name prefixes.
  EXPECT_FALSE(testing::scans_static_data_of("/opt/custody-gpu/lib/libcublasLt.so.13"));
  EXPECT_FALSE(testing::scans_static_data_of("/usr/local/nvidia/lib64/libcuda.so.1"));
  EXPECT_TRUE(testing::scans_static_data_of("/opt/custody-gpu/lib64/libmine.so"));
  EXPECT_TRUE(testing::scans_static_data_of("/opt/custody-gpu/solib/libcustody.so"));
  set_scan_all_libraries(true);
  EXPECT_TRUE(scan_all_libraries());
  EXPECT_TRUE(testing::scans_static_data_of("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13"));
  set_scan_all_libraries(false);
  EXPECT_FALSE(testing::scans_static_data_of("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13"));
}

TEST_F(GcRootsTest, HandlesInProgramGlobalsSurviveCollections) {
  fill_program_globals();
  for (int round = 0; round < 3; ++round) {
    drop_tensors(200);  // garbage, so the collections have something to do
    collect_clean();
    // Checked after every collection: a finalized alias reads as disposed
    // until the next one may reuse its memory (Note [G4 without undefined behaviour]).
    for (int i = 0; i < kGlobals; ++i) {
      ASSERT_FALSE(g_program_handles[i].is_disposed())
          << "global handle " << i << " was finalized in round " << round;
    }
  }
  for (int i = 0; i < kGlobals; ++i) {
    ASSERT_FALSE(g_program_handles[i].is_disposed()) << "global handle " << i << " was finalized";
    EXPECT_EQ(g_program_handles[i].sum().item<float>(), 4.0f * static_cast<float>(i));
  }
}

TEST_F(GcRootsTest, HandleInAStaticVariableSurvivesCollections) {
  static T kept;  // function-local static: the main program's .bss
  [] __attribute__((noinline)) { kept = T::full({2}, 5.0f); }();
  collect_clean();
  ASSERT_FALSE(kept.is_disposed());
  collect_clean();
  ASSERT_FALSE(kept.is_disposed());
  EXPECT_EQ(kept.sum().item<float>(), 10.0f);
  kept = T();
}

TEST_F(GcRootsTest, HandleInASharedLibraryGlobalSurvivesCollections) {
  fill_library_global();
  for (int round = 0; round < 3; ++round) {
    drop_tensors(200);
    collect_clean();
    ASSERT_FALSE(library_handle().is_disposed())
        << "a handle in a non-system shared library's global was finalized in round " << round;
  }
  EXPECT_EQ(library_handle().sum().item<float>(), 126.0f);
  library_handle().~T();
}

TEST_F(GcRootsTest, UnreachableHandlesAreCollected) {
  const int64_t finalized = stats().finalized;
  drop_tensors(1000);
  collect_clean();
  EXPECT_GE(stats().finalized - finalized, 900) << "of 1000 unreachable aliases, >= 90% finalized";
}

// Kept in gc::vector (collector memory), 15 of every 16 handles made in a row; the serial of the
// 16th, dropped, in `dropped`.
__attribute__((noinline)) void keep_most(vector<T>& kept, std::vector<uint64_t>& dropped, int n) {
  for (int i = 0; i < n; ++i) {
    T t = T::empty({16});
    if (i % 16 != 15) {
      kept.push_back(t);
    } else {
      dropped.push_back(testing::serial_of(t));
    }
  }
}

// Unreachable aliases among reachable ones (made in a row, so in the same collector blocks) are
// collected too. libgc does not sweep a block more than 7/8 marked (GC_reclaim_block): aliases are
// finalized by mark bit, not from the sweep (a disclaim procedure run by the sweep would leave most of
// them: Note [Finalizers from mark bits], finalize.cc).
TEST_F(GcRootsTest, UnreachableHandlesAmongReachableOnesAreCollected) {
  vector<T> kept;
  std::vector<uint64_t> dropped;
  keep_most(kept, dropped, 1024);
  collect_clean();
  EXPECT_LE(testing::still_holding(dropped).size(), 3u)
      << "of 64 unreachable aliases among 960 reachable ones, more than the conservative scan keeps "
         "were not finalized";
  for (T& t : kept) ASSERT_FALSE(t.is_disposed());
  for (T& t : kept) t.dispose();
}

TEST_F(GcRootsTest, StaticRootsShrinkWithLibtorchLoaded) {
  set_scan_all_libraries(true);
  collect();
  const Stats all = stats();
  set_scan_all_libraries(false);
  collect();
  const Stats filtered = stats();
  SCOPED_TRACE("scan all: " + all.to_string() + "\nfiltered: " + filtered.to_string());
  RecordProperty("scan_all", all.to_string());  // in test.xml
  RecordProperty("filtered", filtered.to_string());

  // libgc's default: every loaded object (libtorch pulls in hundreds).
  EXPECT_EQ(all.root_objects_skipped, 0);
  EXPECT_EQ(all.root_bytes_skipped, 0);
  EXPECT_GT(all.root_objects_scanned, 50) << "libtorch and its dependencies are loaded";

  // The filter: the same objects, most of them (and of their bytes) skipped.
  EXPECT_EQ(filtered.root_objects_scanned + filtered.root_objects_skipped,
            all.root_objects_scanned);
  EXPECT_EQ(filtered.root_bytes_scanned + filtered.root_bytes_skipped, all.root_bytes_scanned);
  EXPECT_GE(filtered.root_objects_scanned, 1) << "the main program at least";
  EXPECT_GT(filtered.root_objects_skipped, filtered.root_objects_scanned);
  EXPECT_LT(filtered.root_bytes_scanned * 4, all.root_bytes_scanned)
      << "less than a quarter of the static data is still scanned";
}

}  // namespace
}  // namespace custody::gc
