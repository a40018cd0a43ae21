// Copyright 2026 The custody Authors.
//
// workloads/llama/hybrid.h — the llama decoder in two regimes at once, the
// layout of ocaml-torch's refcounted llama2 (seeds: "rc scopes"): the
// parameters and the KV cache belong to the garbage collector (a gc model: its
// VarStore holds them; nothing disposes them during decoding), and every
// token's activations live in a dispose scope that frees them at the token's
// end. The forward runs on scope tensors: the model's tensors are shared into
// the scope policy once, at the boundary between the parameter store and the
// forward (custody::share_as, core/convert.h), so each regime holds its own
// reference — the scope side's are persistent handles given back at finish,
// the gc side's go with the gc model.
//
//   HybridGenerator<Onednn> g(weights);
//   g.step();   // one token: a scope around the forward, parameters untouched

#ifndef CUSTODY_WORKLOADS_LLAMA_HYBRID_H_
#define CUSTODY_WORKLOADS_LLAMA_HYBRID_H_

#include <memory>

#include "policies/gc/gc.h"
#include "policies/scope/scope.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class B>
class HybridGenerator final : public Generator {
  using Params = BasicTensor<gc::Policy, B>;       // owned by the collector
  using Activation = BasicTensor<scope::Policy, B>;  // owned by each token's scope

 public:
  // The policy whose collector owns the parameters (the compare tool's hooks).
  using CollectingPolicy = gc::Policy;

 private:

 public:
  explicit HybridGenerator(const LlamaWeights& w, const RunOptions& = {})
      : params_(std::make_unique<LlamaModel<Params>>(w)),
        model_(std::make_unique<LlamaModel<Activation>>(*params_)) {}

  void step() override {
    auto token_scope = scope::new_dispose_scope();
    const int64_t pos = next_position(model_->config());
    Activation logits = model_->forward(tokens_.back(), pos);
    Activation next = logits.argmax(-1);
    tokens_.push_back(next.template item<int64_t>());
  }

  void finish() override {
    model_.reset();   // the scope side's shared references
    params_.reset();  // the gc model's
    gc::collect();
  }

 private:
  std::unique_ptr<LlamaModel<Params>> params_;
  std::unique_ptr<LlamaModel<Activation>> model_;
};

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_HYBRID_H_
