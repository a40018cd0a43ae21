// Copyright 2026 The custody Authors.
//
// host::any_special_f32 (loops.h), the scan of Note [Special values]: compiled
// for AVX-512, AVX2 and baseline x86-64 and picked at load time (Note [Scan
// clones], loops.cc). Every length up to a few vectors, every start offset
// within a cache line and every position of each special value: the answer of
// a scalar reference from <cmath>. The dense float32 relu and add/sub/mul/div
// (Note [Relu clones]) over every length and offset: ATen's answers element by
// element, NaN and infinities included. The softmax row kernel (Note [Softmax
// rows]) against softmax computed in double, rows holding a special value left
// to the caller.

#include "backends/host/loops.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
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

// softmax and log_softmax of each row of `x`, in double, as float.
std::vector<float> softmax_reference(const std::vector<float>& x, int64_t rows, int64_t cols, bool log) {
  std::vector<float> out(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    float mx = row[0];
    for (int64_t k = 1; k < cols; ++k) mx = std::max(mx, row[k]);
    double sum = 0;
    for (int64_t k = 0; k < cols; ++k) sum += std::exp(static_cast<double>(row[k] - mx));
    for (int64_t k = 0; k < cols; ++k) {
      const double t = static_cast<double>(row[k] - mx);
      out[r * cols + k] = static_cast<float>(log ? t - std::log(sum) : std::exp(t) / sum);
    }
  }
  return out;
}

TEST(SoftmaxRowsTest, MatchesDoubleEveryLengthInPlaceAndOut) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-30.0f, 30.0f);
  const float extremes[] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                            std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(), 0.0f,
                            -0.0f, -100.0f, 88.0f};
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 70; ++n) lengths.push_back(n);
  lengths.push_back(1000);
  lengths.push_back(4096);
  for (int64_t cols : lengths) {
    for (int variant = 0; variant < 3; ++variant) {
      const int64_t rows = 3;
      std::vector<float> x(rows * cols);
      for (float& v : x) v = dist(gen);
      if (variant == 1) {  // large and tiny magnitudes, +-0, and an overflowing x - max
        for (size_t i = 0; i < x.size(); i += 3) x[i] = extremes[(i / 3) % 8];
      }
      if (variant == 2) {  // one value far above the rest: others' exp underflow
        for (int64_t r = 0; r < rows; ++r) x[r * cols + (r * 7) % cols] = 200.0f;
      }
      for (bool log : {false, true}) {
        const std::vector<float> want = softmax_reference(x, rows, cols, log);
        for (bool in_place : {false, true}) {
          std::vector<float> buffer = in_place ? x : std::vector<float>(x.size(), -7.0f);
          const float* in = in_place ? buffer.data() : x.data();
          ASSERT_EQ(softmax_rows_f32(buffer.data(), in, rows, cols, log), rows);
          for (size_t i = 0; i < x.size(); ++i) {
            const float w = want[i], got = buffer[i];
            if (std::isinf(w)) {
              ASSERT_EQ(got, w) << "cols " << cols << " variant " << variant << " log " << log << " i " << i;
              continue;
            }
            const float tolerance = log ? 2e-6f * std::max(1.0f, std::fabs(w)) : 1e-5f * w + 1e-37f;
            ASSERT_NEAR(got, w, tolerance) << "cols " << cols << " variant " << variant << " log " << log
                                           << " in place " << in_place << " i " << i << " x " << x[i];
          }
        }
      }
    }
  }
}

TEST(SoftmaxRowsTest, StopsBeforeARowHoldingASpecialValue) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
                            -1e-40f};
  for (int64_t cols : {1, 5, 16, 33, 300}) {
    for (float special : specials) {
      for (int64_t pos : {int64_t{0}, cols / 2, cols - 1}) {
        const int64_t rows = 3;
        std::vector<float> x(rows * cols, 0.5f);
        for (int64_t i = 0; i < rows * cols; ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
        x[cols + pos] = special;
        std::vector<float> out(x.size(), -7.0f);
        for (bool log : {false, true}) {
          ASSERT_EQ(softmax_rows_f32(out.data(), x.data(), rows, cols, log), 1)
              << "cols " << cols << " value " << special << " at " << pos;
          for (int64_t k = 0; k < cols; ++k) {
            ASSERT_EQ(out[cols + k], -7.0f) << "the special row is left unwritten";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace custody::host
