// Copyright 2026 The custody Authors.

#include "workloads/mlp/mlp.h"

#include <cmath>
#include <random>

namespace custody::workloads::mlp {

MlpData make_data(const MlpConfig& c) {
  std::mt19937 gen(c.seed);
  const auto uniform = [&gen] {  // [0, 1), identical across standard libraries
    return static_cast<double>(gen() >> 8) / static_cast<double>(1u << 24);
  };
  const auto normal = [&] {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  MlpData d;
  d.config = c;
  std::vector<double> centers(static_cast<size_t>(c.classes * c.features));
  for (double& v : centers) v = normal() * c.center_scale;
  const auto sample = [&](int64_t n, std::vector<float>& x, std::vector<float>& y) {
    x.assign(static_cast<size_t>(n * c.features), 0.f);
    y.assign(static_cast<size_t>(n * c.classes), 0.f);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = static_cast<int64_t>(gen() % static_cast<uint32_t>(c.classes));
      y[static_cast<size_t>(i * c.classes + k)] = 1.f;
      for (int64_t j = 0; j < c.features; ++j) {
        x[static_cast<size_t>(i * c.features + j)] =
            static_cast<float>(centers[static_cast<size_t>(k * c.features + j)] + normal());
      }
    }
  };
  d.train_x.resize(static_cast<size_t>(c.train_batches));
  d.train_y.resize(static_cast<size_t>(c.train_batches));
  for (int64_t b = 0; b < c.train_batches; ++b) {
    sample(c.batch, d.train_x[static_cast<size_t>(b)], d.train_y[static_cast<size_t>(b)]);
  }
  sample(c.eval_size, d.eval_x, d.eval_y);
  const auto init = [&](int64_t n, int64_t fan_in) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) e = static_cast<float>((2.0 * uniform() - 1.0) * bound);
    return v;
  };
  d.w1 = init(c.hidden * c.features, c.features);
  d.b1 = init(c.hidden, c.features);
  d.w2 = init(c.classes * c.hidden, c.hidden);
  d.b2 = init(c.classes, c.hidden);
  return d;
}

}  // namespace custody::workloads::mlp
