// Copyright 2026 The custody Authors.
//
// host::any_special_f32 (loops.h), the scan of Note [Special values]: compiled
// for AVX-512, AVX2 and baseline x86-64 and picked at load time (Note [Scan
// clones], loops.cc). Every length up to a few vectors, every start offset
// within a cache line and every position of each special value: the answer of
// a scalar reference from <cmath>. The dense float32 relu and add/sub/mul/div
// (Note [Relu clones]) over every length and offset: ATen's answers element by
// element, NaN and infinities included.

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

// Dense float32 views of `n` elements at `data`.
KernelView dense_view(float* data, const Dims& sizes, const Dims& strides) {
  return KernelView{data, ScalarType::Float, sizes, strides};
}

TEST(DenseFloatClonesTest, ReluAndArithmeticEveryLengthAndOffset) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), -0.0f, 0.0f, -1e-40f, 3.5f, -2.25f};
  std::vector<float> a(16 + 80), b(16 + 80), out(16 + 80);
  for (int64_t offset = 0; offset < 16; offset += 3) {
    for (int64_t n = 1; n <= 80; ++n) {
      float* x = a.data() + offset;
      float* y = b.data() + offset;
      float* o = out.data() + offset;
      for (int64_t i = 0; i < n; ++i) {
        x[i] = specials[(i + offset) % 8] * (i % 3 == 0 ? 1.0f : -0.5f);
        y[i] = specials[(i * 5 + 1) % 8] + static_cast<float>(i % 4);
      }
      const Dims sizes{n}, strides{1};
      const KernelView vo = dense_view(o, sizes, strides), vx = dense_view(x, sizes, strides),
                       vy = dense_view(y, sizes, strides);
      ASSERT_TRUE(unary_loop(UnaryOp::kRelu, vo, vx).ok());
      for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) {
          ASSERT_TRUE(std::isnan(o[i])) << "relu keeps NaN, n " << n << " i " << i;
        } else {
          ASSERT_EQ(o[i], x[i] > 0 ? x[i] : 0.0f) << "relu, n " << n << " i " << i;
        }
      }
      for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv}) {
        ASSERT_TRUE(binary_loop(op, vo, vx, vy).ok());
        for (int64_t i = 0; i < n; ++i) {
          const float want = op == BinaryOp::kAdd   ? x[i] + y[i]
                             : op == BinaryOp::kSub ? x[i] - y[i]
                             : op == BinaryOp::kMul ? x[i] * y[i]
                                                    : x[i] / y[i];
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(o[i])) << static_cast<int>(op) << " n " << n << " i " << i;
          } else {
            ASSERT_EQ(o[i], want) << static_cast<int>(op) << " n " << n << " i " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace custody::host
