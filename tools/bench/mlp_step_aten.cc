// Copyright 2026 The custody Authors.
//
// tools/bench/mlp_step_aten.cc — AtenMlp: mlp_step.h's training step in at::
// code, op for op.

#include "tools/bench/mlp_step_aten.h"

#include <ATen/ATen.h>

#include <vector>

namespace custody::bench {
namespace {

at::Tensor from_host(const std::vector<float>& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

std::vector<float> to_host(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

}  // namespace

struct AtenMlp::Tensors {
  at::Tensor x, y, w1, b1, w2, b2;
};

AtenMlp::AtenMlp(const MlpData& d) : t_(std::make_unique<Tensors>()) {
  const MlpShape& s = d.shape;
  t_->x = from_host(d.x, {s.batch, s.in});
  t_->y = from_host(d.y, {s.batch, s.out});
  t_->w1 = from_host(d.weights.w1, {s.in, s.hidden});
  t_->b1 = from_host(d.weights.b1, {s.hidden});
  t_->w2 = from_host(d.weights.w2, {s.hidden, s.out});
  t_->b2 = from_host(d.weights.b2, {s.out});
}

AtenMlp::~AtenMlp() = default;

float AtenMlp::step(float lr) {
  const Tensors& m = *t_;
  const double inv_batch = 1.0 / static_cast<double>(m.x.size(0));

  // Forward.
  const at::Tensor h = at::matmul(m.x, m.w1) + m.b1;
  const at::Tensor a = at::relu(h);
  const at::Tensor logits = at::matmul(a, m.w2) + m.b2;
  const at::Tensor logp = at::log_softmax(logits, 1);
  const float loss = ((m.y * logp).sum() * -inv_batch).item<float>();

  // Backward.
  const at::Tensor dlogits = (logp.exp() - m.y) * inv_batch;
  const at::Tensor dw2 = at::matmul(a.t(), dlogits);
  const at::Tensor db2 = dlogits.sum(0);
  const at::Tensor dh = at::matmul(dlogits, m.w2.t()) * h.gt(0.0);
  const at::Tensor dw1 = at::matmul(m.x.t(), dh);
  const at::Tensor db1 = dh.sum(0);

  // SGD.
  m.w1.sub_(dw1 * lr);
  m.b1.sub_(db1 * lr);
  m.w2.sub_(dw2 * lr);
  m.b2.sub_(db2 * lr);
  return loss;
}

MlpWeights AtenMlp::weights() const {
  return MlpWeights{to_host(t_->w1), to_host(t_->b1), to_host(t_->w2), to_host(t_->b2)};
}

}  // namespace custody::bench
