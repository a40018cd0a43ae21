// Copyright 2026 The custody Authors.
//
// core/sites.h: a Site is raw frames, empty when tracking is off, symbolized
// only by to_string()/describe() (Note [Raw frames]).

#include "core/sites.h"

#include <string>

#include "absl/base/attributes.h"
#include "gtest/gtest.h"

namespace custody::sites {
namespace {

ABSL_ATTRIBUTE_NOINLINE Site CaptureInThisNamedFunction() {
  Site s = capture();
  asm volatile("" ::: "memory");  // no tail call: this frame stays on the stack
  return s;
}

TEST(SitesTest, EmptyWhenTrackingIsOff) {
  ScopedTracking off(false);
  const Site s = capture();
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.size(), 0);
  EXPECT_EQ(s.frames(), nullptr);
  EXPECT_EQ(s.to_string(), "");
  EXPECT_EQ(describe("created at", s),
            "  (created at: unknown; set CUSTODY_TRACK_SITES=1 to record sites)\n");
  void* frames[4] = {};
  EXPECT_EQ(capture_frames(frames, 4), 0);
}

TEST(SitesTest, CapturesRawFramesAndSymbolizesOnDemand) {
  ScopedTracking on(true);
  const Site s = CaptureInThisNamedFunction();
  ASSERT_FALSE(s.empty());
  ASSERT_GT(s.size(), 1);
  EXPECT_LE(s.size(), Site::kMaxFrames);
  const std::string text = s.to_string();
  // The caller of capture() is frame #0 (or #1 after capture() itself): no
  // frame of the caller's is skipped (Note [No skipped frames] in sites.cc).
  const size_t first = text.find('\n');
  ASSERT_NE(first, std::string::npos) << text;
  const size_t second = text.find('\n', first + 1);
  EXPECT_NE(text.substr(0, second).find("CaptureInThisNamedFunction"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("    #0 0x", 0), 0u) << text;
  EXPECT_NE(text.find("SitesTest"), std::string::npos) << "the test's own frame:\n" << text;
  EXPECT_EQ(describe("created at", s), "  created at:\n" + text);
}

TEST(SitesTest, CopiesShareTheFrames) {
  ScopedTracking on(true);
  const Site a = capture();
  const Site b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(a.frames(), b.frames());
  EXPECT_EQ(a.to_string(), b.to_string());
}

TEST(SitesTest, FromFramesRoundTrips) {
  ScopedTracking on(true);
  void* pcs[Site::kMaxFrames] = {};
  const int n = capture_frames(pcs, Site::kMaxFrames);
  ASSERT_GT(n, 0);
  const Site s = Site::from_frames(pcs, n);
  ASSERT_EQ(s.size(), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(s.frames()[i], pcs[i]);
  EXPECT_NE(s.to_string().find("FromFramesRoundTrips"), std::string::npos) << s.to_string();
  EXPECT_TRUE(Site::from_frames(pcs, 0).empty());
  EXPECT_TRUE(Site::from_frames(nullptr, 3).empty());
  EXPECT_EQ(Site::from_frames(pcs, 1000).size(), Site::kMaxFrames) << "at most kMaxFrames kept";
}

TEST(SitesTest, DescribeText) {
  EXPECT_EQ(describe("freed at", std::string("    #0 0x1 f\n")), "  freed at:\n    #0 0x1 f\n");
  EXPECT_EQ(describe("freed at", std::string()),
            "  (freed at: unknown; set CUSTODY_TRACK_SITES=1 to record sites)\n");
}

}  // namespace
}  // namespace custody::sites
