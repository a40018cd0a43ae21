// Copyright 2026 The custody Authors.
//
// testing/bench/libtorch_peers.h — the libtorch side of every benchmark case:
// the same work written as plain at:: code, as a libtorch user would, each a
// Google Benchmark body. They live in one translation unit (libtorch_peers.cc)
// so that only it pays for compiling <ATen/ATen.h>; the *_benchmark.cc files
// register them next to their custody contenders with bench_util.h's add_peer:
//
//   add_peer("tiny_add", "libtorch", &libtorch::add, int64_t{1});
//
// Inputs are float32, contiguous, normal values (at::manual_seed(1)) unless
// said otherwise; every body calls warm_up() before its timing loop.

#ifndef CUSTODY_TESTING_BENCH_LIBTORCH_PEERS_H_
#define CUSTODY_TESTING_BENCH_LIBTORCH_PEERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace custody::bench::libtorch {

// Loads libtorch (a real call into it, so the library is mapped and its
// static data exists, as in a program that uses it) and runs one small op of
// each kind once, so its dispatcher and thread pool are initialized. Idempotent.
void warm_up();
// at::set_num_threads(n): libtorch's intra-op count, applied by every thread's lazy init.
void set_num_threads(int n);

// ---- handles (1-element tensors) ----
// `at::Tensor c = a;` destroyed at once: one refcount increment and decrement.
void handle_copy(benchmark::State& state);
// A second reference (an at::Tensor copy), given back by reset().
void alias_copy_release(benchmark::State& state);
// `a.alias()` (a new TensorImpl on the same storage), given back by reset().
void alias_op_release(benchmark::State& state);
// `at::empty({numel})`, dropped.
void empty_release(benchmark::State& state, int64_t numel);
// `k` at::empty({1}) kept in a (reserved) std::vector, then all dropped.
void create_keep(benchmark::State& state, int64_t k);

// ---- elementwise (1-D of `numel`) ----
void add(benchmark::State& state, int64_t numel);               // c = a + b, fresh c
void add_inference_mode(benchmark::State& state, int64_t numel);  // the same under c10::InferenceMode
void add_out(benchmark::State& state, int64_t numel);
// ---- autograd ----
// y = (x * w).sum() with x requiring grad, then y.backward() (x.grad accumulates in place).
void mul_backward(benchmark::State& state, int64_t numel);           // at::add_out(c, a, b), c preallocated
void add_in_place(benchmark::State& state, int64_t numel);      // a.add_(b)

// ---- linear algebra and reductions ----
// at::matmul of [batch, n, n] x [batch, n, n] (batch 0: [n, n] x [n, n]).
void matmul(benchmark::State& state, int64_t batch, int64_t n);
// at::matmul of tensors of sizes `a` and `b` (any ranks; batch dims broadcast).
void matmul_shapes(benchmark::State& state, std::vector<int64_t> a, std::vector<int64_t> b);
void softmax(benchmark::State& state, int64_t rows, int64_t cols, int64_t dim);
// at::relu of a [rows, cols] tensor, fresh result.
void relu(benchmark::State& state, int64_t rows, int64_t cols);
// sum over everything (dim empty) or over `dim` of a [rows, cols] tensor.
void sum(benchmark::State& state, int64_t rows, int64_t cols, std::optional<int64_t> dim);

// The small_* family (backends/onednn/small_benchmark.cc): `op` is "relu", "tanh", "sigmoid" or
// "exp" (unary), "add" or "mul" (binary) on `numel` fresh elements; matmul_views multiplies operands
// stored as `a`/`b` and, where `ta`/`tb`, used through a view of their last two dims swapped (the
// transposed operands of a linear layer's backward).
void unary(benchmark::State& state, std::string op, int64_t numel);
void binary(benchmark::State& state, std::string op, int64_t numel);
void matmul_views(benchmark::State& state, std::vector<int64_t> a, bool ta, std::vector<int64_t> b,
                  bool tb);

}  // namespace custody::bench::libtorch

#endif  // CUSTODY_TESTING_BENCH_LIBTORCH_PEERS_H_
