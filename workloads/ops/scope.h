// Copyright 2026 The custody Authors.
//
// workloads/ops/scope.h — a round of the op mix under scope: one dispose
// scope per round, a nested one around the large temporaries, and early
// dispose() of those dead before their scope ends.

#ifndef CUSTODY_WORKLOADS_OPS_SCOPE_H_
#define CUSTODY_WORKLOADS_OPS_SCOPE_H_

#include <memory>

#include "policies/scope/scope.h"
#include "workloads/ops/ops.h"

namespace custody::workloads::ops {

template <class B>
class ScopeMixer final : public Mixer {
  using T = BasicTensor<scope::Policy, B>;

 public:
  explicit ScopeMixer(const OpsData& d, const RunOptions& = {})
      : d_(d), s_(std::make_unique<OpsState<T>>(d)) {}

  void step() override {
    auto round_scope = scope::new_dispose_scope();
    const OpsConfig& c = d_.config;
    T s = T::scalar(1.0f);
    for (int64_t i = 0; i < c.tiny_ops / 2; ++i) s = s * 0.999 + 0.5;
    T v = s_->state.narrow(0, offset(c), c.rows / 2);
    T y;
    {
      auto large_scope = scope::new_dispose_scope();
      T e = v.exp();
      T z = e / e.mean(1, /*keepdim=*/true);
      e.dispose();
      T zw = z.matmul(s_->w);
      z.dispose();
      y = zw.tanh().move_to_outer_dispose_scope();
    }
    v.copy_(y);
    y.dispose();
    s_->state.t().select(0, column(c)).mul_(0.5);
    checksum_ = s_->state.sum().template item<float>() + s.template item<float>();
    ++round_;
  }

  void finish() override { s_.reset(); }

 private:
  const OpsData& d_;
  std::unique_ptr<OpsState<T>> s_;
};

}  // namespace custody::workloads::ops

#endif  // CUSTODY_WORKLOADS_OPS_SCOPE_H_
