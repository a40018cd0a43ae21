// Copyright 2026 The custody Authors.
//
// workloads/mlp/mlp.h — the `mlp` workload: train a 2-layer MLP
// (features -> hidden -> relu -> classes) with hand-derived gradients and
// in-place SGD on a seeded synthetic classification set, until the held-out
// accuracy passes a stated bar.
//
// The data set: `classes` Gaussian clusters in `features` dimensions (centers
// ~ N(0, center_scale²), points = center + N(0, 1) noise), generated on the
// host with std::mt19937 and hand-rolled distributions, so every policy,
// backend and the libtorch peer see the same numbers. Batches are handed to
// the step as host vectors, as a data loader would; the initial weights are
// host vectors too (torch.nn.Linear's U(-1/sqrt(in), 1/sqrt(in))).
//
// The training step in each policy's idiom: the policy's own header (dispose.h,
// scope.h, manual.h), else a generic body (tensor_ptr.h: handles that own their
// references; collecting.h: a policy that collects); the model pieces are
// core/nn's, shared by all of them:
//
//   const mlp::MlpData data = mlp::make_data({});
//   mlp::ScopeTrainer<Onednn> trainer(data);
//   while (trainer.accuracy() < data.config.accuracy_bar) trainer.train(100);

#ifndef CUSTODY_WORKLOADS_MLP_MLP_H_
#define CUSTODY_WORKLOADS_MLP_MLP_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/functional.h"
#include "core/nn/modules.h"
#include "core/nn/var_store.h"
#include "core/tensor.h"
#include "workloads/workload.h"

namespace custody::workloads::mlp {

struct MlpConfig {
  int64_t features = 128;
  int64_t hidden = 512;
  int64_t classes = 10;
  int64_t batch = 128;
  int64_t train_batches = 32;  // the training set: train_batches * batch points
  int64_t eval_size = 1024;    // held-out points
  double center_scale = 0.3;
  double lr = 0.1;
  double accuracy_bar = 0.90;  // the bar the examples and tests train to
  uint32_t seed = 1;
};

struct MlpData {
  MlpConfig config;
  std::vector<std::vector<float>> train_x, train_y;  // per batch: [batch, features], one-hot [batch, classes]
  std::vector<float> eval_x, eval_y;                 // [eval_size, features], [eval_size, classes]
  std::vector<float> w1, b1, w2, b2;                 // initial parameters (w: [out, in])
};

MlpData make_data(const MlpConfig& config);

// The model every policy's trainer uses: parameters in a VarStore, two Linears.
template <AnyTensor T>
struct MlpModel {
  explicit MlpModel(const MlpData& d)
      : fc1(vs.from_vector("fc1.weight", d.w1, std::vector<int64_t>{d.config.hidden, d.config.features}),
            vs.from_vector("fc1.bias", d.b1, std::vector<int64_t>{d.config.hidden})),
        fc2(vs.from_vector("fc2.weight", d.w2, std::vector<int64_t>{d.config.classes, d.config.hidden}),
            vs.from_vector("fc2.bias", d.b2, std::vector<int64_t>{d.config.classes})) {}

  nn::VarStore<T> vs;
  nn::Linear<T> fc1, fc2;
};

// Held-out accuracy of `m` (creates tensors: call it where the policy allows
// creating them, e.g. inside a dispose scope under scope).
template <AnyTensor T>
double evaluate(const MlpModel<T>& m, const MlpData& d) {
  const MlpConfig& c = d.config;
  nn::Temporary<T> x = T::from_vector(d.eval_x, std::vector<int64_t>{c.eval_size, c.features});
  nn::Temporary<T> y = T::from_vector(d.eval_y, std::vector<int64_t>{c.eval_size, c.classes});
  nn::Temporary<T> h = m.fc1.forward(*x);
  nn::Temporary<T> a = h->relu();
  nn::Temporary<T> logits = m.fc2.forward(*a);
  return nn::accuracy(*logits, *y);
}

// What every policy's trainer offers (besides Runner): train and evaluate.
class Trainer : public Runner {
 public:
  // Runs `steps` training steps.
  void train(int64_t steps) {
    for (int64_t i = 0; i < steps; ++i) step();
  }
  // Held-out accuracy of the current parameters.
  virtual double accuracy() = 0;
  // The loss of the last step.
  double metric() override { return loss_; }

 protected:
  // The next training batch, cycling through the set.
  const std::vector<float>& batch_x(const MlpData& d) const {
    return d.train_x[static_cast<size_t>(step_ % d.config.train_batches)];
  }
  const std::vector<float>& batch_y(const MlpData& d) const {
    return d.train_y[static_cast<size_t>(step_ % d.config.train_batches)];
  }
  double loss_ = 0;
  int64_t step_ = 0;
};

// The same training in plain libtorch (mlp_libtorch.cc): the compare tool's peer.
std::unique_ptr<Trainer> make_libtorch_trainer(const MlpData& data);

}  // namespace custody::workloads::mlp

#endif  // CUSTODY_WORKLOADS_MLP_MLP_H_
