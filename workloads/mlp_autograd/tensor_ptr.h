// Copyright 2026 The custody Authors.
//
// workloads/mlp_autograd/tensor_ptr.h — the autograd MLP step for any policy
// whose handles give their references back when told (tensor_ptr, dispose,
// scope, manual): every handle in a Temporary, so each is given back at the
// end of its block under every one of them, and the step inside the region
// the policy's idiom needs open (a dispose scope under scope). The graph goes
// with the loss, at the end of the step.

#ifndef CUSTODY_WORKLOADS_MLP_AUTOGRAD_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_MLP_AUTOGRAD_TENSOR_PTR_H_

#include <memory>

#include "core/policy_idiom.h"
#include "policies/tensor_ptr/tensor_ptr.h"
#include "workloads/mlp_autograd/mlp_autograd.h"

namespace custody::workloads::mlp_autograd {

template <class P, class B>
class HandleTrainer final : public Trainer {
  using T = BasicTensor<P, B>;
  using Region = typename PolicyIdiom<P>::Region;

 public:
  explicit HandleTrainer(const MlpData& d, const RunOptions& = {})
      : d_(d), m_(std::make_unique<MlpModel<T>>(d)) {
    m_->vs.requires_grad_();
  }

  void step() override {
    [[maybe_unused]] Region region;
    const MlpConfig& c = d_.config;
    {
      Temporary<T> loss = [&] {
        Temporary<T> x = T::from_vector(batch_x(d_), {c.batch, c.features});
        Temporary<T> y = T::from_vector(batch_y(d_), {c.batch, c.classes});
        return loss_of(*m_, *x, *y, c.batch);
      }();  // the batch's handles go here: the graph keeps what backward needs of it, until then
      loss_ = loss->template item<float>();
      loss->backward();
    }  // the loss, and with it the graph, goes here
    sgd_step(*m_, c.lr);
    ++step_;
  }

  double accuracy() override {
    [[maybe_unused]] Region region;
    NoGradGuard no_grad;
    return mlp::evaluate(*m_, d_);
  }
  void finish() override { m_.reset(); }

 private:
  const MlpData& d_;
  std::unique_ptr<MlpModel<T>> m_;
};

template <class B>
using TensorPtrTrainer = HandleTrainer<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::mlp_autograd

#endif  // CUSTODY_WORKLOADS_MLP_AUTOGRAD_TENSOR_PTR_H_
