// Copyright 2026 The custody Authors.
//
// workloads/mlp/dispose.h — the MLP step under dispose (TorchSharp technique
// 2): every temporary is held by `disposing(...)`, the `using var` of C++, in
// blocks that end where the tensors are dead.

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
  explicit DisposeTrainer(const MlpData& d, const RunOptions& = {})
      : d_(d), m_(std::make_unique<MlpModel<T>>(d)) {}

  void step() override {
    using dispose::disposing;
    const MlpConfig& c = d_.config;
    auto x = disposing(T::from_vector(batch_x(d_), {c.batch, c.features}));
    nn::LinearGrads<T> g1;
    {
      auto h = disposing(m_->fc1.forward(x));
      nn::LinearGrads<T> g2;
      {
        auto a = disposing(h.relu());
        auto y = disposing(T::from_vector(batch_y(d_), {c.batch, c.classes}));
        auto logits = disposing(m_->fc2.forward(a));
        nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
        auto dlogits = disposing(std::move(l.grad));
        loss_ = l.loss;
        g2 = nn::linear_backward(m_->fc2, a, dlogits);
      }
      nn::sgd_(m_->fc2, g2, c.lr);
      auto da = disposing(std::move(g2.input));
      auto dh = disposing(nn::relu_backward(h, da));
      g1 = nn::linear_backward(m_->fc1, x, dh, /*input_grad=*/false);
    }
    nn::sgd_(m_->fc1, g1, c.lr);
    ++step_;
  }

  double accuracy() override { return evaluate(*m_, d_); }
  void finish() override { m_.reset(); }

 private:
  const MlpData& d_;
  std::unique_ptr<MlpModel<T>> m_;
};

}  // namespace custody::workloads::mlp

#endif  // CUSTODY_WORKLOADS_MLP_DISPOSE_H_
