// Copyright 2026 The custody Authors.
//
// workloads/mlp/scope.h — the MLP step under scope (TorchSharp technique 3):
// one dispose scope per step; everything the step creates dies with it. The
// parameters live in the model's VarStore, outside any scope.

#ifndef CUSTODY_WORKLOADS_MLP_SCOPE_H_
#define CUSTODY_WORKLOADS_MLP_SCOPE_H_

#include <memory>

#include "policies/scope/scope.h"
#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp {

template <class B>
class ScopeTrainer final : public Trainer {
  using T = BasicTensor<scope::Policy, B>;

 public:
  explicit ScopeTrainer(const MlpData& d, const RunOptions& = {})
      : d_(d), m_(std::make_unique<MlpModel<T>>(d)) {}

  void step() override {
    auto step_scope = scope::new_dispose_scope();
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T y = T::from_vector(batch_y(d_), {c.batch, c.classes});
    T h = m_->fc1.forward(x);
    T a = h.relu();
    T logits = m_->fc2.forward(a);
    nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
    loss_ = l.loss;
    nn::LinearGrads<T> g2 = nn::linear_backward(m_->fc2, a, l.grad);
    nn::sgd_(m_->fc2, g2, c.lr);
    T dh = nn::relu_backward(h, g2.input);
    nn::LinearGrads<T> g1 = nn::linear_backward(m_->fc1, x, dh, /*input_grad=*/false);
    nn::sgd_(m_->fc1, g1, c.lr);
    ++step_;
  }

  double accuracy() override {
    auto eval_scope = scope::new_dispose_scope();
    return evaluate(*m_, d_);
  }
  void finish() override { m_.reset(); }

 private:
  const MlpData& d_;
  std::unique_ptr<MlpModel<T>> m_;
};

}  // namespace custody::workloads::mlp

#endif  // CUSTODY_WORKLOADS_MLP_SCOPE_H_
