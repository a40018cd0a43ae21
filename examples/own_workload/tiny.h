// Copyright 2026 The custody Authors.
//
// examples/own_workload/tiny.h — your own workload, written once for every
// policy (workloads/generic.h): linear regression y = x @ w + b trained by
// SGD on mean squared error, with the gradient written by hand. The compare
// tool runs it under every policy on both host backends, and as plain
// libtorch (T = LibtorchTensor) for the peer:
//
//   ./bazelw run //examples/own_workload:tiny_compare -- --quick --all_backends
//
// step() names each tensor and releases none of them: each policy's default
// idiom owns them (a dispose scope per step under scope, dispose/free at the
// step's end under dispose and manual, collections under gc, the handles under
// tensor_ptr). dispose.h replaces the step for dispose with one that disposes
// each temporary after its last use, to show what that saves.

#ifndef CUSTODY_EXAMPLES_OWN_WORKLOAD_TINY_H_
#define CUSTODY_EXAMPLES_OWN_WORKLOAD_TINY_H_

#include <cstdint>
#include <random>
#include <vector>

#include "workloads/generic.h"

namespace own {

struct Tiny {
  static constexpr const char* kName = "tiny";
  static constexpr const char* kUnit = "training step";
  static constexpr const char* kDescription = "linear regression 256 -> 16, batch 64, MSE, hand-written SGD";
  static constexpr int64_t kSteps = 200;
  static constexpr int64_t kQuickSteps = 20;
  static constexpr int64_t kIn = 256, kOut = 16, kBatch = 64, kBatches = 8;
  static constexpr double kLr = 2.0;

  // Host data every contender shares: batches of x, y = x @ w_true + noise, and w's start.
  struct Data {
    std::vector<std::vector<float>> x, y;
    std::vector<float> w0;
  };
  static Data make_data() {
    std::mt19937 gen(7);
    std::normal_distribution<float> n(0, 1);
    Data d;
    std::vector<float> w_true(kIn * kOut);
    for (float& v : w_true) v = n(gen) / 16;
    d.w0.assign(kIn * kOut, 0.0f);
    for (int64_t b = 0; b < kBatches; ++b) {
      std::vector<float> x(kBatch * kIn), y(kBatch * kOut, 0.0f);
      for (float& v : x) v = n(gen);
      for (int64_t i = 0; i < kBatch; ++i) {
        for (int64_t j = 0; j < kOut; ++j) {
          float s = 0.01f * n(gen);
          for (int64_t k = 0; k < kIn; ++k) s += x[i * kIn + k] * w_true[k * kOut + j];
          y[i * kOut + j] = s;
        }
      }
      d.x.push_back(std::move(x));
      d.y.push_back(std::move(y));
    }
    return d;
  }

  // T: a custody tensor under any policy, or LibtorchTensor (the plain-libtorch peer).
  template <class T>
  struct Model {
    // Set-up: the parameters, in `params` (a VarStore, which gives them back).
    Model(const Data& data, custody::workloads::Params<T>& params)
        : d(data),
          w(params.from_vector("w", data.w0, std::vector<int64_t>{kIn, kOut})),
          b(params.zeros("b", std::vector<int64_t>{kOut})) {}

    // One SGD step on the next batch; returns the batch's loss before the update.
    double step() {
      const size_t i = static_cast<size_t>(n++ % kBatches);
      T x = T::from_vector(d.x[i], std::vector<int64_t>{kBatch, kIn});
      T y = T::from_vector(d.y[i], std::vector<int64_t>{kBatch, kOut});
      T xw = x.matmul(w);
      T pred = xw.add(b);
      T err = pred.sub(y);
      T sq = err.mul(err);
      T loss = sq.mean();
      // d loss / d pred = 2 err / (batch * out); dw = x.t() @ that, db = its column sums.
      T dpred = err.mul(2.0 / (kBatch * kOut));
      T xt = x.t();
      T dw = xt.matmul(dpred);
      T db = dpred.sum(0);
      T w_step = dw.mul(kLr);
      T b_step = db.mul(kLr);
      [[maybe_unused]] T w_updated = w.sub_(w_step);  // in place: w_updated is another handle to w
      [[maybe_unused]] T b_updated = b.sub_(b_step);
      return loss.template item<float>();
    }

    const Data& d;
    T w, b;  // handles to the stored parameters
    int64_t n = 0;
  };
};

}  // namespace own

#endif  // CUSTODY_EXAMPLES_OWN_WORKLOAD_TINY_H_
