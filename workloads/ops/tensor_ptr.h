// Copyright 2026 The custody Authors.
//
// workloads/ops/tensor_ptr.h — a round of the op mix under tensor_ptr: RAII;
// a temporary goes when its last handle does — chained ones at the end of
// the full expression, named ones at the end of their block or at release().
//
// Written for any policy whose handles own their references (HandleMixer<P, B>):
// it is also the idiom of a policy that does not collect and has no header of
// its own here (runners.h; collecting.h is the one of a policy that collects).

#ifndef CUSTODY_WORKLOADS_OPS_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_OPS_TENSOR_PTR_H_

#include <memory>

#include "policies/tensor_ptr/tensor_ptr.h"
#include "workloads/ops/ops.h"

namespace custody::workloads::ops {

template <class P, class B>
class HandleMixer final : public Mixer {
  using T = BasicTensor<P, B>;

 public:
  explicit HandleMixer(const OpsData& d, const RunOptions& = {})
      : d_(d), s_(std::make_unique<OpsState<T>>(d)) {}

  void step() override {
    const OpsConfig& c = d_.config;
    T s = T::scalar(1.0f);
    for (int64_t i = 0; i < c.tiny_ops / 2; ++i) s = s * 0.999 + 0.5;
    T v = s_->state.narrow(0, offset(c), c.rows / 2);
    T y;
    {
      T z;
      {
        T e = v.exp();
        z = e / e.mean(1, /*keepdim=*/true);
      }  // e goes here
      T zw = z.matmul(s_->w);
      z.release();
      y = zw.tanh();
    }
    v.copy_(y);
    y.release();
    s_->state.t().select(0, column(c)).mul_(0.5);
    checksum_ = s_->state.sum().template item<float>() + s.template item<float>();
    ++round_;
  }

  void finish() override { s_.reset(); }

 private:
  const OpsData& d_;
  std::unique_ptr<OpsState<T>> s_;
};

template <class B>
using TensorPtrMixer = HandleMixer<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::ops

#endif  // CUSTODY_WORKLOADS_OPS_TENSOR_PTR_H_
