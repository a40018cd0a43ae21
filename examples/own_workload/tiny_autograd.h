// Copyright 2026 The custody Authors.
//
// examples/own_workload/tiny_autograd.h — tiny.h's linear regression with its
// gradient taken by autograd instead of written by hand: the same data, the
// same steps, the same losses. The compare tool runs it under every policy on
// both host backends, and as plain libtorch on libtorch's own autograd (the
// peer, kAutograd):
//
//   ./bazelw run //examples/own_workload:tiny_autograd_compare -- --quick --all_backends
//
// As in tiny.h, step() releases nothing it makes: each policy's default idiom
// owns the step's tensors, and with them the graph that backward() walked
// (its saved tensors were already given back by backward itself).

#ifndef CUSTODY_EXAMPLES_OWN_WORKLOAD_TINY_AUTOGRAD_H_
#define CUSTODY_EXAMPLES_OWN_WORKLOAD_TINY_AUTOGRAD_H_

#include <cstdint>
#include <vector>

#include "examples/own_workload/tiny.h"
#include "workloads/generic.h"

namespace own {

struct TinyAutograd : Tiny {
  static constexpr const char* kName = "tiny_autograd";
  static constexpr const char* kDescription = "linear regression 256 -> 16, batch 64, MSE, SGD by autograd";
  static constexpr bool kAutograd = true;  // the libtorch peer runs on libtorch's autograd

  template <class T>
  struct Model {
    Model(const Data& data, custody::workloads::Params<T>& params)
        : d(data),
          p(params),
          w(params.from_vector("w", data.w0, std::vector<int64_t>{kIn, kOut})),
          b(params.zeros("b", std::vector<int64_t>{kOut})) {
      params.requires_grad_();
    }

    double step() {
      const size_t i = static_cast<size_t>(n++ % kBatches);
      T x = T::from_vector(d.x[i], std::vector<int64_t>{kBatch, kIn});
      T y = T::from_vector(d.y[i], std::vector<int64_t>{kBatch, kOut});
      T xw = x.matmul(w);
      T pred = xw.add(b);
      T err = pred.sub(y);
      T sq = err.mul(err);
      T loss = sq.mean();
      loss.backward();
      {
        custody::workloads::NoGrad<T> no_grad;  // the update is not part of any graph
        T dw = w.grad();
        T db = b.grad();
        T w_step = dw.mul(kLr);
        T b_step = db.mul(kLr);
        [[maybe_unused]] T w_updated = w.sub_(w_step);
        [[maybe_unused]] T b_updated = b.sub_(b_step);
      }
      p.zero_grad();  // set to none, as torch's default
      return loss.template item<float>();
    }

    const Data& d;
    custody::workloads::Params<T>& p;
    T w, b;
    int64_t n = 0;
  };
};

}  // namespace own

#endif  // CUSTODY_EXAMPLES_OWN_WORKLOAD_TINY_AUTOGRAD_H_
