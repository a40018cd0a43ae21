// Copyright 2026 The custody Authors.
//
// workloads/llama/tensor_ptr.h — greedy decoding under tensor_ptr: RAII, the
// logits and the argmax go when their handles do.
//
// Written for any policy whose handles own their references (HandleGenerator<P, B>):
// it is also the idiom of a policy that does not collect and has no header of
// its own here (runners.h; collecting.h is the one of a policy that collects).

#ifndef CUSTODY_WORKLOADS_LLAMA_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_LLAMA_TENSOR_PTR_H_

#include <memory>

#include "policies/tensor_ptr/tensor_ptr.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class P, class B>
class HandleGenerator final : public Generator {
  using T = BasicTensor<P, B>;

 public:
  explicit HandleGenerator(const LlamaWeights& w, const RunOptions& = {})
      : model_(std::make_unique<LlamaModel<T>>(w)) {}

  void step() override {
    const int64_t pos = next_position(model_->config());
    T logits = model_->forward(tokens_.back(), pos);
    T next = logits.argmax(-1);
    tokens_.push_back(next.template item<int64_t>());
  }

  void finish() override { model_.reset(); }

 private:
  std::unique_ptr<LlamaModel<T>> model_;
};

template <class B>
using TensorPtrGenerator = HandleGenerator<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_TENSOR_PTR_H_
