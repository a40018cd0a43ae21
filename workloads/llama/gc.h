// Copyright 2026 The custody Authors.
//
// workloads/llama/gc.h — greedy decoding under gc: nothing is given back by hand;
// how often the collector runs is the RunOptions' CollectMode.

#ifndef CUSTODY_WORKLOADS_LLAMA_GC_H_
#define CUSTODY_WORKLOADS_LLAMA_GC_H_

#include <memory>
#include <optional>

#include "policies/gc/gc.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class B>
class GcGenerator final : public Generator {
  using T = BasicTensor<gc::Policy, B>;

 public:
  explicit GcGenerator(const LlamaWeights& w, const RunOptions& o = {})
      : mode_(o.collect_mode), model_(std::make_unique<LlamaModel<T>>(w)) {
    if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
  }

  void step() override {
    const int64_t pos = next_position(model_->config());
    T logits = model_->forward(tokens_.back(), pos);
    T next = logits.argmax(-1);
    tokens_.push_back(next.template item<int64_t>());
    if (mode_ == CollectMode::kCollectEveryStep) gc::collect();
  }

  void finish() override {
    model_.reset();
    trigger_.reset();
    gc::collect();  // what is left of the steps' garbage
  }

 private:
  CollectMode mode_;
  std::optional<gc::ScopedPressureTrigger> trigger_;
  std::unique_ptr<LlamaModel<T>> model_;
};

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_GC_H_
