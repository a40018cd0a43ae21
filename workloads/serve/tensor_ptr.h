// Copyright 2026 The custody Authors.
//
// workloads/serve/tensor_ptr.h — the server under tensor_ptr (ExecuTorch's
// TensorPtr, a shared_ptr): nothing to give back by hand; the last handle
// goes wherever it goes — the input's on the worker, the output's on the
// responder — and the atomic count frees the tensor there.
//
// Written for any policy whose handles own their references (HandleServer<P, B>):
// it is also the idiom of a policy that does not collect and has no header of
// its own here (runners.h; collecting.h is the one of a policy that collects).

#ifndef CUSTODY_WORKLOADS_SERVE_TENSOR_PTR_H_
#define CUSTODY_WORKLOADS_SERVE_TENSOR_PTR_H_

#include <vector>

#include "policies/tensor_ptr/tensor_ptr.h"
#include "workloads/serve/serve.h"

namespace custody::workloads::serve {

template <class P, class B>
struct HandleIdiom : DefaultIdiom {
  using Tensor = BasicTensor<P, B>;
  using Model = mlp::MlpModel<Tensor>;

  static Tensor submit(const std::vector<float>& x, IntSpan shape) { return Tensor::from_vector(x, shape); }

  static Tensor work(const Model& m, Tensor x) {
    return m.fc2.forward(m.fc1.forward(x).relu()).softmax(1);  // x and the temporaries go here
  }

  static std::vector<float> respond(Tensor out) { return out.template to_vector<float>(); }  // out goes here
};

template <class P, class B>
class HandleServer final : public ServerCore<HandleIdiom<P, B>> {
 public:
  using ServerCore<HandleIdiom<P, B>>::ServerCore;
};

template <class B>
using TensorPtrServer = HandleServer<tensor_ptr::Policy, B>;

}  // namespace custody::workloads::serve

#endif  // CUSTODY_WORKLOADS_SERVE_TENSOR_PTR_H_
