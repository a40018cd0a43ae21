// Copyright 2026 The custody Authors.
//
// testing/device.h — what a test does when the device it needs is missing.
//
//   void SetUp() override {
//     if (!Cuda::available()) CUSTODY_SKIP_WITHOUT_DEVICE("no CUDA device: " << why);
//   }
//
// By default the test is skipped, saying why (CI has no GPU: the CUDA tests
// skip and count as skipped). With CUSTODY_REQUIRE_CUDA=1 in the environment
// the test fails instead: on a machine that has a GPU (tools/gpu's launcher
// sets it there), a broken driver, a missing library or a failed device set-up
// must not pass as a run of skips.

#ifndef CUSTODY_TESTING_DEVICE_H_
#define CUSTODY_TESTING_DEVICE_H_

#include <cstdlib>
#include <cstring>

#include "gtest/gtest.h"

namespace custody::testing {

// Whether CUSTODY_REQUIRE_CUDA=1: a missing device fails the test.
inline bool device_required() {
  const char* v = std::getenv("CUSTODY_REQUIRE_CUDA");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace custody::testing

// Skips the current test (or, with CUSTODY_REQUIRE_CUDA=1, fails it) with the
// streamed message `why`; returns from the enclosing function either way.
#define CUSTODY_SKIP_WITHOUT_DEVICE(why)                                                  \
  do {                                                                                    \
    if (::custody::testing::device_required()) {                                          \
      GTEST_FAIL() << "CUSTODY_REQUIRE_CUDA=1 (a GPU is expected here), but: " << why;    \
    } else {                                                                              \
      GTEST_SKIP() << why;                                                                \
    }                                                                                     \
  } while (0)

#endif  // CUSTODY_TESTING_DEVICE_H_
