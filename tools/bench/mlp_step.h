// Copyright 2026 The custody Authors.
//
// tools/bench/mlp_step.h — one training step of a small MLP, written once for
// every tensor type (any policy, any backend): the workload of the MLP
// benchmark (tools/bench/mlp_benchmark.cc) and of tools that compare policies.
//
//   x [batch, in] -> matmul w1 [in, hidden] + b1 -> relu -> matmul w2 [hidden, out] + b2
//     -> log_softmax -> cross-entropy against one-hot y [batch, out] (mean over the batch)
//
// custody has no autograd: the backward pass is written by hand (matmuls with
// transposed views `t()`, the relu mask as `gt(0)` multiplied in, bias
// gradients as `sum(0)`), then plain SGD updates the parameters in place
// (`w.sub_(g * lr)`). Every op result is a fresh handle; under
// Temporaries::kRelease the step gives each back with custody::release as soon
// as it is dead (the policy-generic early release), under kLeave it only drops
// the handles (the idiom of gc, whose collector gives them back, and of scope
// with one dispose scope per step).
//
//   const MlpData data = make_mlp_data();            // deterministic inputs and weights
//   Mlp<T> m = make_mlp<T>(data);                    // (under scope: inside a DisposeScope)
//   for (int i = 0; i < steps; ++i) loss = mlp_step(m, 0.1f);
//   MlpWeights w = weights_of(m);                    // host copies, for comparisons
//   release_mlp(m);
//
// The same step in plain libtorch is AtenMlp (tools/bench/mlp_step_aten.h);
// tools/bench/mlp_step_test.cc checks that both compute the same numbers.

#ifndef CUSTODY_TOOLS_BENCH_MLP_STEP_H_
#define CUSTODY_TOOLS_BENCH_MLP_STEP_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/tensor.h"

namespace custody::bench {

struct MlpShape {
  int64_t batch = 64;
  int64_t in = 784;
  int64_t hidden = 256;
  int64_t out = 10;
};

// Parameters, as host vectors (row-major): w1 [in, hidden], b1 [hidden],
// w2 [hidden, out], b2 [out].
struct MlpWeights {
  std::vector<float> w1, b1, w2, b2;
};

// One batch and the initial parameters.
struct MlpData {
  MlpShape shape;
  std::vector<float> x;  // [batch, in], standard normal
  std::vector<float> y;  // [batch, out], one-hot labels
  MlpWeights weights;    // w ~ N(0, 1/fan_in), b ~ U(-0.1, 0.1)
};

// Deterministic for a given shape and seed (std::mt19937 with hand-rolled
// distributions, identical across standard libraries).
inline MlpData make_mlp_data(const MlpShape& shape = {}, uint32_t seed = 1) {
  std::mt19937 gen(seed);
  const auto uniform = [&gen] {  // [0, 1)
    return static_cast<double>(gen() >> 8) / static_cast<double>(1u << 24);
  };
  const auto normal = [&] {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  const auto fill_normal = [&](int64_t n, double scale) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) e = static_cast<float>(normal() * scale);
    return v;
  };
  const auto fill_uniform = [&](int64_t n, double bound) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) e = static_cast<float>((2.0 * uniform() - 1.0) * bound);
    return v;
  };
  MlpData d;
  d.shape = shape;
  d.x = fill_normal(shape.batch * shape.in, 1.0);
  d.y.assign(static_cast<size_t>(shape.batch * shape.out), 0.f);
  for (int64_t i = 0; i < shape.batch; ++i) {
    d.y[static_cast<size_t>(i * shape.out) + gen() % static_cast<uint32_t>(shape.out)] = 1.f;
  }
  d.weights.w1 = fill_normal(shape.in * shape.hidden, 1.0 / std::sqrt(static_cast<double>(shape.in)));
  d.weights.b1 = fill_uniform(shape.hidden, 0.1);
  d.weights.w2 = fill_normal(shape.hidden * shape.out, 1.0 / std::sqrt(static_cast<double>(shape.hidden)));
  d.weights.b2 = fill_uniform(shape.out, 0.1);
  return d;
}

// The batch and the parameters as tensors of type T.
template <AnyTensor T>
struct Mlp {
  T x, y;            // inputs
  T w1, b1, w2, b2;  // parameters, updated in place by mlp_step
};

template <AnyTensor T>
Mlp<T> make_mlp(const MlpData& d) {
  const MlpShape& s = d.shape;
  return Mlp<T>{
      .x = T::from_vector(d.x, {s.batch, s.in}),
      .y = T::from_vector(d.y, {s.batch, s.out}),
      .w1 = T::from_vector(d.weights.w1, {s.in, s.hidden}),
      .b1 = T::from_vector(d.weights.b1, {s.hidden}),
      .w2 = T::from_vector(d.weights.w2, {s.hidden, s.out}),
      .b2 = T::from_vector(d.weights.b2, {s.out}),
  };
}

// Gives back the references make_mlp created.
template <AnyTensor T>
void release_mlp(Mlp<T>& m) {
  for (T* t : {&m.x, &m.y, &m.w1, &m.b1, &m.w2, &m.b2}) custody::release(*t);
}

template <AnyTensor T>
MlpWeights weights_of(const Mlp<T>& m) {
  return MlpWeights{m.w1.template to_vector<float>(), m.b1.template to_vector<float>(),
                    m.w2.template to_vector<float>(), m.b2.template to_vector<float>()};
}

enum class Temporaries {
  kRelease,  // custody::release every temporary as soon as it is dead
  kLeave,    // only drop the handles (gc's collector or an enclosing scope gives them back)
};

namespace internal {
// w -= lr * g, in place; `g` is a temporary of the step.
template <AnyTensor T>
void sgd_update(const T& w, T& g, double lr, Temporaries mode) {
  T scaled = g.mul(lr);
  T updated = w.sub_(scaled);
  if (mode == Temporaries::kRelease) {
    custody::release(updated);
    custody::release(scaled);
    custody::release(g);
  }
}
}  // namespace internal

// One forward + backward + SGD step on m's batch; returns the loss before the
// update. m's parameters are updated in place (their handles stay valid).
template <AnyTensor T>
float mlp_step(const Mlp<T>& m, float lr, Temporaries mode = Temporaries::kRelease) {
  const auto drop = [mode](auto&... ts) {
    if (mode == Temporaries::kRelease) (custody::release(ts), ...);
  };
  const double inv_batch = 1.0 / static_cast<double>(m.x.size(0));

  // Forward.
  T z1 = m.x.matmul(m.w1);
  T h = z1.add(m.b1);  // pre-activation, kept for the relu mask
  T a = h.relu();
  T z2 = a.matmul(m.w2);
  T logits = z2.add(m.b2);
  T logp = logits.log_softmax(1);
  T ylogp = m.y.mul(logp);
  T total = ylogp.sum();
  T loss = total.mul(-inv_batch);  // mean cross-entropy
  const float loss_value = loss.template item<float>();
  drop(z1, z2, logits, ylogp, total, loss);

  // Backward: d loss / d logits = (softmax(logits) - y) / batch.
  T p = logp.exp();
  T diff = p.sub(m.y);
  T dlogits = diff.mul(inv_batch);
  drop(logp, p, diff);
  T a_t = a.t();
  T dw2 = a_t.matmul(dlogits);
  T db2 = dlogits.sum(0);
  T w2_t = m.w2.t();
  T da = dlogits.matmul(w2_t);
  T mask = h.gt(0.0);  // relu'(h), bool; float * bool promotes to float
  T dh = da.mul(mask);
  drop(a, a_t, dlogits, w2_t, da, mask, h);
  T x_t = m.x.t();
  T dw1 = x_t.matmul(dh);
  T db1 = dh.sum(0);
  drop(x_t, dh);

  // SGD.
  internal::sgd_update(m.w1, dw1, lr, mode);
  internal::sgd_update(m.b1, db1, lr, mode);
  internal::sgd_update(m.w2, dw2, lr, mode);
  internal::sgd_update(m.b2, db2, lr, mode);
  return loss_value;
}

}  // namespace custody::bench

#endif  // CUSTODY_TOOLS_BENCH_MLP_STEP_H_
