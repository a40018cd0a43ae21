// Copyright 2026 The custody Authors.
//
// custody::report (custody/report.h) from code: the analysis it returns names
// the function that held memory past its last use, and misuse is an error
// that says what to do.

#include "custody/report.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/base/attributes.h"
#include "absl/strings/match.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "custody/tensor.h"
#include "gtest/gtest.h"

namespace {

using custody::Tensor;

ABSL_ATTRIBUTE_NOINLINE Tensor make_held() { return Tensor::ones({256, 256}); }

std::string tmp(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(ReportTest, NamesTheFunctionThatMadeWhatWasHeldPastItsLastUse) {
  [[maybe_unused]] custody::PolicyTraits<custody::SelectedPolicy>::Unscoped no_scope_needed;
  custody::report::start();
  EXPECT_TRUE(custody::report::active());
  for (int step = 0; step < 3; ++step) {
    Tensor held = make_held();
    Tensor total = held.sum();  // its last use
    for (int i = 0; i < 20; ++i) {
      Tensor a = Tensor::ones({8, 8});
      Tensor b = a.mul(2.0);
      custody::release(a);
      custody::release(b);
    }
    custody::release(held);
    custody::release(total);
    custody::report::step();
  }
  const std::string path = tmp("report.html");
  const custody::report::HeldDead h = custody::report::write_html(path);
  EXPECT_FALSE(custody::report::active());
  EXPECT_EQ(h.steps, 3);
  ASSERT_FALSE(h.sites.empty());
  EXPECT_TRUE(absl::StrContains(h.sites[0].frame, "make_held")) << h.sites[0].frame;
  EXPECT_GT(h.sites[0].held_dead_byte_steps, 0.8 * 3 * 256 * 256 * 4);
  std::ifstream f(path);
  std::stringstream page;
  page << f.rdbuf();
  EXPECT_TRUE(absl::StrContains(page.str(), "make_held"));
  EXPECT_TRUE(absl::StrContains(page.str(), custody::SelectedPolicy::name));
}

TEST(ReportTest, MisuseIsAnErrorThatSaysWhatToDo) {
  try {
    custody::report::write_html(tmp("never.html"));
    FAIL() << "no error";
  } catch (const custody::InvalidArgument& e) {
    EXPECT_TRUE(absl::StrContains(e.what(), "call start() first")) << e.what();
  }
  custody::report::start();
  EXPECT_THROW(custody::report::start(), custody::InvalidArgument);
  try {
    custody::report::write_html("/dev/null/report.html");
    FAIL() << "no error";
  } catch (const custody::InvalidArgument& e) {
    EXPECT_TRUE(absl::StrContains(e.what(), "/dev/null/report.html")) << e.what();
  }
  EXPECT_FALSE(custody::report::active());  // the failed write ended the recording
  custody::report::step();                   // without a report: nothing
}

}  // namespace
