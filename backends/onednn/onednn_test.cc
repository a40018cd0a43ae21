// Copyright 2026 The custody Authors.
//
// backends/onednn/onednn_test.cc — the oneDNN primitive path is really taken
// for large float32 work (Onednn::primitive_calls() grows), tiny work stays on
// the direct loops, and both paths compute the same values.
//
// Numerics against libtorch are checked by the conformance suite
// (//tests/conformance, NumericsTest.Large*); this test pins down *which* path
// ran, which only this backend can tell. Tolerance between the two paths:
// rtol 1e-4, atol 1e-4 (oneDNN's polynomial eltwise approximations and blocked
// accumulation vs the loops' libm calls and double accumulators).

#include "backends/onednn/onednn.h"

#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "core/threads.h"
#include "gtest/gtest.h"
#include "oneapi/dnnl/dnnl.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody {
namespace {

using T = BasicTensor<tensor_ptr::Policy, Onednn>;

T random_tensor(std::vector<int64_t> sizes, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return T::from_vector(v, IntSpan(sizes.data(), sizes.size()));
}

// Forces the direct loops for the lifetime of the object.
class LoopsOnly {
 public:
  LoopsOnly() : saved_(Onednn::primitive_threshold()) {
    Onednn::set_primitive_threshold(std::numeric_limits<int64_t>::max());
  }
  ~LoopsOnly() { Onednn::set_primitive_threshold(saved_); }

 private:
  int64_t saved_;
};

std::vector<double> values(const T& t) {
  const T f = t.to(ScalarType::Double);
  return f.to_vector<double>();
}

// Runs `op` on the primitive path (checking that a primitive executed) and on
// the loops, and compares the two results.
enum class Path { kPrimitive, kAny };

void ExpectMatchesLoops(Path path, const std::string& what, const std::function<T()>& op,
                        double rtol = 1e-4, double atol = 1e-4) {
  SCOPED_TRACE(what);
  const int64_t before = Onednn::primitive_calls();
  const T fast = op();
  if (path == Path::kPrimitive) {
    EXPECT_GT(Onednn::primitive_calls(), before) << what << ": expected a oneDNN primitive to run";
  }
  std::vector<double> slow;
  {
    LoopsOnly loops;
    const int64_t loops_before = Onednn::primitive_calls();
    slow = values(op());
    EXPECT_EQ(Onednn::primitive_calls(), loops_before) << what << ": the loop path ran a primitive";
  }
  const std::vector<double> got = values(fast);
  ASSERT_EQ(got.size(), slow.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(slow[i]);
    if (!both_nan && !(std::fabs(got[i] - slow[i]) <= atol + rtol * std::fabs(slow[i]))) {
      ADD_FAILURE() << what << " [" << i << "]: primitive " << got[i] << ", loops " << slow[i];
      ++bad;
    }
  }
}

void ExpectPrimitiveMatchesLoops(const std::string& what, const std::function<T()>& op,
                                 double rtol = 1e-4, double atol = 1e-4) {
  ExpectMatchesLoops(Path::kPrimitive, what, op, rtol, atol);
}
// Layouts for which oneDNN 2.6 has only a reference kernel, so the loops run
// (Note [No reference kernels] in onednn.cc); the values must still agree.
void ExpectLoopsWhereOnlyRef(const std::string& what, const std::function<T()>& op, double rtol = 1e-4,
                             double atol = 1e-4) {
  ExpectMatchesLoops(Path::kAny, what, op, rtol, atol);
}

class OnednnPrimitivePathTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(Onednn::primitive_threshold(), int64_t{1} << 14); }
};

TEST_F(OnednnPrimitivePathTest, BinaryLargeFloat32WithAndWithoutBroadcasting) {
  const T a = random_tensor({128, 160}, -3, 3, 1);
  const T row = random_tensor({160}, 0.5f, 3, 3);
  const T col = random_tensor({128, 1}, 0.5f, 3, 4);
  // Dense operands of one shape stay on the loops below 8x the threshold.
  const T big = random_tensor({512, 320}, -3, 3, 1);
  const T big_b = random_tensor({512, 320}, 0.5f, 3, 2);
  ExpectPrimitiveMatchesLoops("add", [&] { return big.add(big_b); });
  ExpectPrimitiveMatchesLoops("sub", [&] { return big.sub(big_b); });
  ExpectPrimitiveMatchesLoops("mul", [&] { return big.mul(big_b); });
  ExpectPrimitiveMatchesLoops("div", [&] { return big.div(big_b); });
  ExpectPrimitiveMatchesLoops("add row", [&] { return a.add(row); });
  ExpectPrimitiveMatchesLoops("sub row", [&] { return a.sub(row); });
  ExpectPrimitiveMatchesLoops("mul col", [&] { return a.mul(col); });
  ExpectPrimitiveMatchesLoops("div col", [&] { return a.div(col); });
  ExpectPrimitiveMatchesLoops("row + a (commuted)", [&] { return row.add(a); });
  ExpectLoopsWhereOnlyRef("add transposed", [&] { return a.add(random_tensor({160, 128}, -1, 1, 5).t()); });
}

TEST_F(OnednnPrimitivePathTest, EltwiseLargeFloat32) {
  const T a = random_tensor({128, 160}, -4, 4, 6);
  const T p = random_tensor({128, 160}, 0.05f, 8, 7);
  ExpectPrimitiveMatchesLoops("neg", [&] { return a.neg(); });
  ExpectPrimitiveMatchesLoops("abs", [&] { return a.abs(); });
  ExpectPrimitiveMatchesLoops("exp", [&] { return a.exp(); });
  ExpectPrimitiveMatchesLoops("log", [&] { return p.log(); });
  ExpectPrimitiveMatchesLoops("sqrt", [&] { return p.sqrt(); });
  ExpectPrimitiveMatchesLoops("rsqrt", [&] { return p.rsqrt(); });
  ExpectPrimitiveMatchesLoops("tanh", [&] { return a.tanh(); });
  ExpectPrimitiveMatchesLoops("sigmoid", [&] { return a.sigmoid(); });
  ExpectPrimitiveMatchesLoops("gelu", [&] { return a.gelu(); });
  ExpectPrimitiveMatchesLoops("silu", [&] { return a.silu(); });
  // relu runs on the loops at every size (Note [Relu clones], backends/host/loops.cc).
  const int64_t before = Onednn::primitive_calls();
  const T r = a.relu();
  EXPECT_EQ(Onednn::primitive_calls(), before);
  const std::vector<float> in = a.to_vector<float>(), out = r.to_vector<float>();
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i] > 0 ? in[i] : 0.f) << i;
}

// Sum and mean run no primitive (Onednn::reduce): over trailing dims a float
// row is added in double over vector lanes, a full sum of a big tensor split
// into one chunk per thread. Checked against sums in double taken here.
TEST(OnednnReduceTest, SumAndMeanMatchADoubleReference) {
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{1 << 16}, std::vector<int64_t>{3, 40001},
                                            std::vector<int64_t>{64, 33}, std::vector<int64_t>{5, 1}}) {
    const T a = random_tensor(sizes, -1.f, 2.f, 11);
    const std::vector<float> v = a.to_vector<float>();
    const int64_t cols = sizes.back(), rows = static_cast<int64_t>(v.size()) / cols;
    const int64_t before = Onednn::primitive_calls();
    const std::vector<double> total = values(a.sum()), mean = values(a.mean());
    const std::vector<double> row_sums = values(a.sum(-1)), row_means = values(a.mean(-1, true));
    EXPECT_EQ(Onednn::primitive_calls(), before);
    double all = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += v[static_cast<size_t>(r * cols + c)];
      all += s;
      const double rtol = 1e-6;  // float32 results rounded from double sums
      EXPECT_NEAR(row_sums[static_cast<size_t>(r)], s, rtol * (1 + std::fabs(s))) << "row " << r;
      EXPECT_NEAR(row_means[static_cast<size_t>(r)], s / static_cast<double>(cols),
                  rtol * (1 + std::fabs(s / static_cast<double>(cols))));
    }
    EXPECT_NEAR(total[0], all, 1e-6 * (1 + std::fabs(all))) << "numel " << v.size();
    EXPECT_NEAR(mean[0], all / static_cast<double>(v.size()), 1e-6);
  }
}

TEST_F(OnednnPrimitivePathTest, SoftmaxAndLogSoftmax) {
  const T a = random_tensor({8, 64, 40}, -6, 6, 9);
  for (int64_t dim : {0, 1, 2}) {
    // No primitive: custody's row kernel over the innermost axis (Note [Softmax
    // rows], backends/host/loops.cc), the loops over the others.
    const Path path = Path::kAny;
    ExpectMatchesLoops(path, "softmax dim " + std::to_string(dim), [&] { return a.softmax(dim); }, 1e-4,
                       1e-6);
    ExpectMatchesLoops(path, "log_softmax dim " + std::to_string(dim), [&] { return a.log_softmax(dim); });
  }
}

// Note [Softmax rows]: the row kernel leaves a row holding a special value to
// the loops and goes on after it. In place here, so a row it has written must
// not be read again: every row as the loops compute it.
TEST_F(OnednnPrimitivePathTest, SoftmaxInPlaceWithSpecialValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  T x = random_tensor({64, 4096}, -6, 6, 21);
  std::vector<float> data = x.to_vector<float>();
  data[3 * 4096 + 7] = nan;
  data[40 * 4096 + 1] = inf;
  data[50 * 4096 + 9] = -inf;
  data[60 * 4096] = 1e-40f;  // subnormal
  const std::vector<int64_t> sizes = {64, 4096};
  const T special = T::from_vector(data, IntSpan(sizes.data(), sizes.size()));
  for (const bool log : {false, true}) {
    SCOPED_TRACE(log ? "log_softmax" : "softmax");
    std::vector<double> want;
    {
      LoopsOnly loops;
      want = values(log ? special.log_softmax(1) : special.softmax(1));
    }
    std::vector<float> buffer = data;
    const OwnedKernelView view(buffer.data(), ScalarType::Float, Dims(sizes.begin(), sizes.end()),
                               contiguous_strides(IntSpan(sizes.data(), sizes.size())));
    ASSERT_TRUE(Onednn::softmax(view, view, 1, log).ok());
    int bad = 0;
    for (size_t i = 0; i < want.size() && bad < 5; ++i) {
      const double got = buffer[i];
      const bool same = got == want[i] || (std::isnan(got) && std::isnan(want[i])) ||
                        std::fabs(got - want[i]) <= 1e-5 + 1e-4 * std::fabs(want[i]);
      if (!same) {
        ADD_FAILURE() << "[" << i / 4096 << ", " << i % 4096 << "]: in place " << got << ", loops "
                      << want[i];
        ++bad;
      }
    }
  }
}

TEST_F(OnednnPrimitivePathTest, MatmulPlainTransposedAndBatched) {
  const T a = random_tensor({64, 128}, -1, 1, 10);
  const T b = random_tensor({128, 96}, -1, 1, 11);
  const T at = random_tensor({128, 64}, -1, 1, 12);
  const T bt = random_tensor({96, 128}, -1, 1, 13);
  ExpectPrimitiveMatchesLoops("64x128x96", [&] { return a.matmul(b); });
  ExpectPrimitiveMatchesLoops("a^T b", [&] { return at.t().matmul(b); });
  ExpectPrimitiveMatchesLoops("a b^T", [&] { return a.matmul(bt.t()); });
  ExpectPrimitiveMatchesLoops("a^T b^T", [&] { return at.t().matmul(bt.t()); });
  const T c = random_tensor({4, 32, 64}, -1, 1, 14);
  const T d = random_tensor({4, 64, 48}, -1, 1, 15);
  ExpectPrimitiveMatchesLoops("batched", [&] { return c.matmul(d); });
  ExpectPrimitiveMatchesLoops("batch-broadcast", [&] { return c.matmul(random_tensor({64, 48}, -1, 1, 16)); });
}

TEST_F(OnednnPrimitivePathTest, OnePrimitiveOnFourThreadsAtOnceGivesTheSerialAnswers) {
  // Note [User scratchpad] in onednn.cc: with oneDNN's own scratchpad, 2.6.3's
  // AVX-512 brgemm matmul gave wrong products when threads ran one primitive at
  // once (the serve workload's first layer, [16,128] x [128,512]); on an AVX2
  // CPU (gemm:jit) this passes either way. Each thread runs the same shapes,
  // so the same cached primitive, on its own inputs.
  constexpr int kThreads = 4, kRounds = 100;
  const T w = random_tensor({128, 512}, -1, 1, 40);
  std::vector<T> x, want;
  for (int t = 0; t < kThreads; ++t) {
    x.push_back(random_tensor({16, 128}, -1, 1, 41 + t));
    want.push_back(x.back().matmul(w));
  }
  const int64_t before = Onednn::primitive_calls();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::vector<float> expected = want[t].to_vector<float>();
      for (int r = 0; r < kRounds; ++r) {
        if (x[t].matmul(w).to_vector<float>() != expected) wrong++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GE(Onednn::primitive_calls() - before, kThreads * kRounds) << "the primitive path ran";
  EXPECT_EQ(wrong.load(), 0) << "products that differ from the same primitive's serial answer";
}

TEST_F(OnednnPrimitivePathTest, LargeStridedCopyUsesReorder) {
  const T a = random_tensor({128, 160}, -3, 3, 17);
  ExpectPrimitiveMatchesLoops("contiguous() of a transpose", [&] { return a.t().contiguous(); }, 0, 0);
  ExpectPrimitiveMatchesLoops("clone of a narrowed view", [&] { return a.narrow(1, 3, 150).clone(); }, 0, 0);
}

TEST_F(OnednnPrimitivePathTest, TinyWorkStaysOnTheLoops) {
  const T a = T::from_vector(std::vector<float>{1.f, 2.f, 3.f});
  const int64_t before = Onednn::primitive_calls();
  const T r = a.add(a).exp().sum();
  const T m = a.reshape({1, 3}).matmul(a.reshape({3, 1}));
  const T s = a.softmax(0);
  EXPECT_EQ(Onednn::primitive_calls(), before);
  EXPECT_FLOAT_EQ(m.item<float>(), 14.f);
  EXPECT_NEAR(r.item<float>(), std::exp(2.f) + std::exp(4.f) + std::exp(6.f), 1e-3);
  // Other dtypes never go to primitives, however large.
  const T d = random_tensor({128, 160}, -1, 1, 18).to(ScalarType::Double);
  const int64_t before_d = Onednn::primitive_calls();
  const T e = d.add(d).exp().sum(0);
  EXPECT_EQ(Onednn::primitive_calls(), before_d);
  EXPECT_EQ(s.numel(), 3);
  EXPECT_EQ(e.numel(), 160);
}

// Note [Work, not elements]: the threshold counts cheap element operations,
// so exp, tanh and sigmoid over 1K floats (libm on the loops, ~4 ns each) and a
// 16x16 matmul already run oneDNN's kernels, while a 1K add stays on the loops.
TEST_F(OnednnPrimitivePathTest, CostlyElementsReachPrimitivesSooner) {
  const T x = random_tensor({1024}, -4, 4, 21);
  const T m = random_tensor({16, 16}, -1, 1, 22);
  const T dense = random_tensor({256, 256}, -4, 4, 26);
  int64_t before = Onednn::primitive_calls();
  const T sum = x.add(x);
  const T r = x.relu();
  EXPECT_EQ(Onednn::primitive_calls(), before) << "a 1K add or relu is cheaper on the loops";
  // Note [Relu clones] (backends/host/loops.cc): relu is one pass on the loops at any size, and
  // dense operands of one shape are added there up to 8x the threshold.
  before = Onednn::primitive_calls();
  const T big_relu = random_tensor({1 << 20}, -1, 1, 27).relu();
  const T dense_sum = dense.add(dense);
  EXPECT_EQ(Onednn::primitive_calls(), before);
  EXPECT_EQ(big_relu.numel() + dense_sum.numel(), (1 << 20) + 256 * 256);
  ExpectPrimitiveMatchesLoops("exp over 1K", [&] { return x.exp(); });
  ExpectPrimitiveMatchesLoops("tanh over 1K", [&] { return x.tanh(); });
  ExpectPrimitiveMatchesLoops("sigmoid over 1K", [&] { return x.sigmoid(); });
  ExpectMatchesLoops(Path::kAny, "softmax over [32, 32] (the row kernel)",
                     [&] { return x.reshape({32, 32}).softmax(1); });
  ExpectPrimitiveMatchesLoops("matmul 16x16", [&] { return m.matmul(m); });
  EXPECT_EQ(sum.numel() + r.numel(), 2048);
}

// Note [Small work on the calling thread]: a primitive for work below the
// grain is made for, and run on, one thread; larger work gets every thread.
TEST_F(OnednnPrimitivePathTest, SmallWorkRunsOnOneThread) {
#if defined(__SANITIZE_THREAD__)
  // Two OpenMP threads: libgomp is not instrumented, so ThreadSanitizer reads
  // its hand-offs as races (custody.bazelrc runs tsan with OMP_NUM_THREADS=1).
  GTEST_SKIP() << "runs OpenMP regions on two threads";
#endif
  const int saved = num_threads();
  set_num_threads(2);
  const T small = random_tensor({32, 32}, -1, 1, 23);
  const T big = random_tensor({256, 256}, -1, 1, 24);
  const T a = small.matmul(small);
  // The thread's OpenMP count is custody's again (libtorch's ops read it too).
  const int after_small = omp_get_max_threads();
  const T b = big.matmul(big);
  const T c = random_tensor({1 << 16}, -1, 1, 25).tanh();
  set_num_threads(saved);
  EXPECT_EQ(after_small, 2);
  const auto logged = [](absl::string_view what) {
    for (const std::string& line : Onednn::implementations()) {
      if (absl::StrContains(line, what)) return line;
    }
    return std::string();
  };
  const std::string small_entry = logged("matmul:0:1 thread|float32:32x32");
  EXPECT_FALSE(small_entry.empty()) << "no one-thread matmul primitive for [32,32]x[32,32]";
  const T m64 = random_tensor({64, 64}, -1, 1, 28);
  set_num_threads(2);
  const T d = m64.matmul(m64);
  set_num_threads(saved);
  EXPECT_FALSE(logged("matmul:0:1 thread|float32:64x64").empty()) << "2^18 multiply-adds: one thread";
  const std::string big_entry = logged("matmul:0|float32:256x256");
  EXPECT_FALSE(big_entry.empty()) << "no every-thread matmul primitive for [256,256]x[256,256]";
  EXPECT_FALSE(logged("eltwise:" + std::to_string(static_cast<int>(UnaryOp::kTanh)) + "|float32:65536")
                   .empty())
      << "64K floats are past the grain: every thread";
  EXPECT_EQ(a.numel() + b.numel() + c.numel() + d.numel(), 32 * 32 + 256 * 256 + (1 << 16) + 64 * 64);
}

TEST_F(OnednnPrimitivePathTest, ThresholdIsAdjustable) {
  const T a = random_tensor({4, 4}, -1, 1, 19);
  const int64_t saved = Onednn::primitive_threshold();
  Onednn::set_primitive_threshold(1);
  const int64_t before = Onednn::primitive_calls();
  const T r = a.mul(a).tanh();
  EXPECT_GT(Onednn::primitive_calls(), before);
  Onednn::set_primitive_threshold(saved);
  const std::vector<float> got = r.to_vector<float>();
  const std::vector<float> in = a.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], std::tanh(in[i] * in[i]), 1e-5);
}

// Every layout custody hands to matmul (2-D, batched, broadcast batch on either
// side, transposed, narrowed, permuted, expanded, vectors) runs a JIT kernel:
// a primitive executes, its implementation is not `ref`, and values match the loops.
TEST_F(OnednnPrimitivePathTest, MatmulEveryLayoutRunsAJitKernel) {
  const T a = random_tensor({64, 128}, -1, 1, 20);
  const T b = random_tensor({128, 96}, -1, 1, 21);
  const T c = random_tensor({4, 32, 64}, -1, 1, 22);
  const T d = random_tensor({4, 64, 48}, -1, 1, 23);
  const T v = random_tensor({128}, -1, 1, 24);
  const T wide = random_tensor({64, 256}, -1, 1, 25);
  const T tall = random_tensor({256, 128}, -1, 1, 26);  // matrix-vector work above the threshold
  const T fat = random_tensor({128, 256}, -1, 1, 27);
  const int64_t rejected = Onednn::rejected_primitives();
  ExpectPrimitiveMatchesLoops("2-D", [&] { return a.matmul(b); });
  ExpectPrimitiveMatchesLoops("batch of one", [&] { return a.unsqueeze(0).matmul(b.unsqueeze(0)); });
  ExpectPrimitiveMatchesLoops("batched x 2-D", [&] { return c.matmul(d.select(0, 1)); });
  ExpectPrimitiveMatchesLoops("2-D x batched", [&] { return c.select(0, 2).matmul(d); });
  ExpectPrimitiveMatchesLoops("batched, b transposed",
                              [&] { return c.matmul(d.transpose(1, 2).contiguous().transpose(1, 2)); });
  ExpectPrimitiveMatchesLoops("batched, a transposed",
                              [&] { return c.transpose(1, 2).contiguous().transpose(1, 2).matmul(d); });
  ExpectPrimitiveMatchesLoops("narrowed columns of a", [&] { return wide.narrow(1, 64, 128).matmul(b); });
  ExpectPrimitiveMatchesLoops("every other column of a",
                              [&] { return wide.reshape({64, 128, 2}).select(2, 1).matmul(b); });
  ExpectPrimitiveMatchesLoops("permuted batch", [&] {
    return c.permute({1, 0, 2}).contiguous().permute({1, 0, 2}).matmul(d);
  });
  ExpectPrimitiveMatchesLoops("expanded batch", [&] { return a.unsqueeze(0).expand({3, 64, 128}).matmul(b); });
  ExpectPrimitiveMatchesLoops("expanded matrix", [&] { return v.unsqueeze(0).expand({64, 128}).matmul(b); });
  ExpectPrimitiveMatchesLoops("matrix x vector", [&] { return tall.matmul(v); });
  ExpectPrimitiveMatchesLoops("vector x matrix", [&] { return v.matmul(fat); });
  ExpectPrimitiveMatchesLoops("batched x vector",
                              [&] { return c.transpose(1, 2).unsqueeze(0).expand({4, 4, 64, 32})
                                        .reshape({16, 64, 32}).matmul(v.narrow(0, 0, 32)); });
  // Rank 4 and 5: equal batches reach oneDNN merged into one batch dim; a
  // batch broadcast in some dims only takes oneDNN's own broadcast (size 1).
  const T c4 = c.reshape({2, 2, 32, 64}), d4 = d.reshape({2, 2, 64, 48});
  ExpectPrimitiveMatchesLoops("4-D batches", [&] { return c4.matmul(d4); });
  ExpectPrimitiveMatchesLoops("4-D x 3-D", [&] { return c4.matmul(d4.select(0, 1)); });
  ExpectPrimitiveMatchesLoops("[2, 1] x [1, 2] batches",
                              [&] { return c4.narrow(1, 0, 1).matmul(d4.narrow(0, 1, 1)); });
  ExpectPrimitiveMatchesLoops("5-D, broadcast inside",
                              [&] { return c4.unsqueeze(1).matmul(d4.narrow(1, 0, 1).unsqueeze(0)); });
  ExpectPrimitiveMatchesLoops("4-D, b transposed",
                              [&] { return c4.matmul(d4.transpose(2, 3).contiguous().transpose(2, 3)); });
  EXPECT_EQ(Onednn::rejected_primitives(), rejected) << "a matmul layout fell back from a ref primitive";
  for (const std::string& entry : Onednn::implementations()) {
    if (absl::StartsWith(entry, "matmul")) {
      EXPECT_FALSE(absl::StrContains(entry, "rejected")) << entry;
    }
  }
}

// What oneDNN itself reports (DNNL_VERBOSE's "exec" lines, switched on here
// with dnnl_set_verbose): no float32 primitive custody runs is a reference
// implementation, over a battery of every op kind and layout the backend sends.
TEST_F(OnednnPrimitivePathTest, NoPrimitiveRunsAReferenceKernel) {
  const T a = random_tensor({128, 160}, -3, 3, 30);
  const T b = random_tensor({160, 96}, -1, 1, 31);
  const T c = random_tensor({4, 32, 64}, -1, 1, 32);
  const T d = random_tensor({4, 64, 48}, -1, 1, 33);
  const T row = random_tensor({160}, 0.5f, 3, 34);
  const T col = random_tensor({128, 1}, 0.5f, 3, 35);
  const T x = random_tensor({16, 64, 32}, 0.5f, 1.5f, 36);
  const T at = random_tensor({160, 128}, -1, 1, 37);
  std::vector<std::function<T()>> battery = {
      [&] { return a.add(a); }, [&] { return a.sub(row); }, [&] { return row.add(a); },
      [&] { return a.mul(col); }, [&] { return a.div(col.add(1)); }, [&] { return a.add(at.t()); },
      [&] { return a.t().add(at); }, [&] { return a.exp(); }, [&] { return a.t().relu(); },
      [&] { return a.narrow(1, 3, 150).tanh(); }, [&] { return x.sum(); }, [&] { return x.sum(0); },
      [&] { return x.mean({1, 2}, true); }, [&] { return x.permute({2, 0, 1}).sum(1); },
      [&] { return x.softmax(0); }, [&] { return x.softmax(2); }, [&] { return x.log_softmax(1); },
      [&] { return x.permute({2, 0, 1}).softmax(1); }, [&] { return a.t().contiguous(); },
      [&] { return a.narrow(1, 3, 150).clone(); }, [&] { return a.matmul(b); },
      [&] { return at.t().matmul(b); }, [&] { return c.matmul(d); },
      [&] { return c.matmul(d.select(0, 0)); }, [&] { return c.select(0, 0).matmul(d); },
      [&] { return a.matmul(b.t().contiguous().t()); }, [&] { return a.matmul(b.select(1, 0)); },
      [&] { return c.reshape({2, 2, 32, 64}).matmul(d.reshape({2, 2, 64, 48}).select(0, 1)); },
      [&] { return c.reshape({2, 2, 32, 64}).narrow(1, 0, 1).matmul(d.reshape({2, 2, 64, 48}).narrow(0, 1, 1)); },
  };
  dnnl_set_verbose(1);
  ::testing::internal::CaptureStdout();
  for (auto& op : battery) {
    const T r = op();
  }
  const std::string out = ::testing::internal::GetCapturedStdout();
  dnnl_set_verbose(0);
  int execs = 0, matmuls = 0;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    // onednn_verbose,exec,cpu,<primitive>,<implementation>,...
    const std::vector<absl::string_view> f = absl::StrSplit(line, ',');
    if (f.size() < 5 || (f[0] != "onednn_verbose" && f[0] != "dnnl_verbose") || f[1] != "exec") continue;
    ++execs;
    if (f[3] == "matmul") ++matmuls;
    EXPECT_FALSE(absl::StartsWith(f[4], "ref")) << "oneDNN ran a reference kernel: " << line;
  }
  EXPECT_GE(matmuls, 7) << out;
  EXPECT_GE(execs, 15) << out;
}

}  // namespace
}  // namespace custody
