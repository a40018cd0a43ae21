// Copyright 2026 The custody Authors.
//
// workloads/mlp_autograd/mlp_autograd.h — the `mlp_autograd` workload: mlp's
// training (workloads/mlp/mlp.h: the same data, initial weights, model and
// learning rate) with the gradients taken by the tape — `loss.backward()` and
// `w.grad()` — instead of written by hand, and SGD under NoGradGuard. The
// losses are mlp's, step by step; what differs is the memory the graph holds
// between the forward and the backward, under each policy.
//
//   const mlp::MlpData data = mlp_autograd::make_data({});
//   mlp_autograd::HandleTrainer<tensor_ptr::Policy, Onednn> trainer(data);
//   trainer.train(100);

#ifndef CUSTODY_WORKLOADS_MLP_AUTOGRAD_MLP_AUTOGRAD_H_
#define CUSTODY_WORKLOADS_MLP_AUTOGRAD_MLP_AUTOGRAD_H_

#include <memory>

#include "core/nn/modules.h"
#include "core/temporary.h"
#include "core/tensor.h"
#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp_autograd {

using mlp::MlpConfig;
using mlp::MlpData;
using mlp::MlpModel;
using mlp::Trainer;

// mlp's data set and initial weights.
MlpData make_data(const MlpConfig& config);

// The mean softmax cross-entropy of the MLP on a batch, recorded: a tensor of
// one element whose graph reaches the model's parameters. Every intermediate
// handle is given back before it returns; the graph holds what backward needs.
template <AnyTensor T>
T loss_of(const MlpModel<T>& m, const T& x, const T& y, int64_t batch) {
  Temporary<T> h = m.fc1.forward(x);
  Temporary<T> a = h->relu();
  Temporary<T> logits = m.fc2.forward(*a);
  Temporary<T> logp = logits->log_softmax(1);
  Temporary<T> picked = y.mul(*logp);
  Temporary<T> total = picked->sum();
  return total->div(-static_cast<double>(batch));
}

// param -= lr * param.grad() for every parameter, under NoGradGuard, then the
// gradients dropped (zero_grad's set_to_none) for the next step.
template <AnyTensor T>
void sgd_step(MlpModel<T>& m, double lr) {
  {
    NoGradGuard no_grad;
    for (const T* p : {&m.fc1.weight(), &m.fc1.bias(), &m.fc2.weight(), &m.fc2.bias()}) {
      Temporary<T> g = p->grad();
      Temporary<T> scaled = g->mul(lr);
      Temporary<T> updated = p->sub_(*scaled);
    }
  }
  m.vs.zero_grad();
}

// The same training on libtorch's autograd (mlp_autograd_libtorch.cc): the compare tool's peer.
std::unique_ptr<Trainer> make_libtorch_trainer(const MlpData& data);

}  // namespace custody::workloads::mlp_autograd

#endif  // CUSTODY_WORKLOADS_MLP_AUTOGRAD_MLP_AUTOGRAD_H_
