// Copyright 2026 The custody Authors.
//
// workloads/llama/scope.h — greedy decoding under scope: one dispose scope per
// generated token.

#ifndef CUSTODY_WORKLOADS_LLAMA_SCOPE_H_
#define CUSTODY_WORKLOADS_LLAMA_SCOPE_H_

#include <memory>

#include "policies/scope/scope.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class B>
class ScopeGenerator final : public Generator {
  using T = BasicTensor<scope::Policy, B>;

 public:
  explicit ScopeGenerator(const LlamaWeights& w, const RunOptions& = {})
      : model_(std::make_unique<LlamaModel<T>>(w)) {}

  void step() override {
    auto token_scope = scope::new_dispose_scope();
    const int64_t pos = next_position(model_->config());
    T logits = model_->forward(tokens_.back(), pos);
    T next = logits.argmax(-1);
    tokens_.push_back(next.template item<int64_t>());
  }

  void finish() override { model_.reset(); }

 private:
  std::unique_ptr<LlamaModel<T>> model_;
};

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_SCOPE_H_
