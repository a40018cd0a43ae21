// Copyright 2026 The custody Authors.
//
// workloads/serve/manual.h — the server under manual (PyTorch TH's golden
// rule): each +1 reference is freed once by whoever holds it last — the
// worker frees the request's input and its temporaries, the responder the
// output, each on its own thread.

#ifndef CUSTODY_WORKLOADS_SERVE_MANUAL_H_
#define CUSTODY_WORKLOADS_SERVE_MANUAL_H_

#include <vector>

#include "policies/manual/manual.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {

template <class B>
struct ManualIdiom : DefaultIdiom {
  using Tensor = BasicTensor<manual::Policy, B>;
  using Model = mlp::MlpModel<Tensor>;

  static Tensor submit(const std::vector<float>& x, IntSpan shape) {
    return Tensor::from_vector(x, shape);  // +1, handed to the worker, which frees it
  }

  static Tensor work(const Model& m, Tensor x) {
    Tensor h = m.fc1.forward(x);
    free(x);
    Tensor a = h.relu();
    free(h);
    Tensor logits = m.fc2.forward(a);
    free(a);
    Tensor out = logits.softmax(1);
    free(logits);
    return out;  // +1, handed to the responder, which frees it
  }

  static std::vector<float> respond(Tensor out) {
    std::vector<float> v = out.template to_vector<float>();
    free(out);
    return v;
  }
};

template <class B>
class ManualServer final : public ServerCore<ManualIdiom<B>> {
 public:
  using ServerCore<ManualIdiom<B>>::ServerCore;
};

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_MANUAL_H_
