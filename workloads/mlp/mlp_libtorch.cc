// Copyright 2026 The custody Authors.
//
// workloads/mlp/mlp_libtorch.cc — the MLP training of mlp.h in plain libtorch,
// as a libtorch user would write it without autograd (same data, same initial
// weights, same hand-derived gradients): the compare tool's peer. The only
// translation unit of the workload that includes ATen.

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <memory>
#include <vector>

#include "workloads/mlp/mlp.h"

namespace custody::workloads::mlp {
namespace {

at::Tensor tensor_of(const std::vector<float>& v, std::vector<int64_t> sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

class LibtorchTrainer final : public Trainer {
 public:
  explicit LibtorchTrainer(const MlpData& d) : d_(d) {
    c10::InferenceMode guard;
    const MlpConfig& c = d.config;
    w1_ = tensor_of(d.w1, {c.hidden, c.features});
    b1_ = tensor_of(d.b1, {c.hidden});
    w2_ = tensor_of(d.w2, {c.classes, c.hidden});
    b2_ = tensor_of(d.b2, {c.classes});
  }

  void step() override {
    c10::InferenceMode guard;
    const MlpConfig& c = d_.config;
    const at::Tensor x = tensor_of(batch_x(d_), {c.batch, c.features});
    const at::Tensor y = tensor_of(batch_y(d_), {c.batch, c.classes});
    const at::Tensor h = at::addmm(b1_, x, w1_.t());
    const at::Tensor a = at::relu(h);
    const at::Tensor logits = at::addmm(b2_, a, w2_.t());
    const at::Tensor logp = at::log_softmax(logits, 1);
    loss_ = -(y * logp).sum().item<float>() / static_cast<double>(c.batch);
    const at::Tensor dlogits = (logp.exp() - y) / static_cast<double>(c.batch);
    const at::Tensor dw2 = dlogits.t().matmul(a), db2 = dlogits.sum(0);
    const at::Tensor da = dlogits.matmul(w2_);
    w2_.sub_(dw2 * c.lr);
    b2_.sub_(db2 * c.lr);
    const at::Tensor dh = da * h.gt(0);
    w1_.sub_(dh.t().matmul(x) * c.lr);
    b1_.sub_(dh.sum(0) * c.lr);
    ++step_;
  }

  double accuracy() override {
    c10::InferenceMode guard;
    const MlpConfig& c = d_.config;
    const at::Tensor x = tensor_of(d_.eval_x, {c.eval_size, c.features});
    const at::Tensor y = tensor_of(d_.eval_y, {c.eval_size, c.classes});
    const at::Tensor logits = at::addmm(b2_, at::relu(at::addmm(b1_, x, w1_.t())), w2_.t());
    return logits.argmax(1).eq(y.argmax(1)).to(at::kFloat).mean().item<float>();
  }

  void finish() override { w1_ = b1_ = w2_ = b2_ = at::Tensor(); }

 private:
  const MlpData& d_;
  at::Tensor w1_, b1_, w2_, b2_;
};

}  // namespace

std::unique_ptr<Trainer> make_libtorch_trainer(const MlpData& data) {
  return std::make_unique<LibtorchTrainer>(data);
}

}  // namespace custody::workloads::mlp
