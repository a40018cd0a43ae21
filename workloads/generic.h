// Copyright 2026 The custody Authors.
//
// workloads/generic.h — your own workload under every policy from one body
// (docs/reference.md, "Your own workload"). Write the model once, against any tensor
// type T, and let each policy's default idiom own the step's tensors:
//
//   struct Tiny {                               // the workload: names and host data
//     static constexpr const char* kName = "tiny";
//     static constexpr const char* kUnit = "training step";
//     static constexpr const char* kDescription = "linear regression, 256 -> 16, batch 64";
//     static constexpr int64_t kSteps = 100, kQuickSteps = 10;
//     struct Data { ... };                      // host data every contender shares
//     static Data make_data();
//     template <class T>                        // a custody tensor, or LibtorchTensor
//     class Model {
//      public:
//       Model(const Data& d, Params<T>& params);        // set-up: parameters in `params`
//       double step();                                   // one step; returns the metric
//     };
//   };
//
//   custody_workload(name = "tiny", hdrs = ["tiny.h"], workload = "my::Tiny")   # BUILD
//   ./bazelw run //my:tiny_compare -- --workloads=tiny                          # every policy
//
// The contract. The constructor makes every tensor that outlives a step (in
// the VarStore, or held by the Model and released in its destructor with
// custody::release); step() makes only tensors of that step and may leave
// them to the idiom: it need not release anything it makes. Updates of state
// are in place (w.sub_(g)). The metric must not depend on the policy.
//
// The same body also runs as plain libtorch, the compare tool's peer
// (LibtorchRunner below): T = LibtorchTensor (workloads/libtorch_tensor.h),
// one at::Tensor behind custody's method names, and Params<T> a vector of
// them. So the body uses what both offer: the methods LibtorchTensor lists.
//
// A body may train by autograd (examples/own_workload/tiny_autograd.h):
// `params.requires_grad_()` in the constructor, `loss.backward()` and
// `w.grad()` in the step, the update under a NoGrad<T> guard, then
// `params.zero_grad()`. Such a workload says `static constexpr bool kAutograd
// = true;` so that its libtorch peer runs on libtorch's autograd rather than
// in inference mode.
//
// What runs the body, per policy (GenericRunner below):
//   tensor_ptr  the handles: each tensor is freed when its last handle goes
//   scope       a dispose scope around each step
//   dispose     every tensor the step made disposed at its end
//   manual      every reference the step made freed at its end
//   gc          a collection after each step, or the pressure trigger, or
//               neither (the compare tool's three contenders of a policy
//               that collects)
// (the idiom of PolicyIdiom<P>::Guard, core/policy_idiom.h, for a policy that
// does not collect; its collector's hooks for one that does).
//
// A policy-specific version replaces the generic one by specializing
// OwnRunner for that policy, in a header the custody_workload macro lists in
// `overrides` (examples/own_workload/dispose.h): typically the body with
// each temporary released right after its last use, to see what the careful
// idiom saves over the step-end one.

#ifndef CUSTODY_WORKLOADS_GENERIC_H_
#define CUSTODY_WORKLOADS_GENERIC_H_

#include <memory>
#include <optional>

#include "core/nn/var_store.h"
#include "core/policy_traits.h"
#include "core/tensor.h"
#include "core/policy_idiom.h"
#include "workloads/libtorch_tensor.h"
#include "workloads/workload.h"

namespace custody::workloads {

// Where a Model keeps its parameters: nn::VarStore<T> for custody's tensors
// (it gives them back under every policy), LibtorchParams for the peer.
template <class T>
struct ParamsOf {
  using type = nn::VarStore<T>;
};
template <>
struct ParamsOf<LibtorchTensor> {
  using type = LibtorchParams;
};
template <class T>
using Params = typename ParamsOf<T>::type;

// No graph is recorded while it lives: custody::NoGradGuard, or libtorch's for the peer.
template <class T>
struct NoGradOf {
  using type = NoGradGuard;
};
template <>
struct NoGradOf<LibtorchTensor> {
  using type = LibtorchNoGradGuard;
};
template <class T>
using NoGrad = typename NoGradOf<T>::type;

// What a workload type must provide (see above).
template <class W>
concept OwnWorkload = requires {
  { W::kName } -> std::convertible_to<const char*>;
  { W::kUnit } -> std::convertible_to<const char*>;
  { W::kDescription } -> std::convertible_to<const char*>;
  { W::kSteps } -> std::convertible_to<int64_t>;
  { W::kQuickSteps } -> std::convertible_to<int64_t>;
  typename W::Data;
  { W::make_data() } -> std::same_as<typename W::Data>;
};

// The generic body under policy P on backend B, in P's default idiom.
template <OwnWorkload W, class P, class B>
class GenericRunner : public Runner {
 public:
  using T = BasicTensor<P, B>;
  using Model = typename W::template Model<T>;

  GenericRunner(const typename W::Data& d, const RunOptions& o) : mode_(o.collect_mode) {
    if constexpr (Idiom::kCollects) {
      if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
    }
    [[maybe_unused]] typename PolicyTraits<P>::Unscoped set_up;  // state outlives every scope
    params_ = std::make_unique<nn::VarStore<T>>();
    model_ = std::make_unique<Model>(d, *params_);
  }
  ~GenericRunner() override { finish(); }

  void step() override {
    if constexpr (Idiom::kCollects) {
      metric_ = model_->step();
      if (mode_ == CollectMode::kCollectEveryStep) Idiom::collect();
    } else {
      // scope: a dispose scope; dispose, manual: what the step made is given back at its end.
      [[maybe_unused]] typename Idiom::Guard step_end;
      metric_ = model_->step();
    }
  }
  double metric() override { return metric_; }
  void finish() override {
    model_.reset();
    params_.reset();
    if constexpr (Idiom::kCollects) {
      trigger_.reset();
      if (!finished_) Idiom::collect();  // what is left of the steps' garbage
    }
    finished_ = true;
  }

 private:
  using Idiom = PolicyIdiom<P>;
  CollectMode mode_;
  std::optional<typename Idiom::PressureTrigger> trigger_;
  std::unique_ptr<nn::VarStore<T>> params_;
  std::unique_ptr<Model> model_;
  double metric_ = 0;
  bool finished_ = false;
};

// Whether W's body calls backward() (its kAutograd, false when it has none).
template <class W>
constexpr bool uses_autograd() {
  if constexpr (requires { W::kAutograd; }) {
    return W::kAutograd;
  } else {
    return false;
  }
}

// The generic body as plain libtorch: T = LibtorchTensor, libtorch's
// inference mode around each step (as the built-in workloads' peers), or its
// autograd for a body that calls backward().
template <OwnWorkload W>
class LibtorchRunner : public Runner {
 public:
  using Model = typename W::template Model<LibtorchTensor>;
  explicit LibtorchRunner(const typename W::Data& d) {
    std::optional<LibtorchInferenceMode> mode;
    if constexpr (!uses_autograd<W>()) mode.emplace();
    model_ = std::make_unique<Model>(d, params_);
  }
  void step() override {
    std::optional<LibtorchInferenceMode> mode;
    if constexpr (!uses_autograd<W>()) mode.emplace();
    metric_ = model_->step();
  }
  double metric() override { return metric_; }
  void finish() override { model_.reset(); }

 private:
  LibtorchParams params_;
  std::unique_ptr<Model> model_;
  double metric_ = 0;
};

// What runs workload W under P on B: the generic body unless a header
// specializes it (a policy-specific idiom), e.g.
//
//   template <class B>
//   class custody::workloads::OwnRunner<my::Tiny, dispose::Policy, B> : public Runner { ... };
//
// constructible from (const W::Data&, const RunOptions&).
template <OwnWorkload W, class P, class B>
class OwnRunner : public GenericRunner<W, P, B> {
 public:
  using GenericRunner<W, P, B>::GenericRunner;
};

}  // namespace custody::workloads

#endif  // CUSTODY_WORKLOADS_GENERIC_H_
