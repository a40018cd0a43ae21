// Copyright 2026 The custody Authors.
//
// testing/bench/libtorch_peers.cc — the at:: bodies declared in libtorch_peers.h
// (the one benchmark translation unit that includes <ATen/ATen.h>, with
// mlp_step_aten.cc).

#include "testing/bench/libtorch_peers.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <string>
#include <vector>

namespace custody::bench::libtorch {
namespace {

at::Tensor randn(at::IntArrayRef sizes, uint64_t seed = 1) {
  at::manual_seed(seed);
  return at::randn(sizes, at::kFloat);
}

}  // namespace

void set_num_threads(int n) { at::set_num_threads(n); }

void warm_up() {
  static const bool done = [] {
    at::Tensor a = at::ones({64, 64});
    at::Tensor b = at::matmul(a, a).softmax(1).sum() + 1;
    benchmark::DoNotOptimize(b);
    return true;
  }();
  benchmark::DoNotOptimize(done);
}

void handle_copy(benchmark::State& state) {
  warm_up();
  at::Tensor a = at::ones({1});
  for (auto _ : state) {
    at::Tensor c = a;
    benchmark::DoNotOptimize(c);
  }
}

void alias_copy_release(benchmark::State& state) {
  warm_up();
  at::Tensor a = at::ones({1});
  for (auto _ : state) {
    at::Tensor c = a;
    benchmark::DoNotOptimize(c);
    c.reset();
  }
}

void alias_op_release(benchmark::State& state) {
  warm_up();
  at::Tensor a = at::ones({1});
  for (auto _ : state) {
    at::Tensor c = a.alias();
    benchmark::DoNotOptimize(c);
    c.reset();
  }
}

void empty_release(benchmark::State& state, int64_t numel) {
  warm_up();
  for (auto _ : state) {
    at::Tensor c = at::empty({numel});
    benchmark::DoNotOptimize(c);
  }
}

void create_keep(benchmark::State& state, int64_t k) {
  warm_up();
  std::vector<at::Tensor> kept;
  kept.reserve(static_cast<size_t>(k));
  for (auto _ : state) {
    for (int64_t i = 0; i < k; ++i) kept.push_back(at::empty({1}));
    kept.clear();
  }
}

void add(benchmark::State& state, int64_t numel) {
  warm_up();
  at::Tensor a = randn({numel}, 1), b = randn({numel}, 2);
  for (auto _ : state) {
    at::Tensor c = a + b;
    benchmark::DoNotOptimize(c);
  }
}

void add_inference_mode(benchmark::State& state, int64_t numel) {
  warm_up();
  c10::InferenceMode guard;
  at::Tensor a = randn({numel}, 1), b = randn({numel}, 2);
  for (auto _ : state) {
    at::Tensor c = a + b;
    benchmark::DoNotOptimize(c);
  }
}

void mul_backward(benchmark::State& state, int64_t numel) {
  warm_up();
  at::Tensor x = randn({numel}, 1).requires_grad_();
  at::Tensor w = randn({numel}, 2);
  for (auto _ : state) {
    at::Tensor y = (x * w).sum();
    y.backward();
    benchmark::DoNotOptimize(y);
  }
}

void add_out(benchmark::State& state, int64_t numel) {
  warm_up();
  at::Tensor a = randn({numel}, 1), b = randn({numel}, 2);
  at::Tensor c = at::empty({numel});
  for (auto _ : state) {
    at::add_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void add_in_place(benchmark::State& state, int64_t numel) {
  warm_up();
  at::Tensor a = randn({numel}, 1), b = randn({numel}, 2);
  for (auto _ : state) {
    a.add_(b);
    benchmark::DoNotOptimize(a.data_ptr());
  }
}

void matmul(benchmark::State& state, int64_t batch, int64_t n) {
  warm_up();
  const std::vector<int64_t> sizes =
      batch > 0 ? std::vector<int64_t>{batch, n, n} : std::vector<int64_t>{n, n};
  at::Tensor a = randn(sizes, 1), b = randn(sizes, 2);
  for (auto _ : state) {
    at::Tensor c = at::matmul(a, b);
    benchmark::DoNotOptimize(c);
  }
}

void matmul_shapes(benchmark::State& state, std::vector<int64_t> a_sizes, std::vector<int64_t> b_sizes) {
  warm_up();
  at::Tensor a = randn(a_sizes, 1), b = randn(b_sizes, 2);
  for (auto _ : state) {
    at::Tensor c = at::matmul(a, b);
    benchmark::DoNotOptimize(c);
  }
}

void softmax(benchmark::State& state, int64_t rows, int64_t cols, int64_t dim) {
  warm_up();
  at::Tensor x = randn({rows, cols});
  for (auto _ : state) {
    at::Tensor y = at::softmax(x, dim);
    benchmark::DoNotOptimize(y);
  }
}

void relu(benchmark::State& state, int64_t rows, int64_t cols) {
  warm_up();
  at::Tensor x = randn({rows, cols});
  for (auto _ : state) {
    at::Tensor y = at::relu(x);
    benchmark::DoNotOptimize(y);
  }
}

void sum(benchmark::State& state, int64_t rows, int64_t cols, std::optional<int64_t> dim) {
  warm_up();
  at::Tensor x = randn({rows, cols});
  for (auto _ : state) {
    at::Tensor y = dim ? at::sum(x, *dim) : at::sum(x);
    benchmark::DoNotOptimize(y);
  }
}

void unary(benchmark::State& state, std::string op, int64_t numel) {
  warm_up();
  at::Tensor x = randn({numel});
  const auto f = [&op]() -> at::Tensor (*)(const at::Tensor&) {
    if (op == "relu") return &at::relu;
    if (op == "tanh") return &at::tanh;
    if (op == "sigmoid") return &at::sigmoid;
    if (op == "exp") return &at::exp;
    return nullptr;
  }();
  if (f == nullptr) {
    state.SkipWithError(("libtorch::unary: unknown op " + op).c_str());
    return;
  }
  for (auto _ : state) {
    at::Tensor y = f(x);
    benchmark::DoNotOptimize(y);
  }
}

void binary(benchmark::State& state, std::string op, int64_t numel) {
  warm_up();
  at::Tensor a = randn({numel}, 1), b = randn({numel}, 2);
  if (op != "add" && op != "mul") {
    state.SkipWithError(("libtorch::binary: unknown op " + op).c_str());
    return;
  }
  const bool add = op == "add";
  for (auto _ : state) {
    at::Tensor c = add ? at::add(a, b) : at::mul(a, b);
    benchmark::DoNotOptimize(c);
  }
}

void matmul_views(benchmark::State& state, std::vector<int64_t> a_sizes, bool ta, std::vector<int64_t> b_sizes,
                  bool tb) {
  warm_up();
  at::Tensor a = randn(a_sizes, 1), b = randn(b_sizes, 2);
  if (ta) a = a.transpose(-2, -1);
  if (tb) b = b.transpose(-2, -1);
  for (auto _ : state) {
    at::Tensor c = at::matmul(a, b);
    benchmark::DoNotOptimize(c);
  }
}

}  // namespace custody::bench::libtorch
