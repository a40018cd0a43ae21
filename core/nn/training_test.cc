// Copyright 2026 The custody Authors.
//
// core/nn/training.h and optim.h on every backend that needs no GPU, against
// libtorch on the same inputs: cross_entropy_loss's value and gradient,
// dropout's mask (the same on every backend) and gradient, SGD with momentum
// and AdamW step by step against torch::optim; LayerNorm's and RMSNorm's
// gradients against libtorch's autograd; and the errors a user gets.

#include <ATen/ATen.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "core/error.h"
#include "core/nn/modules.h"
#include "core/nn/optim.h"
#include "core/nn/training.h"
#include "core/nn/var_store.h"
#include "core/random.h"
#include "custody/lists/test_backends.h"
#include "custody/lists/type_list.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody::nn {
namespace {

template <class F>
void for_each_backend(F&& f) {
  lists::for_each_type(lists::TestBackends{}, [&]<class B>() {
    SCOPED_TRACE(B::name);
    f.template operator()<BasicTensor<tensor_ptr::Policy, B>>();
  });
}

at::Tensor torch_of(const std::vector<float>& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

std::vector<float> values(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i * seed + 1)));
  return v;
}

template <class T>
void expect_close(const T& t, const at::Tensor& expected, double tol, const std::string& what) {
  const std::vector<float> got = t.template to_vector<float>();
  const at::Tensor e = expected.contiguous();
  ASSERT_EQ(static_cast<int64_t>(got.size()), e.numel()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], e.data_ptr<float>()[i], tol) << what << " element " << i;
  }
}

TEST(CrossEntropyLoss, ValueAndGradientAreLibtorchs) {
  const std::vector<float> logits = values(6 * 5, 3);
  const std::vector<int64_t> targets = {0, 4, 2, 2, 1, 3};
  const at::Tensor tl = torch_of(logits, {6, 5}).requires_grad_();
  const at::Tensor tt = at::tensor(at::ArrayRef<int64_t>(targets), at::kLong);
  const at::Tensor tloss = at::nll_loss(at::log_softmax(tl, 1), tt);
  tloss.backward();
  for_each_backend([&]<class T>() {
    const T x = T::from_vector(logits, {6, 5});
    x.requires_grad_();
    const T t = T::from_vector(targets, {6});
    const T loss = cross_entropy_loss(x, t);
    EXPECT_NEAR(loss.template item<float>(), tloss.item<float>(), 1e-5);
    loss.backward();
    expect_close(x.grad(), tl.grad(), 1e-6, "d loss / d logits");
  });
}

TEST(CrossEntropyLoss, BadInputIsATypedErrorNamingTheFunction) {
  for_each_backend([&]<class T>() {
    const T x = T::zeros({3, 4});
    const auto message = [](auto&& f) {
      try {
        f();
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    EXPECT_THROW(cross_entropy_loss(x, T::zeros({3})), DTypeError);
    EXPECT_THROW(cross_entropy_loss(x, T::from_vector(std::vector<int64_t>{0, 1}, {2})), ShapeError);
    EXPECT_THROW(cross_entropy_loss(T::zeros({12}), T::from_vector(std::vector<int64_t>{0}, {1})), ShapeError);
    const T out_of_range = T::from_vector(std::vector<int64_t>{0, 4, 1}, {3});
    EXPECT_THROW(cross_entropy_loss(x, out_of_range), InvalidArgument);
    EXPECT_NE(message([&] { (void)cross_entropy_loss(x, out_of_range); }).find("target 4 is out of bounds for 4 classes"),
              std::string::npos);
  });
}

// The norms' forward and the gradients of input, weight and bias, by the tape,
// against at::layer_norm and RMSNorm written in at:: ops under libtorch's autograd.
TEST(Norms, LayerNormAndRmsNormGradientsAreLibtorchs) {
  constexpr int64_t kDim = 6;
  const std::vector<float> xv = values(4 * kDim, 5), wv = values(kDim, 7), bv = values(kDim, 11);
  const std::vector<float> gv = values(4 * kDim, 13);
  const at::Tensor tx = torch_of(xv, {2, 2, kDim}).requires_grad_();
  const at::Tensor tw = torch_of(wv, {kDim}).requires_grad_();
  const at::Tensor tb = torch_of(bv, {kDim}).requires_grad_();
  const at::Tensor tg = torch_of(gv, {2, 2, kDim});
  const at::Tensor ty = at::layer_norm(tx, {kDim}, tw, tb, 1e-5);
  ty.backward(tg);
  const at::Tensor lx = tx.grad().clone(), lw = tw.grad().clone(), lb = tb.grad().clone();
  tx.grad().zero_();
  tw.grad().zero_();
  const at::Tensor tr = tx * at::rsqrt((tx * tx).mean({-1}, /*keepdim=*/true) + 1e-5) * tw;
  tr.backward(tg);
  for_each_backend([&]<class T>() {
    const T x = T::from_vector(xv, {2, 2, kDim});
    const T w = T::from_vector(wv, {kDim});
    const T b = T::from_vector(bv, {kDim});
    const T g = T::from_vector(gv, {2, 2, kDim});
    for (const T* t : {&x, &w, &b}) t->requires_grad_();
    const LayerNorm<T> ln(w, b, 1e-5);
    const T y = ln.forward(x);
    expect_close(y, ty, 1e-5, "layer_norm");
    y.backward(g);
    expect_close(x.grad(), lx, 1e-5, "layer_norm d/dx");
    expect_close(w.grad(), lw, 1e-5, "layer_norm d/dweight");
    expect_close(b.grad(), lb, 1e-5, "layer_norm d/dbias");
    const T x2 = T::from_vector(xv, {2, 2, kDim});
    const T w2 = T::from_vector(wv, {kDim});
    x2.requires_grad_();
    w2.requires_grad_();
    const RMSNorm<T> rms(w2, 1e-5);
    const T r = rms.forward(x2);
    expect_close(r, tr, 1e-5, "rms_norm");
    r.backward(g);
    expect_close(x2.grad(), tx.grad(), 1e-5, "rms_norm d/dx");
    expect_close(w2.grad(), tw.grad(), 1e-5, "rms_norm d/dweight");
  });
}

TEST(Dropout, TheMaskIsTheSameOnEveryBackendAndScalesWhatItKeeps) {
  constexpr double kP = 0.25;
  const std::vector<float> ones(4096, 1.f);
  std::vector<float> first;
  for_each_backend([&]<class T>() {
    manual_seed(7);
    const T x = T::from_vector(ones, {64, 64});
    x.requires_grad_();
    const T y = dropout(x, kP, /*training=*/true);
    const std::vector<float> got = y.template to_vector<float>();
    int64_t kept = 0;
    for (float v : got) {
      ASSERT_TRUE(v == 0.f || std::abs(v - 1 / (1 - kP)) < 1e-6) << v;
      kept += v != 0.f;
    }
    EXPECT_NEAR(static_cast<double>(kept) / 4096, 1 - kP, 0.03);
    if (first.empty()) {
      first = got;
    } else {
      EXPECT_EQ(got, first) << "the mask differs from the first backend's";
    }
    const T total = y.sum();
    total.backward();
    EXPECT_EQ(x.grad().template to_vector<float>(), got) << "d sum(dropout(x)) / dx is the scaled mask";
    const T eval = dropout(x, kP, /*training=*/false);
    EXPECT_EQ(eval.template to_vector<float>(), ones);
    EXPECT_THROW(dropout(x, 1.0, true), InvalidArgument);
    EXPECT_THROW(dropout(x, -0.1, true), InvalidArgument);
  });
}

// Five steps of an optimizer on f(w) = sum((w * c - 1)^2) against torch::optim's.
template <class T, class Optimizer, class TorchOptimizer, class Options, class TorchOptions>
void expect_steps_as_torch(const Options& o, const TorchOptions& to) {
  const std::vector<float> w0 = values(12, 5), c = values(12, 11);
  at::Tensor tw = torch_of(w0, {3, 4}).requires_grad_();
  const at::Tensor tc = torch_of(c, {3, 4});
  TorchOptimizer topt({tw}, to);
  VarStore<T> vs;
  const T w = vs.from_vector("w", w0, std::vector<int64_t>{3, 4});
  vs.requires_grad_();
  const T cc = T::from_vector(c, {3, 4});
  Optimizer opt(vs, o);
  for (int step = 0; step < 5; ++step) {
    (w.mul(cc).sub(1.0).pow(2.0)).sum().backward();
    opt.step();
    opt.zero_grad();
    ((tw * tc - 1).pow(2)).sum().backward();
    topt.step();
    tw.mutable_grad().reset();
    expect_close(w, tw.detach(), 1e-6, "parameter after step " + std::to_string(step));
  }
}

TEST(Optimizers, SgdWithMomentumAndAdamWStepAsTorchOptim) {
  for_each_backend([&]<class T>() {
    expect_steps_as_torch<T, Sgd<T>, torch::optim::SGD>(
        SgdOptions{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.01},
        torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(0.01));
    expect_steps_as_torch<T, AdamW<T>, torch::optim::AdamW>(
        AdamWOptions{.lr = 0.05, .weight_decay = 0.1},
        torch::optim::AdamWOptions(0.05).weight_decay(0.1));
  });
}

TEST(Optimizers, StateIsMadeAtTheFirstStepAndBadHyperparametersAreRefused) {
  for_each_backend([&]<class T>() {
    VarStore<T> vs;
    const T a = vs.zeros("a", std::vector<int64_t>{4});
    const T b = vs.zeros("b", std::vector<int64_t>{2});
    vs.requires_grad_();
    AdamW<T> opt(vs);
    EXPECT_EQ(opt.state().size(), 0u);
    a.sum().backward();  // b has no grad: skipped, as torch.optim skips it
    opt.step();
    EXPECT_EQ(opt.state().names(), (std::vector<std::string>{"exp_avg.a", "exp_avg_sq.a"}));
    EXPECT_THROW(AdamW<T>(vs, {.lr = -1}), InvalidArgument);
    EXPECT_THROW(AdamW<T>(vs, {.beta2 = 1}), InvalidArgument);
    EXPECT_THROW(Sgd<T>(vs, {.momentum = 2}), InvalidArgument);
  });
}

// backward(create_graph=true) leaves each parameter a gradient whose graph
// saved the parameter (in PyTorch a cycle, pytorch #4661); the parameter, its
// gradient and that graph go with the store.
TEST(VarStore, ACreateGraphGradientGoesWithTheStore) {
  for_each_backend([&]<class T>() {
    using B = typename T::backend_type;
    const StatsSnapshot before = B::stats().snapshot();
    const int64_t nodes = autograd::live_nodes();
    {
      VarStore<T> vs;
      const T w = vs.from_vector("w", values(6, 3), std::vector<int64_t>{2, 3});
      vs.requires_grad_();
      w.mul(w).sum().backward({}, std::nullopt, /*create_graph=*/true);
      EXPECT_STREQ(w.grad().grad_fn_name(), "add") << "d sum(w*w) / dw = g*w + g*w, recorded";
      EXPECT_GT(autograd::live_nodes(), nodes);
    }
    EXPECT_EQ(autograd::live_nodes(), nodes);
    EXPECT_EQ(B::stats().snapshot().live_tensors, before.live_tensors);
  });
}

}  // namespace
}  // namespace custody::nn
