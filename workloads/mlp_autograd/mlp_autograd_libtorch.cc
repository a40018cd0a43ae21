// Copyright 2026 The custody Authors.
//
// workloads/mlp_autograd/mlp_autograd_libtorch.cc — the training of
// mlp_autograd.h on libtorch's autograd, as a libtorch user writes it
// (requires_grad parameters, loss.backward(), SGD under NoGradGuard, the
// gradients set to None): the compare tool's peer. The only translation unit
// of the workload that includes ATen.

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <memory>
#include <vector>

#include "workloads/mlp_autograd/mlp_autograd.h"

namespace custody::workloads::mlp_autograd {
namespace {

at::Tensor tensor_of(const std::vector<float>& v, std::vector<int64_t> sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

class LibtorchTrainer final : public Trainer {
 public:
  explicit LibtorchTrainer(const MlpData& d) : d_(d) {
    const MlpConfig& c = d.config;
    params_ = {tensor_of(d.w1, {c.hidden, c.features}), tensor_of(d.b1, {c.hidden}),
               tensor_of(d.w2, {c.classes, c.hidden}), tensor_of(d.b2, {c.classes})};
    for (at::Tensor& p : params_) p.requires_grad_();
  }

  void step() override {
    const MlpConfig& c = d_.config;
    {
      const at::Tensor x = tensor_of(batch_x(d_), {c.batch, c.features});
      const at::Tensor y = tensor_of(batch_y(d_), {c.batch, c.classes});
      const at::Tensor h = at::matmul(x, params_[0].t()) + params_[1];
      const at::Tensor logits = at::matmul(at::relu(h), params_[2].t()) + params_[3];
      const at::Tensor loss = (y * at::log_softmax(logits, 1)).sum() / -static_cast<double>(c.batch);
      loss_ = loss.item<float>();
      loss.backward();
    }
    {
      at::NoGradGuard no_grad;
      for (at::Tensor& p : params_) {
        p.sub_(p.grad() * c.lr);
        p.mutable_grad().reset();
      }
    }
    ++step_;
  }

  double accuracy() override {
    at::NoGradGuard no_grad;
    const MlpConfig& c = d_.config;
    const at::Tensor x = tensor_of(d_.eval_x, {c.eval_size, c.features});
    const at::Tensor y = tensor_of(d_.eval_y, {c.eval_size, c.classes});
    const at::Tensor h = at::relu(at::matmul(x, params_[0].t()) + params_[1]);
    const at::Tensor logits = at::matmul(h, params_[2].t()) + params_[3];
    return logits.argmax(1).eq(y.argmax(1)).to(at::kFloat).mean().item<float>();
  }

  void finish() override { params_.clear(); }

 private:
  const MlpData& d_;
  std::vector<at::Tensor> params_;
};

}  // namespace

std::unique_ptr<Trainer> make_libtorch_trainer(const MlpData& data) {
  return std::make_unique<LibtorchTrainer>(data);
}

}  // namespace custody::workloads::mlp_autograd
