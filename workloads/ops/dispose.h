// Copyright 2026 The custody Authors.
//
// workloads/ops/dispose.h — a round of the op mix under dispose: every temporary disposed by
// hand, or held by `disposing` to the end of the round.

#ifndef CUSTODY_WORKLOADS_OPS_DISPOSE_H_
#define CUSTODY_WORKLOADS_OPS_DISPOSE_H_

#include <memory>

#include "policies/dispose/dispose.h"
#include "workloads/ops/ops.h"

namespace custody::workloads::ops {

template <class B>
class DisposeMixer final : public Mixer {
  using T = BasicTensor<dispose::Policy, B>;

 public:
  explicit DisposeMixer(const OpsData& d, const RunOptions& = {})
      : d_(d), s_(std::make_unique<OpsState<T>>(d)) {}

  void step() override {
    using dispose::disposing;
    const OpsConfig& c = d_.config;
    T s = T::scalar(1.0f);
    for (int64_t i = 0; i < c.tiny_ops / 2; ++i) {
      auto scaled = disposing(s * 0.999);
      T next = scaled + 0.5;
      s.dispose();
      s = next;
    }
    auto s_done = disposing(s);
    auto v = disposing(s_->state.narrow(0, offset(c), c.rows / 2));
    auto e = disposing(v.exp());
    auto m = disposing(e.mean(1, /*keepdim=*/true));
    auto z = disposing(e / m);
    e.dispose();
    auto zw = disposing(z.matmul(s_->w));
    z.dispose();
    auto y = disposing(zw.tanh());
    zw.dispose();
    auto copied = disposing(v.copy_(y));
    auto col = disposing(s_->state.t());
    auto row = disposing(col.select(0, column(c)));
    auto scaled = disposing(row.mul_(0.5));
    auto sum = disposing(s_->state.sum());
    checksum_ = sum.template item<float>() + s.template item<float>();
    ++round_;
  }

  void finish() override { s_.reset(); }

 private:
  const OpsData& d_;
  std::unique_ptr<OpsState<T>> s_;
};

}  // namespace custody::workloads::ops

#endif  // CUSTODY_WORKLOADS_OPS_DISPOSE_H_
