// Copyright 2026 The custody Authors.
//
// workloads/serve/gc.h — the server under gc (TorchSharp technique 1): no
// tensor is given back by hand. Every thread that holds handles registers
// with the collector, the queues keep their handles in memory the collector
// scans, and collections (the pressure trigger's, on whichever thread
// allocates past it, or one after each wave: RunOptions' CollectMode) stop the
// workers while they run.

#ifndef CUSTODY_WORKLOADS_SERVE_GC_H_
#define CUSTODY_WORKLOADS_SERVE_GC_H_

#include <optional>
#include <vector>

#include "policies/gc/gc.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {

template <class B>
struct GcIdiom {
  using Tensor = BasicTensor<gc::Policy, B>;
  using Model = mlp::MlpModel<Tensor>;
  using Thread = gc::ThreadRegistration;  // before the thread's first handle
  template <class Item>
  using Allocator = gc::TracedAllocator<Item>;  // queued handles stay visible to the collector

  struct Session {
    explicit Session(const RunOptions& o) : mode(o.collect_mode) {
      if (mode == CollectMode::kPressureTrigger) trigger.emplace(o.trigger_bytes);
    }
    void after_step() {
      if (mode == CollectMode::kCollectEveryStep) gc::collect();
    }
    void after_finish() {
      trigger.reset();
      gc::collect();  // what is left of the requests' garbage
      gc::collect();
    }
    CollectMode mode;
    std::optional<gc::ScopedPressureTrigger> trigger;
  };

  static Tensor submit(const std::vector<float>& x, IntSpan shape) { return Tensor::from_vector(x, shape); }

  static Tensor work(const Model& m, Tensor x) {
    return m.fc2.forward(m.fc1.forward(x).relu()).softmax(1);
  }

  static std::vector<float> respond(Tensor out) { return out.template to_vector<float>(); }
};

template <class B>
class GcServer final : public ServerCore<GcIdiom<B>> {
 public:
  using ServerCore<GcIdiom<B>>::ServerCore;
};

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_GC_H_
