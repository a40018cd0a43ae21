// Copyright 2026 The custody Authors.
//
// workloads/serve/collecting.h — the server under a policy that collects
// (TorchSharp technique 1): gc, and any policy whose PolicyIdiom::kCollects.
// No tensor is given back by hand. Every thread that holds handles opens the
// policy's ThreadRegistration, the queues keep their handles in its
// HandleAllocator's memory (gc: memory the collector scans), and collections
// (the pressure trigger's, on whichever thread allocates past it, or one after
// each wave: RunOptions' CollectMode) run on the server's threads (gc's stop
// the workers while they run).
//
// Written over PolicyIdiom<P> (CollectingServer<P, B>): the runner of a
// collecting policy with no header of its own here (runners.h).

#ifndef CUSTODY_WORKLOADS_SERVE_COLLECTING_H_
#define CUSTODY_WORKLOADS_SERVE_COLLECTING_H_

#include <optional>
#include <vector>

#include "core/policy_idiom.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {

template <class P, class B>
struct CollectingIdiom {
  using Tensor = BasicTensor<P, B>;
  using Model = mlp::MlpModel<Tensor>;
  using Policy = PolicyIdiom<P>;
  static_assert(Policy::kCollects, "CollectingServer runs a policy that collects");
  using Thread = typename Policy::ThreadRegistration;  // before the thread's first handle
  template <class Item>
  using Allocator = typename Policy::template HandleAllocator<Item>;  // queued handles stay reachable

  struct Session {
    explicit Session(const RunOptions& o) : mode(o.collect_mode) {
      if (mode == CollectMode::kPressureTrigger) trigger.emplace(o.trigger_bytes);
    }
    void after_step() {
      if (mode == CollectMode::kCollectEveryStep) Policy::collect();
    }
    void after_finish() {
      trigger.reset();
      Policy::collect();  // what is left of the requests' garbage
      Policy::collect();
    }
    CollectMode mode;
    std::optional<typename Policy::PressureTrigger> trigger;
  };

  static Tensor submit(const std::vector<float>& x, IntSpan shape) { return Tensor::from_vector(x, shape); }

  static Tensor work(const Model& m, Tensor x) {
    return m.fc2.forward(m.fc1.forward(x).relu()).softmax(1);
  }

  static std::vector<float> respond(Tensor out) { return out.template to_vector<float>(); }
};

template <class P, class B>
class CollectingServer final : public ServerCore<CollectingIdiom<P, B>> {
 public:
  using ServerCore<CollectingIdiom<P, B>>::ServerCore;
};

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_COLLECTING_H_
