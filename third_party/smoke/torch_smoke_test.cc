// libtorch (CPU): the C++ frontend header compiles as C++20, ATen computes, autograd runs.
#include <torch/torch.h>

#include "gtest/gtest.h"

namespace {

TEST(TorchSmoke, OnesSum) {
  at::Tensor t = at::ones({2, 2});
  EXPECT_EQ(t.sum().item<float>(), 4.f);
}

TEST(TorchSmoke, MatmulAndGrad) {
  torch::Tensor w = torch::ones({3, 2}, torch::requires_grad());
  torch::Tensor x = torch::arange(6, torch::kFloat).reshape({2, 3});
  torch::Tensor y = torch::matmul(x, w).sum();  // BLAS sgemm
  y.backward();
  EXPECT_FLOAT_EQ(y.item<float>(), 30.f);
  EXPECT_FLOAT_EQ(w.grad().sum().item<float>(), 30.f);
}

}  // namespace
