// Copyright 2026 The custody Authors.
//
// workloads/small_model/small_model.h — a new user's first model, in
// workloads/generic.h's form: a 64-32-64 tanh autoencoder at batch 32,
// trained by SGD on the reconstruction's mean squared error with the
// gradient written by hand. Every op is small (the largest product is
// [32,64] x [64,32]), so the time is custody's path around each kernel
// rather than the kernels: the compare tool's view of the small_* benchmark
// family (backends/onednn/small_benchmark.cc).
//
//   ./bazelw run //tools/compare -- --workloads=small_model
//
// The step, per batch x [32, 64]:
//   h = tanh(x @ w1 + b1)              [32, 32]
//   y = h @ w2 + b2                    [32, 64]
//   loss = mean((y - x)^2)
//   dy = 2 (y - x) / (32 * 64)
//   dw2 = h^T @ dy, db2 = sum_0 dy     (h^T: a view)
//   dz = (dy @ w2^T) * (1 - h^2)       (w2^T: a view)
//   dw1 = x^T @ dz, db1 = sum_0 dz
//   w -= lr dw, b -= lr db             (in place)

#ifndef CUSTODY_WORKLOADS_SMALL_MODEL_SMALL_MODEL_H_
#define CUSTODY_WORKLOADS_SMALL_MODEL_SMALL_MODEL_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "workloads/generic.h"

namespace custody::workloads::small_model {

struct SmallModel {
  static constexpr const char* kName = "small_model";
  static constexpr const char* kUnit = "training step";
  static constexpr const char* kDescription =
      "autoencoder 64-32-64, tanh, batch 32, MSE, hand-written backward, in-place SGD";
  static constexpr int64_t kSteps = 400;
  static constexpr int64_t kQuickSteps = 40;
  static constexpr int64_t kIn = 64, kHidden = 32, kBatch = 32, kBatches = 8;
  static constexpr double kLr = 0.5;

  // Host data every contender shares: batches of x and the weights' start.
  struct Data {
    std::vector<std::vector<float>> x;
    std::vector<float> w1, w2;
  };
  static Data make_data() {
    std::mt19937 gen(11);
    std::normal_distribution<float> n(0, 1);
    Data d;
    d.w1.resize(kIn * kHidden);
    d.w2.resize(kHidden * kIn);
    for (float& v : d.w1) v = n(gen) / std::sqrt(static_cast<float>(kIn));
    for (float& v : d.w2) v = n(gen) / std::sqrt(static_cast<float>(kHidden));
    for (int64_t b = 0; b < kBatches; ++b) {
      std::vector<float> x(kBatch * kIn);
      for (float& v : x) v = 0.5f * n(gen);
      d.x.push_back(std::move(x));
    }
    return d;
  }

  template <class T>
  struct Model {
    Model(const Data& data, Params<T>& params)
        : d(data),
          w1(params.from_vector("w1", data.w1, std::vector<int64_t>{kIn, kHidden})),
          b1(params.zeros("b1", std::vector<int64_t>{kHidden})),
          w2(params.from_vector("w2", data.w2, std::vector<int64_t>{kHidden, kIn})),
          b2(params.zeros("b2", std::vector<int64_t>{kIn})) {}

    // One SGD step on the next batch; returns the batch's loss before the update.
    double step() {
      const size_t i = static_cast<size_t>(n++ % kBatches);
      T x = T::from_vector(d.x[i], std::vector<int64_t>{kBatch, kIn});
      T z1 = x.matmul(w1);
      T a1 = z1.add(b1);
      T h = a1.tanh();
      T z2 = h.matmul(w2);
      T y = z2.add(b2);
      T err = y.sub(x);
      T sq = err.mul(err);
      T loss = sq.mean();
      T dy = err.mul(2.0 / (kBatch * kIn));
      T ht = h.t();
      T dw2 = ht.matmul(dy);
      T db2 = dy.sum(0);
      T w2t = w2.t();
      T dh = dy.matmul(w2t);
      T h2 = h.mul(h);
      T dtanh = h2.neg().add(1.0);
      T dz = dh.mul(dtanh);
      T xt = x.t();
      T dw1 = xt.matmul(dz);
      T db1 = dz.sum(0);
      T s1 = dw1.mul(kLr), s2 = db1.mul(kLr), s3 = dw2.mul(kLr), s4 = db2.mul(kLr);
      [[maybe_unused]] T u1 = w1.sub_(s1);  // in place: another handle to w1
      [[maybe_unused]] T u2 = b1.sub_(s2);
      [[maybe_unused]] T u3 = w2.sub_(s3);
      [[maybe_unused]] T u4 = b2.sub_(s4);
      return loss.template item<float>();
    }

    const Data& d;
    T w1, b1, w2, b2;  // handles to the stored parameters
    int64_t n = 0;
  };
};

}  // namespace custody::workloads::small_model

#endif  // CUSTODY_WORKLOADS_SMALL_MODEL_SMALL_MODEL_H_
