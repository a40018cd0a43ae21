// Copyright 2026 The custody Authors.
//
// workloads/serve/dispose.h — the server under dispose (TorchSharp technique
// 2): whoever holds a tensor last disposes it, on whatever thread that is —
// the worker disposes the request's input (made by the submitter) and its own
// temporaries, the responder the output (made by a worker).

#ifndef CUSTODY_WORKLOADS_SERVE_DISPOSE_H_
#define CUSTODY_WORKLOADS_SERVE_DISPOSE_H_

#include <utility>
#include <vector>

#include "policies/dispose/dispose.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {

template <class B>
struct DisposeIdiom : DefaultIdiom {
  using Tensor = BasicTensor<dispose::Policy, B>;
  using Model = mlp::MlpModel<Tensor>;

  static Tensor submit(const std::vector<float>& x, IntSpan shape) {
    return Tensor::from_vector(x, shape);  // the worker disposes it
  }

  static Tensor work(const Model& m, Tensor x) {
    using dispose::disposing;
    auto input = disposing(std::move(x));
    auto h = disposing(m.fc1.forward(input));
    auto a = disposing(h.relu());
    auto logits = disposing(m.fc2.forward(a));
    return logits.softmax(1);  // the responder disposes it
  }

  static std::vector<float> respond(Tensor out) {
    auto output = dispose::disposing(std::move(out));
    return output.template to_vector<float>();
  }
};

template <class B>
class DisposeServer final : public ServerCore<DisposeIdiom<B>> {
 public:
  using ServerCore<DisposeIdiom<B>>::ServerCore;
};

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_DISPOSE_H_
