// Copyright 2026 The custody Authors.
//
// Note [No trigger] (schedule.cc): a gc program that sets no pressure trigger is told,
// once, when the tensor memory it allocates between collections outgrows the
// collector's heap 64 times over; one with a trigger never is. Its own binary:
// the warning is printed once per process.

#include <cstdint>
#include <string>

#include "backends/onednn/onednn.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "policies/gc/testing.h"

namespace custody {
namespace {

using GcTensor = BasicTensor<gc::Policy, Onednn>;
using Guard = PolicyIdiom<gc::Policy>::Guard;

constexpr int64_t kTensorBytes = int64_t{1} << 20;

// Allocates (and gives back at once) `bytes` of 1 MiB tensors, no collection between.
void allocate(int64_t bytes) {
  for (int64_t done = 0; done < bytes; done += kTensorBytes) {
    GcTensor t = GcTensor::zeros({kTensorBytes / 4});
    t.dispose();
  }
}

int64_t occurrences(const std::string& text, const std::string& what) {
  int64_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

constexpr char kWarning[] = "no pressure trigger is set";

TEST(GcNoTrigger, AProgramWithATriggerIsNotWarned) {
  if (!gc::collector_enabled()) GTEST_SKIP() << "gc's collector is off in this build (tsan)";
  Guard guard;
  gc::collect();
  gc::ScopedPressureTrigger trigger(int64_t{1} << 40);  // set, though it never fires here
  ::testing::internal::CaptureStderr();
  allocate(96 * gc::stats().gc_heap_bytes);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, kWarning), 0) << err;
  EXPECT_FALSE(gc::internal::no_trigger_warning_printed());
}

TEST(GcNoTrigger, WarnsOnceWhenTensorMemoryOutgrowsTheHeapWithoutATrigger) {
  if (!gc::collector_enabled()) GTEST_SKIP() << "gc's collector is off in this build (tsan)";
  Guard guard;
  gc::collect();  // the bytes count from the last collection
  const int64_t heap = gc::stats().gc_heap_bytes;
  ::testing::internal::CaptureStderr();
  allocate(32 * heap);  // below the ratio
  const std::string below = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(below, kWarning), 0) << below;
  ::testing::internal::CaptureStderr();
  allocate(96 * heap);  // past it (64x), then as much again
  allocate(96 * heap);
  const std::string past = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(past, kWarning), 1) << past;
  EXPECT_NE(past.find("gc::set_pressure_trigger"), std::string::npos) << "says what to do: " << past;
  EXPECT_TRUE(gc::internal::no_trigger_warning_printed());
}

}  // namespace
}  // namespace custody
