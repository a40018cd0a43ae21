// Copyright 2026 The custody Authors.
//
// workloads/mlp_autograd/collecting.h — the autograd MLP step of a policy
// that collects (gc, and any policy whose PolicyIdiom::kCollects): no tensor
// is given back by hand. The loss of a step is garbage once the step ends, and
// its graph — every tensor the forward saved for backward — with it, until the
// collector finalizes the loss: how often it does is the RunOptions'
// CollectMode.

#ifndef CUSTODY_WORKLOADS_MLP_AUTOGRAD_COLLECTING_H_
#define CUSTODY_WORKLOADS_MLP_AUTOGRAD_COLLECTING_H_

#include <memory>
#include <optional>

#include "core/policy_idiom.h"
#include "workloads/mlp_autograd/mlp_autograd.h"

namespace custody::workloads::mlp_autograd {

template <class P, class B>
class CollectingTrainer final : public Trainer {
  using T = BasicTensor<P, B>;
  using Idiom = PolicyIdiom<P>;
  static_assert(Idiom::kCollects, "CollectingTrainer runs a policy that collects");

 public:
  explicit CollectingTrainer(const MlpData& d, const RunOptions& o = {})
      : d_(d), mode_(o.collect_mode), m_(std::make_unique<MlpModel<T>>(d)) {
    if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
    m_->vs.requires_grad_();
  }

  void step() override {
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T y = T::from_vector(batch_y(d_), {c.batch, c.classes});
    T h = m_->fc1.forward(x);
    T a = h.relu();
    T logits = m_->fc2.forward(a);
    T logp = logits.log_softmax(1);
    T total = y.mul(logp).sum();
    T loss = total.div(-static_cast<double>(c.batch));
    loss_ = loss.template item<float>();
    loss.backward();
    sgd_step(*m_, c.lr);
    ++step_;
    if (mode_ == CollectMode::kCollectEveryStep) Idiom::collect();
  }

  double accuracy() override {
    NoGradGuard no_grad;
    return mlp::evaluate(*m_, d_);
  }
  void finish() override {
    m_.reset();
    trigger_.reset();
    Idiom::collect();  // what is left of the steps' garbage
  }

 private:
  const MlpData& d_;
  CollectMode mode_;
  std::optional<typename Idiom::PressureTrigger> trigger_;
  std::unique_ptr<MlpModel<T>> m_;
};

}  // namespace custody::workloads::mlp_autograd

#endif  // CUSTODY_WORKLOADS_MLP_AUTOGRAD_COLLECTING_H_
