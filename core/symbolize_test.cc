// Copyright 2026 The custody Authors.
//
// core/symbolize.h: a captured stack reads as file:line, an inlined call as a
// frame of its own at the line it was called from, and a planted line moves
// with the code (the lines below are checked against __LINE__).

#include "core/symbolize.h"

#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/sites.h"
#include "gtest/gtest.h"

namespace custody::sites {
namespace {

int capture_line = 0;
int inlined_call_line = 0;

ABSL_ATTRIBUTE_NOINLINE Site CaptureAtAKnownLine() {
  capture_line = __LINE__ + 1;
  Site s = capture();
  asm volatile("" ::: "memory");  // no tail call: this frame stays on the stack
  return s;
}

// Inlined into its caller, so its call of CaptureAtAKnownLine is in the caller's code.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Site InlinedIntoItsCaller() {
  inlined_call_line = __LINE__ + 1;
  Site s = CaptureAtAKnownLine();
  asm volatile("" ::: "memory");
  return s;
}

int outer_call_line = 0;
ABSL_ATTRIBUTE_NOINLINE Site CallsAnInlinedFunction() {
  outer_call_line = __LINE__ + 1;
  Site s = InlinedIntoItsCaller();
  asm volatile("" ::: "memory");
  return s;
}

TEST(SymbolizeTest, AFrameIsItsFileAndLine) {
  ScopedTracking on(true);
  const Site s = CaptureAtAKnownLine();
  ASSERT_FALSE(s.empty());
  const std::string text = s.to_string();
  const std::string here = absl::StrCat("core/symbolize_test.cc:", capture_line, " ");
  EXPECT_TRUE(absl::StrContains(text, here + "custody::sites::(anonymous namespace)::CaptureAtAKnownLine()"))
      << "expected " << here << " in\n" << text;
}

TEST(SymbolizeTest, AnInlinedCallIsAFrameAtTheLineItWasCalledFrom) {
  ScopedTracking on(true);
  const Site s = CallsAnInlinedFunction();
  ASSERT_FALSE(s.empty());
  const std::string text = s.to_string();
  const std::string inlined = absl::StrCat("core/symbolize_test.cc:", inlined_call_line, " ");
  const std::string outer = absl::StrCat("core/symbolize_test.cc:", outer_call_line, " ");
  const size_t at_inlined = text.find(inlined);
  const size_t at_outer = text.find(outer);
  ASSERT_NE(at_inlined, std::string::npos) << inlined << " in\n" << text;
  ASSERT_NE(at_outer, std::string::npos) << outer << " in\n" << text;
  EXPECT_LT(at_inlined, at_outer) << "the inlined call first, then the function it was inlined into:\n" << text;
  const size_t line_end = text.find('\n', at_inlined);
  EXPECT_TRUE(absl::StrContains(text.substr(at_inlined, line_end - at_inlined), "InlinedIntoItsCaller"));
  EXPECT_TRUE(absl::StrContains(text.substr(at_inlined, line_end - at_inlined), "(inlined)"));
}

TEST(SymbolizeTest, SystemFramesAndUnknownAddresses) {
  // No DWARF and no symbol: "??"; never empty.
  const std::vector<SourceFrame> none = symbolize(reinterpret_cast<const void*>(0x10));
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].function, "??");
  EXPECT_EQ(none[0].line, 0);
  EXPECT_EQ(format(none[0]), "??");
  EXPECT_EQ(format(SourceFrame{"f()", "a/b.h", 3, false}), "a/b.h:3 f()");
}

TEST(SymbolizeTest, PathsAreRelativeToTheWorkspace) {
  EXPECT_EQ(workspace_relative("/root/.cache/bazel/_bazel_root/abc/execroot/custody/core/tensor.h"), "core/tensor.h");
  EXPECT_EQ(workspace_relative("/proc/self/cwd/workloads/mlp/scope.h"), "workloads/mlp/scope.h");
  EXPECT_EQ(workspace_relative("external/custody/core/sites.cc"), "core/sites.cc");
  EXPECT_EQ(workspace_relative("./core/sites.cc"), "core/sites.cc");
  EXPECT_EQ(workspace_relative("/usr/include/c++/12/bits/shared_ptr.h"), "/usr/include/c++/12/bits/shared_ptr.h");
}

}  // namespace
}  // namespace custody::sites
