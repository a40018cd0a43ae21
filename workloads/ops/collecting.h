// Copyright 2026 The custody Authors.
//
// workloads/ops/collecting.h — a round of the op mix under a policy that
// collects (TorchSharp technique 1): gc, and any policy whose
// PolicyIdiom::kCollects. Nothing is given back by hand; the collector gives
// it back. How often it collects is the RunOptions' CollectMode.
//
// Written over PolicyIdiom<P> (CollectingMixer<P, B>): the runner of a
// collecting policy with no header of its own here (runners.h).

#ifndef CUSTODY_WORKLOADS_OPS_COLLECTING_H_
#define CUSTODY_WORKLOADS_OPS_COLLECTING_H_

#include <memory>
#include <optional>

#include "core/policy_idiom.h"
#include "workloads/ops/ops.h"

namespace custody::workloads::ops {

template <class P, class B>
class CollectingMixer final : public Mixer {
  using T = BasicTensor<P, B>;
  using Idiom = PolicyIdiom<P>;
  static_assert(Idiom::kCollects, "CollectingMixer runs a policy that collects");

 public:
  explicit CollectingMixer(const OpsData& d, const RunOptions& o = {})
      : d_(d), mode_(o.collect_mode), s_(std::make_unique<OpsState<T>>(d)) {
    if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
  }

  void step() override {
    const OpsConfig& c = d_.config;
    T s = T::scalar(1.0f);
    for (int64_t i = 0; i < c.tiny_ops / 2; ++i) {
      T scaled = s * 0.999;
      s = scaled + 0.5;
    }
    T v = s_->state.narrow(0, offset(c), c.rows / 2);
    T e = v.exp();
    T m = e.mean(1, /*keepdim=*/true);
    T z = e / m;
    T y = z.matmul(s_->w).tanh();
    v.copy_(y);
    s_->state.t().select(0, column(c)).mul_(0.5);
    checksum_ = s_->state.sum().template item<float>() + s.template item<float>();
    if (mode_ == CollectMode::kCollectEveryStep) Idiom::collect();
    ++round_;
  }

  void finish() override {
    s_.reset();
    trigger_.reset();
    Idiom::collect();  // what is left of the rounds' garbage
  }

 private:
  const OpsData& d_;
  CollectMode mode_;
  std::optional<typename Idiom::PressureTrigger> trigger_;
  std::unique_ptr<OpsState<T>> s_;
};

}  // namespace custody::workloads::ops

#endif  // CUSTODY_WORKLOADS_OPS_COLLECTING_H_
