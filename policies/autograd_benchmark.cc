// Copyright 2026 The custody Authors.
//
// policies/autograd_benchmark.cc — what recording a graph and running
// backward through it costs under each ownership policy, on every host
// backend, against libtorch's autograd doing the same:
//
//   mul_backward/n=<n>/<contender>
//                              y = (x * w).sum() with x requiring grad, then
//                              y.backward() (x's gradient accumulates in
//                              place), and y given back; x and w of n = 1
//                              element (the cost of the tape itself) or 4096
//
// Contenders: `<policy>:<backend>` for every policy and host backend, and the
// peer `libtorch`.

#include <cstdint>
#include <string>

#include "benchmark/benchmark.h"
#include "custody/lists/all_host_backends.h"
#include "custody/lists/all_policies.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllHostBackends;
using custody::lists::AllPolicies;

template <AnyTensor T>
void mul_backward(benchmark::State& state, int64_t n) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T x = T::randn({n});
  x.requires_grad_();
  T w = T::randn({n});
  for (auto _ : state) {
    T p = x.mul(w);
    T y = p.sum();
    y.backward();
    custody::release(y);
    custody::release(p);
  }
  custody::release(x);
  custody::release(w);
}

[[maybe_unused]] const bool registered = [] {
  for (int64_t n : {int64_t{1}, int64_t{4096}}) {
    const std::string name = "mul_backward/n=" + std::to_string(n);
    add_peer(name, "libtorch", &libtorch::mul_backward, n);
    for_each_tensor<AllPolicies, AllHostBackends>([&]<class T>() {
      add(name, contender<T>(), [n](benchmark::State& s) { mul_backward<T>(s, n); });
    });
  }
  return true;
}();

}  // namespace
}  // namespace custody::bench
