// Copyright 2026 The custody Authors.

#include "workloads/ops/ops.h"

#include <cmath>
#include <random>

namespace custody::workloads::ops {

OpsData make_data(const OpsConfig& c) {
  std::mt19937 gen(c.seed);
  const auto uniform = [&gen](int64_t n, double bound) {  // identical across standard libraries
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) {
      e = static_cast<float>((2.0 * static_cast<double>(gen() >> 8) / static_cast<double>(1u << 24) - 1.0) * bound);
    }
    return v;
  };
  return OpsData{c, uniform(c.rows * c.cols, 1.0), uniform(c.cols * c.cols, 1.0 / std::sqrt(static_cast<double>(c.cols)))};
}

}  // namespace custody::workloads::ops
