// Copyright 2026 The custody Authors.
//
// workloads/mlp/scope.h — the MLP step under scope (TorchSharp technique 3):
// one dispose scope per step, so everything the step creates dies with it,
// and nested scopes around the parts whose activations are dead before the
// step ends; what outlives a nested scope moves to the outer one. The
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
    auto step_scope = scope::new_dispose_scope();  // what the step creates dies with it...
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T dh;
    {
      auto backward_scope = scope::new_dispose_scope();  // ...or sooner, in a nested scope
      T a, mask;
      {
        auto hidden_scope = scope::new_dispose_scope();
        T h = m_->fc1.forward(x);
        a = h.relu().move_to_outer_dispose_scope();
        mask = nn::relu_mask(h).move_to_outer_dispose_scope();
      }
      T da;
      {
        auto head_scope = scope::new_dispose_scope();
        T y = T::from_vector(batch_y(d_), {c.batch, c.classes});
        T logits = m_->fc2.forward(a);
        nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
        loss_ = l.loss;
        nn::LinearGrads<T> g2 = nn::linear_backward(m_->fc2, a, l.grad);
        nn::sgd_(m_->fc2, g2, c.lr);
        da = g2.input.move_to_outer_dispose_scope();
      }
      a.dispose();
      dh = nn::relu_backward(mask, da).move_to_outer_dispose_scope();
    }
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
