// Copyright 2026 The custody Authors.
//
// core/nn/optim.h — SGD with momentum and AdamW over a VarStore's parameters,
// with torch.optim's update rules (single-tensor, not foreach), for a model
// whose gradients the tape took (core/autograd):
//
//   nn::AdamW<T> opt(model.vs, {.lr = 3e-3});
//   loss.backward();
//   opt.step();        // every parameter with a grad(), under NoGradGuard
//   opt.zero_grad();   // set to none (the VarStore's zero_grad)
//
// The optimizer's state (momentum buffers, AdamW's two moments) lives in a
// VarStore of its own, made outside any dispose scope at the first step that
// needs it, as torch.optim makes it lazily; its allocations are the
// "optimizer_state" category of a memory history (core/stats.h). `step()`
// gives back every temporary it makes, so it needs no dispose scope open
// under scope (as torch's optimizer.step() in TorchSharp). The parameters'
// store must outlive the optimizer.

#ifndef CUSTODY_CORE_NN_OPTIM_H_
#define CUSTODY_CORE_NN_OPTIM_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/nn/var_store.h"
#include "core/policy_traits.h"
#include "core/temporary.h"
#include "core/tensor.h"

namespace custody::nn {

namespace internal {

// A state tensor of zeros like `p`, made outside any dispose scope and
// stored in `state` under `name`.
template <AnyTensor T>
T optimizer_state(VarStore<T>& state, std::string name, const T& p) {
  [[maybe_unused]] typename PolicyTraits<typename T::policy_type>::Unscoped allow;
  const CategoryScope category(MemoryCategory::kOptimizerState);
  return state.add(std::move(name), T::zeros(p.sizes(), p.scalar_type()));
}

inline void check_hyper(const char* optimizer, const char* name, double value, double low, double high) {
  if (!(value >= low && value <= high)) {
    throw InvalidArgument(absl::StrFormat("%s: %s has to be in [%g, %g] but got %g", optimizer, name, low,
                                          high, value));
  }
}

}  // namespace internal

struct SgdOptions {
  double lr = 1e-2;
  double momentum = 0;
  double weight_decay = 0;
};

// torch.optim.SGD (dampening 0, not Nesterov): g += wd * p; buf = momentum *
// buf + g (buf = g at the first step); p -= lr * buf.
template <AnyTensor T>
class Sgd {
 public:
  explicit Sgd(const VarStore<T>& params, SgdOptions o = {}) : params_(params), o_(o) {
    internal::check_hyper("Sgd", "lr", o.lr, 0, INFINITY);
    internal::check_hyper("Sgd", "momentum", o.momentum, 0, 1);
    internal::check_hyper("Sgd", "weight_decay", o.weight_decay, 0, INFINITY);
  }

  void step() {
    NoGradGuard no_grad;
    [[maybe_unused]] typename PolicyTraits<typename T::policy_type>::Unscoped allow;  // every temporary is given back here
    for (const std::string& name : params_.names()) {
      const T p = params_.get(name);
      Temporary<T> g = p.grad();
      if (!g->defined()) continue;
      if (o_.weight_decay != 0) {
        Temporary<T> decay = p.mul(o_.weight_decay);
        g.reset(g->add(*decay));
      }
      if (o_.momentum != 0) {
        const bool fresh = !state_.contains(name);
        const T buf = fresh ? internal::optimizer_state(state_, name, p) : state_.get(name);
        if (fresh) {
          Temporary<T> done = buf.copy_(*g);
        } else {
          Temporary<T> scaled = buf.mul_(o_.momentum);
          Temporary<T> done = buf.add_(*g);
        }
        g.reset(buf.alias());
      }
      Temporary<T> update = g->mul(o_.lr);
      Temporary<T> done = p.sub_(*update);
    }
  }

  void zero_grad(bool set_to_none = true) const { params_.zero_grad(set_to_none); }
  const VarStore<T>& state() const { return state_; }

 private:
  const VarStore<T>& params_;
  SgdOptions o_;
  VarStore<T> state_;  // momentum buffers, by parameter name
};

struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};

// torch.optim.AdamW (not amsgrad): p *= 1 - lr * wd; m = b1 m + (1 - b1) g;
// v = b2 v + (1 - b2) g²; p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
template <AnyTensor T>
class AdamW {
 public:
  explicit AdamW(const VarStore<T>& params, AdamWOptions o = {}) : params_(params), o_(o) {
    internal::check_hyper("AdamW", "lr", o.lr, 0, INFINITY);
    internal::check_hyper("AdamW", "beta1", o.beta1, 0, 1 - 1e-12);
    internal::check_hyper("AdamW", "beta2", o.beta2, 0, 1 - 1e-12);
    internal::check_hyper("AdamW", "eps", o.eps, 0, INFINITY);
    internal::check_hyper("AdamW", "weight_decay", o.weight_decay, 0, INFINITY);
  }

  void step() {
    NoGradGuard no_grad;
    [[maybe_unused]] typename PolicyTraits<typename T::policy_type>::Unscoped allow;  // every temporary is given back here
    ++steps_;
    const double t = static_cast<double>(steps_);
    const double step_size = o_.lr / (1 - std::pow(o_.beta1, t));
    const double correction2 = std::sqrt(1 - std::pow(o_.beta2, t));
    for (const std::string& name : params_.names()) {
      const T p = params_.get(name);
      Temporary<T> g = p.grad();
      if (!g->defined()) continue;
      const std::string m_name = "exp_avg." + name, v_name = "exp_avg_sq." + name;
      const T m = state_.contains(m_name) ? state_.get(m_name) : internal::optimizer_state(state_, m_name, p);
      const T v = state_.contains(v_name) ? state_.get(v_name) : internal::optimizer_state(state_, v_name, p);
      { Temporary<T> decayed = p.mul_(1 - o_.lr * o_.weight_decay); }
      {
        Temporary<T> scaled = m.mul_(o_.beta1);
        Temporary<T> share = g->mul(1 - o_.beta1);
        Temporary<T> done = m.add_(*share);
      }
      {
        Temporary<T> scaled = v.mul_(o_.beta2);
        Temporary<T> g2 = g->mul(*g);
        Temporary<T> share = g2->mul(1 - o_.beta2);
        Temporary<T> done = v.add_(*share);
      }
      Temporary<T> root = v.sqrt();
      Temporary<T> corrected = root->div(correction2);
      Temporary<T> denom = corrected->add(o_.eps);
      Temporary<T> ratio = m.div(*denom);
      Temporary<T> update = ratio->mul(step_size);
      Temporary<T> done = p.sub_(*update);
    }
  }

  void zero_grad(bool set_to_none = true) const { params_.zero_grad(set_to_none); }
  int64_t steps() const { return steps_; }
  const VarStore<T>& state() const { return state_; }

 private:
  const VarStore<T>& params_;
  AdamWOptions o_;
  int64_t steps_ = 0;
  VarStore<T> state_;  // exp_avg.<name>, exp_avg_sq.<name>
};

}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_OPTIM_H_
