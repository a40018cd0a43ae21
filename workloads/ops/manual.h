// Copyright 2026 The custody Authors.
//
// workloads/ops/manual.h — a round of the op mix under manual: every reference freed by hand
// after its last use.

#ifndef CUSTODY_WORKLOADS_OPS_MANUAL_H_
#define CUSTODY_WORKLOADS_OPS_MANUAL_H_

#include <memory>

#include "policies/manual/manual.h"
#include "workloads/ops/ops.h"

namespace custody::workloads::ops {

template <class B>
class ManualMixer final : public Mixer {
  using T = BasicTensor<manual::Policy, B>;

 public:
  explicit ManualMixer(const OpsData& d, const RunOptions& = {})
      : d_(d), s_(std::make_unique<OpsState<T>>(d)) {}

  void step() override {
    const OpsConfig& c = d_.config;
    T s = T::scalar(1.0f);
    for (int64_t i = 0; i < c.tiny_ops / 2; ++i) {
      T scaled = s * 0.999;
      free(s);
      s = scaled + 0.5;
      free(scaled);
    }
    T v = s_->state.narrow(0, offset(c), c.rows / 2);
    T e = v.exp();
    T m = e.mean(1, /*keepdim=*/true);
    T z = e / m;
    free(e);
    free(m);
    T zw = z.matmul(s_->w);
    free(z);
    T y = zw.tanh();
    free(zw);
    free(v.copy_(y));
    free(y);
    free(v);
    T col = s_->state.t();
    T row = col.select(0, column(c));
    free(row.mul_(0.5));
    free(row);
    free(col);
    T sum = s_->state.sum();
    checksum_ = sum.template item<float>() + s.template item<float>();
    free(sum);
    free(s);
    ++round_;
  }

  void finish() override { s_.reset(); }

 private:
  const OpsData& d_;
  std::unique_ptr<OpsState<T>> s_;
};

}  // namespace custody::workloads::ops

#endif  // CUSTODY_WORKLOADS_OPS_MANUAL_H_
