// Copyright 2026 The custody Authors.
//
// workloads/train/collecting.h — the training step of a policy that collects
// (gc, and any policy whose PolicyIdiom::kCollects): no tensor is given back
// by hand. A step's loss is garbage once the step ends, and its graph — every
// tensor the forward saved for backward — with it, until the collector
// finalizes the loss: how often it does is the RunOptions' CollectMode.

#ifndef CUSTODY_WORKLOADS_TRAIN_COLLECTING_H_
#define CUSTODY_WORKLOADS_TRAIN_COLLECTING_H_

#include <memory>
#include <optional>

#include "core/policy_idiom.h"
#include "core/random.h"
#include "workloads/train/train.h"

namespace custody::workloads::train {

template <class P, class B>
class CollectingTrainer final : public Trainer {
  using T = BasicTensor<P, B>;
  using Idiom = PolicyIdiom<P>;
  static_assert(Idiom::kCollects, "CollectingTrainer runs a policy that collects");

 public:
  explicit CollectingTrainer(const TrainData& d, const RunOptions& o = {}) : d_(d), mode_(o.collect_mode) {
    if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
    manual_seed(d.config.seed);  // the dropout masks
    m_ = std::make_unique<TrainModel<T>>(d);
    m_->vs.requires_grad_();
    opt_ = std::make_unique<nn::AdamW<T>>(m_->vs, d.config.adamw);
  }

  void step() override {
    const TrainConfig& c = d_.config;
    if (c.pathology == Pathology::kScopedGrads) {  // no regions here: micro-batches, then the step
      double total = 0;
      for (int64_t k = 0; k < c.micro_batches; ++k) {
        T loss = batch_loss(*m_, d_, step_ * c.micro_batches + k);
        total += loss.template item<float>();
        loss.div(static_cast<double>(c.micro_batches)).backward();
      }
      loss_ = total / static_cast<double>(c.micro_batches);
    } else {
      if (c.pathology == Pathology::kCreateGraph) opt_->zero_grad();  // torch's order: clear, backward, step
      T loss = batch_loss(*m_, d_, step_);
      loss_ = loss.template item<float>();
      if (c.pathology == Pathology::kKeepLoss) {
        if (running_.empty()) {
          running_.push_back(loss);
        } else {
          running_[0] = running_[0].add(loss);
        }
        loss.backward();
      } else if (c.pathology == Pathology::kCreateGraph) {
        loss.backward({}, std::nullopt, /*create_graph=*/true);
        gradient_penalty(m_->vs, c.penalty).backward();
      } else {
        loss.backward();
      }
    }
    opt_->step();
    if (c.pathology != Pathology::kCreateGraph) opt_->zero_grad();
    ++step_;
    if (mode_ == CollectMode::kCollectEveryStep) Idiom::collect();
  }

  void finish() override {
    running_.clear();
    opt_.reset();
    m_.reset();
    trigger_.reset();
    Idiom::collect();  // what is left of the steps' garbage
  }

 private:
  const TrainData& d_;
  CollectMode mode_;
  std::optional<typename Idiom::PressureTrigger> trigger_;
  std::unique_ptr<TrainModel<T>> m_;
  std::unique_ptr<nn::AdamW<T>> opt_;
  HandleVector<T> running_;  // keep_loss: the losses' running total, with its graph (where a collector sees it)
};

}  // namespace custody::workloads::train

#endif  // CUSTODY_WORKLOADS_TRAIN_COLLECTING_H_
