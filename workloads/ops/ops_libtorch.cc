// Copyright 2026 The custody Authors.
//
// workloads/ops/ops_libtorch.cc — the rounds of ops.h in plain libtorch: the
// compare tool's peer. The only translation unit of the workload that
// includes ATen.

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <memory>
#include <vector>

#include "workloads/ops/ops.h"

namespace custody::workloads::ops {
namespace {

class LibtorchMixer final : public Mixer {
 public:
  explicit LibtorchMixer(const OpsData& d) : d_(d) {
    c10::InferenceMode guard;
    const OpsConfig& c = d.config;
    state_ = at::from_blob(const_cast<float*>(d.state.data()), {c.rows, c.cols}, at::kFloat).clone();
    w_ = at::from_blob(const_cast<float*>(d.w.data()), {c.cols, c.cols}, at::kFloat).clone();
  }

  void step() override {
    c10::InferenceMode guard;
    const OpsConfig& c = d_.config;
    at::Tensor s = at::scalar_tensor(1.0f);
    for (int64_t i = 0; i < c.tiny_ops / 2; ++i) s = s * 0.999 + 0.5;
    at::Tensor v = state_.narrow(0, offset(c), c.rows / 2);
    const at::Tensor e = v.exp();
    const at::Tensor z = e / e.mean({1}, /*keepdim=*/true);
    v.copy_(at::matmul(z, w_).tanh());
    state_.t().select(0, column(c)).mul_(0.5);
    checksum_ = state_.sum().item<float>() + s.item<float>();
    ++round_;
  }

  void finish() override { state_ = w_ = at::Tensor(); }

 private:
  const OpsData& d_;
  at::Tensor state_, w_;
};

}  // namespace

std::unique_ptr<Mixer> make_libtorch_mixer(const OpsData& data) {
  return std::make_unique<LibtorchMixer>(data);
}

}  // namespace custody::workloads::ops
