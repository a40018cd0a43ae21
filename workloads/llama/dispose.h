// Copyright 2026 The custody Authors.
//
// workloads/llama/dispose.h — greedy decoding under dispose: the step's tensors are
// held by `disposing`, disposed at the end of the step.

#ifndef CUSTODY_WORKLOADS_LLAMA_DISPOSE_H_
#define CUSTODY_WORKLOADS_LLAMA_DISPOSE_H_

#include <memory>

#include "policies/dispose/dispose.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class B>
class DisposeGenerator final : public Generator {
  using T = BasicTensor<dispose::Policy, B>;

 public:
  explicit DisposeGenerator(const LlamaWeights& w, const RunOptions& = {})
      : model_(std::make_unique<LlamaModel<T>>(w)) {}

  void step() override {
    const int64_t pos = next_position(model_->config());
    auto logits = dispose::disposing(model_->forward(tokens_.back(), pos));
    auto next = dispose::disposing(logits.argmax(-1));
    tokens_.push_back(next.template item<int64_t>());
  }

  void finish() override { model_.reset(); }

 private:
  std::unique_ptr<LlamaModel<T>> model_;
};

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_DISPOSE_H_
