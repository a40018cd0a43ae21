// Copyright 2026 The custody Authors.
//
// workloads/mlp/dispose.h — the MLP step under dispose (TorchSharp technique
// 2): every temporary is disposed by hand once dead, or held by
// `disposing(...)`, the `using var` of C++, in a block that ends there.

#ifndef CUSTODY_WORKLOADS_MLP_DISPOSE_H_
#define CUSTODY_WORKLOADS_MLP_DISPOSE_H_

#include <memory>
#include <utility>

#include "policies/dispose/dispose.h"
#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp {

template <class B>
class DisposeTrainer final : public Trainer {
  using T = BasicTensor<dispose::Policy, B>;

 public:
  explicit DisposeTrainer(const MlpData& d, const RunOptions& o = {})
      : d_(d), m_(std::make_unique<MlpModel<T>>(d)), wasteful_(o.wasteful) {}

  void step() override {
    using dispose::disposing;
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T h = m_->fc1.forward(x);
    T a = h.relu();
    T mask = nn::relu_mask(h);
    h.dispose();
    nn::LinearGrads<T> g2;
    {
      auto y = disposing(T::from_vector(batch_y(d_), {c.batch, c.classes}));
      auto logits = disposing(m_->fc2.forward(a));
      nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
      auto dlogits = disposing(std::move(l.grad));
      loss_ = l.loss;
      g2 = nn::linear_backward(m_->fc2, a, dlogits);
    }  // y, logits, dlogits disposed here
    if (!wasteful_) a.dispose();
    nn::sgd_(m_->fc2, g2, c.lr);
    T dh = nn::relu_backward(mask, g2.input);
    mask.dispose();
    g2.input.dispose();
    nn::LinearGrads<T> g1 = nn::linear_backward(m_->fc1, x, dh, /*input_grad=*/false);
    x.dispose();
    dh.dispose();
    nn::sgd_(m_->fc1, g1, c.lr);
    if (wasteful_) a.dispose();  // RunOptions::wasteful: held past its last use
    ++step_;
  }

  double accuracy() override { return evaluate(*m_, d_); }
  void finish() override { m_.reset(); }

 private:
  const MlpData& d_;
  std::unique_ptr<MlpModel<T>> m_;
  bool wasteful_;
};

}  // namespace custody::workloads::mlp

#endif  // CUSTODY_WORKLOADS_MLP_DISPOSE_H_
