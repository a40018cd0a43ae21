// Copyright 2026 The custody Authors.
//
// workloads/mlp/tensor_ptr.h — the MLP step under tensor_ptr (ExecuTorch's
// TensorPtr, a shared_ptr): RAII. A tensor goes when its last handle does —
// at the end of its block, or at `release()` (reset) once it is dead.
//
// Written for any policy whose handles own their references (HandleTrainer<P, B>):
// it is also the idiom of a policy that does not collect and has no header of
// its own here (runners.h; collecting.h is the one of a policy that collects).

#ifndef CUSTODY_WORKLOADS_MLP_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_MLP_TENSOR_PTR_H_

#include <memory>

#include "policies/tensor_ptr/tensor_ptr.h"
#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp {

template <class P, class B>
class HandleTrainer final : public Trainer {
  using T = BasicTensor<P, B>;

 public:
  explicit HandleTrainer(const MlpData& d, const RunOptions& = {})
      : d_(d), m_(std::make_unique<MlpModel<T>>(d)) {}

  void step() override {
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T a, mask;
    {
      T h = m_->fc1.forward(x);
      a = h.relu();
      mask = nn::relu_mask(h);
    }  // h goes here
    nn::LinearGrads<T> g2;
    {
      T y = T::from_vector(batch_y(d_), {c.batch, c.classes});
      T logits = m_->fc2.forward(a);
      nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
      loss_ = l.loss;
      g2 = nn::linear_backward(m_->fc2, a, l.grad);
    }  // y, logits and d loss/d logits go here
    a.release();
    nn::sgd_(m_->fc2, g2, c.lr);
    T dh = nn::relu_backward(mask, g2.input);
    mask.release();
    g2.input.release();
    nn::LinearGrads<T> g1 = nn::linear_backward(m_->fc1, x, dh, /*input_grad=*/false);
    x.release();
    dh.release();
    nn::sgd_(m_->fc1, g1, c.lr);
    ++step_;
  }

  double accuracy() override { return evaluate(*m_, d_); }
  void finish() override { m_.reset(); }

 private:
  const MlpData& d_;
  std::unique_ptr<MlpModel<T>> m_;
};

template <class B>
using TensorPtrTrainer = HandleTrainer<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::mlp

#endif  // CUSTODY_WORKLOADS_MLP_TENSOR_PTR_H_
