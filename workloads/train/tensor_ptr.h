// Copyright 2026 The custody Authors.
//
// workloads/train/tensor_ptr.h — the training step for any policy whose
// handles give their references back when told (tensor_ptr, dispose, scope,
// manual): every handle in a Temporary, the step inside the region the
// policy's idiom needs open (a dispose scope under scope). The graph goes
// with the loss, after backward; AdamW's state lives in a store of its own,
// outside the step's region.

#ifndef CUSTODY_WORKLOADS_TRAIN_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_TRAIN_TENSOR_PTR_H_

#include <memory>

#include "core/policy_idiom.h"
#include "core/random.h"
#include "policies/tensor_ptr/tensor_ptr.h"
#include "workloads/train/train.h"

namespace custody::workloads::train {

template <class P, class B>
class HandleTrainer final : public Trainer {
  using T = BasicTensor<P, B>;
  using Region = typename PolicyIdiom<P>::Region;

 public:
  explicit HandleTrainer(const TrainData& d, const RunOptions& = {}) : d_(d) {
    manual_seed(d.config.seed);  // the dropout masks
    m_ = std::make_unique<TrainModel<T>>(d);
    m_->vs.requires_grad_();
    opt_ = std::make_unique<nn::AdamW<T>>(m_->vs, d.config.adamw);
  }

  void step() override {
    [[maybe_unused]] Region region;
    const TrainConfig& c = d_.config;
    {
      Temporary<T> loss = [&] {
        const Batch b = d_.batch(step_);
        Temporary<T> inputs = T::from_vector(b.inputs, {c.batch, c.seq});
        Temporary<T> targets = T::from_vector(b.targets, {c.batch, c.seq});
        return m_->loss(*inputs, *targets);
      }();  // the batch's handles go here: the graph keeps what backward needs of them
      loss_ = loss->template item<float>();
      loss->backward();
    }  // the loss, and with it the graph, goes here
    opt_->step();
    opt_->zero_grad();
    ++step_;
  }

  void finish() override {
    opt_.reset();
    m_.reset();
  }

 private:
  const TrainData& d_;
  std::unique_ptr<TrainModel<T>> m_;
  std::unique_ptr<nn::AdamW<T>> opt_;
};

template <class B>
using TensorPtrTrainer = HandleTrainer<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::train

#endif  // CUSTODY_WORKLOADS_TRAIN_TENSOR_PTR_H_
