// Copyright 2026 The custody Authors.
//
// examples/own_workload/dispose.h — the tiny workload's step written for the
// dispose policy by hand (TorchSharp technique 2): each temporary disposed
// right after its last use, instead of every tensor at the step's end as the
// generic body has it. custody_workload(overrides = ["dispose.h"]) puts this
// specialization of OwnRunner in place of the generic one for dispose.

#ifndef CUSTODY_EXAMPLES_OWN_WORKLOAD_DISPOSE_H_
#define CUSTODY_EXAMPLES_OWN_WORKLOAD_DISPOSE_H_

#include <memory>

#include "core/nn/var_store.h"
#include "examples/own_workload/tiny.h"
#include "policies/dispose/dispose.h"
#include "workloads/generic.h"
#include "workloads/workload.h"

namespace custody::workloads {

template <class B>
class OwnRunner<own::Tiny, dispose::Policy, B> : public Runner {
  using T = BasicTensor<dispose::Policy, B>;
  using W = own::Tiny;

 public:
  OwnRunner(const W::Data& d, const RunOptions& /*options*/)
      : params_(std::make_unique<nn::VarStore<T>>()), m_(std::make_unique<W::Model<T>>(d, *params_)) {}
  OwnRunner(const OwnRunner&) = delete;
  OwnRunner& operator=(const OwnRunner&) = delete;
  ~OwnRunner() override { finish(); }

  void step() override {
    const size_t i = static_cast<size_t>(m_->n++ % W::kBatches);
    T x = T::from_vector(m_->d.x[i], {W::kBatch, W::kIn});
    T err;
    {
      auto y = dispose::disposing(T::from_vector(m_->d.y[i], {W::kBatch, W::kOut}));
      auto xw = dispose::disposing(x.matmul(m_->w));
      auto pred = dispose::disposing(xw.add(m_->b));
      err = pred.sub(y);
    }
    {
      auto sq = dispose::disposing(err.mul(err));
      auto loss = dispose::disposing(sq.mean());
      metric_ = loss.template item<float>();
    }
    T dpred = err.mul(2.0 / (W::kBatch * W::kOut));
    err.dispose();
    {
      auto xt = dispose::disposing(x.t());
      auto dw = dispose::disposing(xt.matmul(dpred));
      x.dispose();
      auto w_step = dispose::disposing(dw.mul(W::kLr));
      auto w_updated = dispose::disposing(m_->w.sub_(w_step));
    }
    {
      auto db = dispose::disposing(dpred.sum(0));
      dpred.dispose();
      auto b_step = dispose::disposing(db.mul(W::kLr));
      auto b_updated = dispose::disposing(m_->b.sub_(b_step));
    }
  }
  double metric() override { return metric_; }
  void finish() override {
    m_.reset();
    params_.reset();
  }

 private:
  std::unique_ptr<nn::VarStore<T>> params_;
  std::unique_ptr<W::Model<T>> m_;
  double metric_ = 0;
};

}  // namespace custody::workloads

#endif  // CUSTODY_EXAMPLES_OWN_WORKLOAD_DISPOSE_H_
