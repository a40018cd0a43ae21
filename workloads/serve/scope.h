// Copyright 2026 The custody Authors.
//
// workloads/serve/scope.h — the server under scope (TorchSharp technique 3):
// each thread works inside its own dispose scopes, and a tensor crosses a
// queue detached: `detach_from_dispose_scope()` on the thread that made it,
// `attach` into a scope of the thread that takes it (TorchSharp's Detach /
// Attach), so it dies with that scope.

#ifndef CUSTODY_WORKLOADS_SERVE_SCOPE_H_
#define CUSTODY_WORKLOADS_SERVE_SCOPE_H_

#include <vector>

#include "policies/scope/scope.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {

template <class B>
struct ScopeIdiom : DefaultIdiom {
  using Tensor = BasicTensor<scope::Policy, B>;
  using Model = mlp::MlpModel<Tensor>;

  static Tensor submit(const std::vector<float>& x, IntSpan shape) {
    auto submit_scope = scope::new_dispose_scope();
    return Tensor::from_vector(x, shape).detach_from_dispose_scope();  // leaves this thread: to a worker
  }

  static Tensor work(const Model& m, Tensor x) {
    auto request_scope = scope::new_dispose_scope();
    request_scope.attach(x);  // the input dies with this request's scope, here
    Tensor h = m.fc1.forward(x);
    Tensor logits = m.fc2.forward(h.relu());
    return logits.softmax(1).detach_from_dispose_scope();  // outlives the scope: to the responder
  }

  static std::vector<float> respond(Tensor out) {
    auto answer_scope = scope::new_dispose_scope();
    return answer_scope.attach(out).template to_vector<float>();  // disposed with answer_scope
  }
};

template <class B>
class ScopeServer final : public ServerCore<ScopeIdiom<B>> {
 public:
  using ServerCore<ScopeIdiom<B>>::ServerCore;
};

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_SCOPE_H_
