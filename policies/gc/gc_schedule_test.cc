// Copyright 2026 The custody Authors.
//
// Note [The collector's own schedule under a trigger] (schedule.cc): while a pressure
// trigger is set and the collections find the program disposing what it
// creates, libgc's own collections come at most every 1 MiB of aliases; when
// they find it dropping handles for the collector, and without a trigger,
// libgc's schedule is its own. Its own binary: it changes libgc's global
// setting.

#include <gc/gc.h>

#include <cstddef>
#include <cstdint>

#include "backends/onednn/onednn.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "policies/gc/testing.h"

namespace custody {
namespace {

using GcTensor = BasicTensor<gc::Policy, Onednn>;
using Guard = PolicyIdiom<gc::Policy>::Guard;

constexpr int64_t kAliases = 100'000;  // 6.4 MB of 64-byte aliases
constexpr size_t kFloor = size_t{1} << 20;
constexpr int64_t kNeverFires = int64_t{1} << 40;

// libgc's collections (its own and collect()'s) while `body` runs.
template <class Body>
uint64_t collections_during(Body body) {
  const uint64_t before = GC_get_gc_no();
  body();
  return GC_get_gc_no() - before;
}

void alias_and_dispose(const GcTensor& t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    GcTensor a = t.alias();
    a.dispose();
  }
}

// Each alias dropped with its reference: the collector's to finalize.
void alias_and_drop(const GcTensor& t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    GcTensor a = t.alias();
  }
}

class GcScheduleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gc::collector_enabled()) GTEST_SKIP() << "gc's collector is off in this build (tsan)";
    if (gc::testing::uses_finalizer_table()) {
      GTEST_SKIP() << "--config=gc_table: the pass that adapts the schedule is the table's finalizers";
    }
    gc::clear_pressure_trigger();
    gc::collect();
    default_ = GC_get_min_bytes_allocd();
  }
  void TearDown() override { gc::clear_pressure_trigger(); }

  size_t default_ = 0;
  Guard guard_;
};

// First in this binary: the collection count without a trigger is libgc's on
// a fresh heap (the floor lets libgc grow its heap, ~2 MiB here, which it keeps).
TEST_F(GcScheduleTest, DisposingUnderATriggerCollectsLessOften) {
  GcTensor t = GcTensor::ones({4});
  const uint64_t untriggered = collections_during([&] { alias_and_dispose(t, kAliases); });
  EXPECT_GE(untriggered, 10u) << "libgc collects on its own every ~100 KB of aliases";
  uint64_t triggered = 0;
  {
    gc::ScopedPressureTrigger trigger(kNeverFires);
    triggered = collections_during([&] { alias_and_dispose(t, kAliases); });
    EXPECT_EQ(GC_get_min_bytes_allocd(), kFloor) << "raised once a collection found only husks";
  }
  EXPECT_LE(triggered, static_cast<uint64_t>(kAliases * 64 / kFloor + 2))
      << "at most one of libgc's collections per MiB of aliases, and the one that raised the floor";
  EXPECT_LE(triggered * 3, untriggered)
      << "under a trigger, disposed aliases need libgc's collections less: " << triggered << " vs "
      << untriggered;
  EXPECT_EQ(GC_get_min_bytes_allocd(), default_) << "clear_pressure_trigger() restores libgc's default";
  t.dispose();
}

TEST_F(GcScheduleTest, DroppingUnderATriggerKeepsLibgcsSchedule) {
  GcTensor t = GcTensor::ones({4});
  gc::ScopedPressureTrigger trigger(kNeverFires);
  alias_and_dispose(t, kAliases);  // raises the floor
  ASSERT_EQ(GC_get_min_bytes_allocd(), kFloor);
  // The first collection that finds dropped aliases puts libgc's default back,
  // whichever collection it is (collect() here: the floor may hold libgc's own back).
  alias_and_drop(t, 20'000);
  EXPECT_GT(gc::collect(), 0);
  EXPECT_EQ(GC_get_min_bytes_allocd(), default_) << "the program drops handles: libgc's own schedule";
  // libgc's own collections (no collect() here; the trigger never fires) give
  // the dropped aliases' references back, all but those since the last one.
  const int64_t finalized_before = gc::stats().finalized;
  alias_and_drop(t, kAliases);
  EXPECT_GE(gc::stats().finalized - finalized_before, kAliases / 2);
  EXPECT_EQ(GC_get_min_bytes_allocd(), default_);
  gc::collect();
  t.dispose();
}

TEST_F(GcScheduleTest, WithoutATriggerTheScheduleIsLibgcs) {
  GcTensor t = GcTensor::ones({4});
  alias_and_dispose(t, kAliases);
  gc::collect();
  EXPECT_EQ(GC_get_min_bytes_allocd(), default_);
  t.dispose();
}

}  // namespace
}  // namespace custody
