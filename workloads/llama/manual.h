// Copyright 2026 The custody Authors.
//
// workloads/llama/manual.h — greedy decoding under manual: the step frees the
// references it owns.

#ifndef CUSTODY_WORKLOADS_LLAMA_MANUAL_H_
#define CUSTODY_WORKLOADS_LLAMA_MANUAL_H_

#include <memory>

#include "policies/manual/manual.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class B>
class ManualGenerator final : public Generator {
  using T = BasicTensor<manual::Policy, B>;

 public:
  explicit ManualGenerator(const LlamaWeights& w, const RunOptions& = {})
      : model_(std::make_unique<LlamaModel<T>>(w)) {}

  void step() override {
    const int64_t pos = next_position(model_->config());
    T logits = model_->forward(tokens_.back(), pos);
    T next = logits.argmax(-1);
    free(logits);
    tokens_.push_back(next.template item<int64_t>());
    free(next);
  }

  void finish() override { model_.reset(); }

 private:
  std::unique_ptr<LlamaModel<T>> model_;
};

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_MANUAL_H_
