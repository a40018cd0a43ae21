// Copyright 2026 The custody Authors.
//
// host::any_special_f32 (loops.h), the scan of Note [Special values]: compiled
// for AVX-512, AVX2 and baseline x86-64 and picked at load time (Note [Scan
// clones], loops.cc). Every length up to a few vectors, every start offset
// within a cache line and every position of each special value: the answer of
// a scalar reference from <cmath>.

#include "backends/host/loops.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace custody::host {
namespace {

bool reference(const float* data, int64_t n, bool zeros_are_special) {
  for (int64_t i = 0; i < n; ++i) {
    const int c = std::fpclassify(data[i]);
    if (c == FP_NAN || c == FP_INFINITE || c == FP_SUBNORMAL) return true;
    if (zeros_are_special && c == FP_ZERO) return true;
  }
  return false;
}

TEST(AnySpecialF32Test, EveryLengthOffsetAndPosition) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::min(),  // smallest normal: not special
                            std::numeric_limits<float>::max()};
  std::vector<float> buffer(16 + 80);
  int64_t checked = 0;
  for (int64_t offset = 0; offset < 16; ++offset) {
    for (int64_t n = 0; n <= 80; ++n) {
      float* data = buffer.data() + offset;
      for (int64_t i = 0; i < n; ++i) data[i] = 1.0f + static_cast<float>(i) * 0.25f;
      for (bool zeros : {false, true}) {
        ASSERT_FALSE(any_special_f32(data, n, zeros)) << "n " << n << " offset " << offset;
      }
      for (int64_t pos = 0; pos < n; ++pos) {
        for (float v : specials) {
          const float saved = data[pos];
          data[pos] = v;
          for (bool zeros : {false, true}) {
            ASSERT_EQ(any_special_f32(data, n, zeros), reference(data, n, zeros))
                << "n " << n << " offset " << offset << " position " << pos << " value " << v
                << " zeros_are_special " << zeros;
            ++checked;
          }
          data[pos] = saved;
        }
      }
      // A special value just past the end is not looked at.
      data[n] = std::numeric_limits<float>::quiet_NaN();
      EXPECT_FALSE(any_special_f32(data, n, false));
    }
  }
  EXPECT_GT(checked, 100'000);
}

}  // namespace
}  // namespace custody::host
