// Copyright 2026 The custody Authors.
//
// workloads/mlp/manual.h — the MLP step under manual (PyTorch TH's new/free
// refcounting): every op result is a reference the step owns and frees
// right after its last use.

#ifndef CUSTODY_WORKLOADS_MLP_MANUAL_H_
#define CUSTODY_WORKLOADS_MLP_MANUAL_H_

#include <memory>

#include "policies/manual/manual.h"
#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp {

template <class B>
class ManualTrainer final : public Trainer {
  using T = BasicTensor<manual::Policy, B>;

 public:
  explicit ManualTrainer(const MlpData& d, const RunOptions& = {})
      : d_(d), m_(std::make_unique<MlpModel<T>>(d)) {}

  void step() override {
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T h = m_->fc1.forward(x);
    T a = h.relu();
    T mask = nn::relu_mask(h);
    free(h);
    T y = T::from_vector(batch_y(d_), {c.batch, c.classes});
    T logits = m_->fc2.forward(a);
    nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
    free(logits);
    free(y);
    loss_ = l.loss;
    nn::LinearGrads<T> g2 = nn::linear_backward(m_->fc2, a, l.grad);
    free(a);
    free(l.grad);
    nn::sgd_(m_->fc2, g2, c.lr);
    T dh = nn::relu_backward(mask, g2.input);
    free(mask);
    free(g2.input);
    nn::LinearGrads<T> g1 = nn::linear_backward(m_->fc1, x, dh, /*input_grad=*/false);
    free(x);
    free(dh);
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

#endif  // CUSTODY_WORKLOADS_MLP_MANUAL_H_
