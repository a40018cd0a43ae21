// Copyright 2026 The custody Authors.
//
// workloads/mlp/collecting.h — the step of a policy that collects (TorchSharp
// technique 1): gc, and any policy whose PolicyIdiom::kCollects. No tensor is
// given back by hand; the collector gives it back. How often it collects is
// the RunOptions' CollectMode: the pressure trigger, a collection after every
// step, or neither (the failure TorchSharp's memory guide describes).
//
// Written over PolicyIdiom<P> (CollectingTrainer<P, B>): the runner of a
// collecting policy with no header of its own here (runners.h).

#ifndef CUSTODY_WORKLOADS_MLP_COLLECTING_H_
#define CUSTODY_WORKLOADS_MLP_COLLECTING_H_

#include <memory>
#include <optional>

#include "core/policy_idiom.h"
#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp {

template <class P, class B>
class CollectingTrainer final : public Trainer {
  using T = BasicTensor<P, B>;
  using Idiom = PolicyIdiom<P>;
  static_assert(Idiom::kCollects, "CollectingTrainer runs a policy that collects");

 public:
  explicit CollectingTrainer(const MlpData& d, const RunOptions& o = {})
      : d_(d), mode_(o.collect_mode), m_(std::make_unique<MlpModel<T>>(d)) {
    if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
  }

  void step() override {
    const MlpConfig& c = d_.config;
    T x = T::from_vector(batch_x(d_), {c.batch, c.features});
    T y = T::from_vector(batch_y(d_), {c.batch, c.classes});
    T h = m_->fc1.forward(x);
    T a = h.relu();
    T mask = nn::relu_mask(h);
    T logits = m_->fc2.forward(a);
    nn::LossAndGrad<T> l = nn::cross_entropy(logits, y);
    loss_ = l.loss;
    nn::LinearGrads<T> g2 = nn::linear_backward(m_->fc2, a, l.grad);
    nn::sgd_(m_->fc2, g2, c.lr);
    T dh = nn::relu_backward(mask, g2.input);
    nn::LinearGrads<T> g1 = nn::linear_backward(m_->fc1, x, dh, /*input_grad=*/false);
    nn::sgd_(m_->fc1, g1, c.lr);
    ++step_;
    if (mode_ == CollectMode::kCollectEveryStep) Idiom::collect();
  }

  double accuracy() override { return evaluate(*m_, d_); }
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

}  // namespace custody::workloads::mlp

#endif  // CUSTODY_WORKLOADS_MLP_COLLECTING_H_
