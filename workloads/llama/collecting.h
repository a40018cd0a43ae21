// Copyright 2026 The custody Authors.
//
// workloads/llama/collecting.h — greedy decoding under a policy that collects
// (TorchSharp technique 1): gc, and any policy whose PolicyIdiom::kCollects.
// Nothing is given back by hand; the collector gives it back. How often it
// collects is the RunOptions' CollectMode.
//
// Written over PolicyIdiom<P> (CollectingGenerator<P, B>): the runner of a
// collecting policy with no header of its own here (runners.h).

#ifndef CUSTODY_WORKLOADS_LLAMA_COLLECTING_H_
#define CUSTODY_WORKLOADS_LLAMA_COLLECTING_H_

#include <memory>
#include <optional>

#include "core/policy_idiom.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {

template <class P, class B>
class CollectingGenerator final : public Generator {
  using T = BasicTensor<P, B>;
  using Idiom = PolicyIdiom<P>;
  static_assert(Idiom::kCollects, "CollectingGenerator runs a policy that collects");

 public:
  explicit CollectingGenerator(const LlamaWeights& w, const RunOptions& o = {})
      : mode_(o.collect_mode), model_(std::make_unique<LlamaModel<T>>(w)) {
    if (mode_ == CollectMode::kPressureTrigger) trigger_.emplace(o.trigger_bytes);
  }

  void step() override {
    const int64_t pos = next_position(model_->config());
    T logits = model_->forward(tokens_.back(), pos);
    T next = logits.argmax(-1);
    tokens_.push_back(next.template item<int64_t>());
    if (mode_ == CollectMode::kCollectEveryStep) Idiom::collect();
  }

  void finish() override {
    model_.reset();
    trigger_.reset();
    Idiom::collect();  // what is left of the steps' garbage
  }

 private:
  CollectMode mode_;
  std::optional<typename Idiom::PressureTrigger> trigger_;
  std::unique_ptr<LlamaModel<T>> model_;
};

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_COLLECTING_H_
