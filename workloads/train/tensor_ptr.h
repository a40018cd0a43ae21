// Copyright 2026 The custody Authors.
//
// workloads/train/tensor_ptr.h — the training step for any policy whose
// handles give their references back when told (tensor_ptr, dispose, scope,
// manual): every handle in a Temporary, the step inside the region the
// policy's idiom needs open (a dispose scope under scope). The graph goes
// with the loss, after backward; AdamW's state lives in a store of its own,
// outside the step's region. The pathologies (train.h) as a user of such a
// policy writes them: keep_loss persists its running total out of the region.

#ifndef CUSTODY_WORKLOADS_TRAIN_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_TRAIN_TENSOR_PTR_H_

#include <memory>

#include "core/policy_idiom.h"
#include "core/policy_traits.h"
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
    const TrainConfig& c = d_.config;
    if (c.pathology == Pathology::kScopedGrads) {
      // Each micro-batch in a region of its own; the gradients accumulate on
      // the parameters, outside every region, for the step after them.
      double total = 0;
      for (int64_t k = 0; k < c.micro_batches; ++k) {
        [[maybe_unused]] Region region;
        Temporary<T> loss = batch_loss(*m_, d_, step_ * c.micro_batches + k);
        total += loss->template item<float>();
        Temporary<T> share = loss->div(static_cast<double>(c.micro_batches));
        share->backward();
      }
      loss_ = total / static_cast<double>(c.micro_batches);
      optimizer_step();
      return;
    }
    [[maybe_unused]] Region region;
    if (c.pathology == Pathology::kCreateGraph) opt_->zero_grad();  // torch's order: clear, backward, step
    {
      Temporary<T> loss = batch_loss(*m_, d_, step_);  // the batch's handles went: the graph keeps what it needs
      loss_ = loss->template item<float>();
      switch (c.pathology) {
        case Pathology::kKeepLoss: {  // running += loss, kept past the step's region
          T next = running_.defined() ? running_.add(*loss) : loss->alias();
          PolicyTraits<P>::persist(next);
          if (running_.defined()) running_.release();
          running_ = std::move(next);
          loss->backward();
          break;
        }
        case Pathology::kCreateGraph: {
          loss->backward({}, std::nullopt, /*create_graph=*/true);
          Temporary<T> penalty = gradient_penalty(m_->vs, c.penalty);
          penalty->backward();
          break;
        }
        default:
          loss->backward();
      }
    }  // the loss, and with it the graph, goes here
    if (c.pathology == Pathology::kCreateGraph) {
      opt_->step();
      ++step_;
      return;
    }
    optimizer_step();
  }

  ~HandleTrainer() override { finish(); }

  void finish() override {
    if (running_.defined()) running_.release();
    opt_.reset();
    m_.reset();
  }

 private:
  const TrainData& d_;
  std::unique_ptr<TrainModel<T>> m_;
  std::unique_ptr<nn::AdamW<T>> opt_;
  T running_;  // keep_loss: the losses' running total, with its graph

  void optimizer_step() {
    opt_->step();
    opt_->zero_grad();
    ++step_;
  }
};

template <class B>
using TensorPtrTrainer = HandleTrainer<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::train

#endif  // CUSTODY_WORKLOADS_TRAIN_TENSOR_PTR_H_
