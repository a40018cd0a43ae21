// Copyright 2026 The custody Authors.
//
// backends/onednn/small_benchmark.cc — the small_* family: the work of a new
// user's small model (a 64-32-64 autoencoder at batch 32, a small MLP), where
// custody's own path around a kernel is a large part of the time. Every case
// against libtorch and against oneDNN called directly, in one binary:
//
//   small_matmul/<a>x<b>/<c>     2-D square (n = 16 ... 256), a linear layer at batch 32
//                                ([32,64]x[64,32]), its backward's products with a
//                                transposed operand (`^T`: a view of the stored
//                                tensor's last two dims swapped), tall-skinny
//                                ([1024,64]x[64,64]) and batched ([8,n,n]x[8,n,n])
//   small_unary/<op>/n=<n>/<c>   relu, tanh, sigmoid, exp over 1K, 4K, 16K, 64K floats
//   small_binary/<op>/n=<n>/<c>  add, mul over the same sizes
//   small_sum/<r>x<c>,dim=1/<c>  rows of 32, 256 and 1024 floats, 32K floats in all
//
// Contenders: `<policy>:onednn` for each of the five policies and
// `tensor_ptr:aten` (custody results released inside the loop), `libtorch`
// (the at:: op, a fresh result each time) and `onednn_direct` (the oneDNN
// primitive made once outside the loop on plain memory, writing into a
// preallocated destination: the floor custody's path adds to).
//
// Run by tools/bench/run.sh; by itself, e.g.
//   bazel run --config=opt //backends/onednn:small_benchmark -- --benchmark_filter=small_matmul
// `--load=N` (testing/bench/bench_main.cc) keeps N other processes busy on the
// cores while it runs: a loaded machine.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/onednn/direct.h"
#include "benchmark/benchmark.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "custody/lists/host_backends.h"
#include "custody/lists/policies.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::Policies;

// A product as a linear layer's forward and backward make it: each operand is
// stored with `sizes` and, when `transposed`, used through a view of its last
// two dims swapped.
struct Operand {
  std::vector<int64_t> sizes;
  bool transposed = false;
};
struct MatmulCase {
  Operand a, b;
};

std::string operand_name(const Operand& o) {
  std::vector<int64_t> used = o.sizes;
  if (o.transposed) std::swap(used[used.size() - 1], used[used.size() - 2]);
  return absl::StrCat("[", absl::StrJoin(used, ","), "]", o.transposed ? "^T" : "");
}

const std::vector<MatmulCase>& matmul_cases() {
  static const auto* cases = new std::vector<MatmulCase>{
      {{{16, 16}}, {{16, 16}}},
      {{{32, 32}}, {{32, 32}}},
      {{{64, 64}}, {{64, 64}}},
      {{{128, 128}}, {{128, 128}}},
      {{{256, 256}}, {{256, 256}}},
      {{{32, 64}}, {{64, 32}}},              // a linear layer 64 -> 32 at batch 32
      {{{32, 32}}, {{64, 32}, true}},        // its grad_input: grad_output x weight^T
      {{{32, 64}, true}, {{32, 32}}},        // its grad_weight: input^T x grad_output
      {{{1024, 64}}, {{64, 64}}},            // tall-skinny
      {{{8, 32, 32}}, {{8, 32, 32}}},        // batched
      {{{8, 64, 64}}, {{8, 64, 64}}},
  };
  return *cases;
}

constexpr const char* kUnaryOps[] = {"relu", "tanh", "sigmoid", "exp"};
constexpr const char* kBinaryOps[] = {"add", "mul"};
constexpr int64_t kElementwiseSizes[] = {1 << 10, 1 << 12, 1 << 14, 1 << 16};
constexpr int64_t kRowLengths[] = {32, 256, 1024};
constexpr int64_t kSumElements = int64_t{1} << 15;

// ---- custody -----------------------------------------------------------------

template <AnyTensor T>
T operand(const Operand& o, uint64_t seed) {
  T stored = input<T>(o.sizes, seed);
  if (!o.transposed) return stored;
  T view = stored.transpose(-2, -1);
  custody::release(stored);
  return view;
}

template <AnyTensor T>
void matmul(benchmark::State& state, MatmulCase c) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = operand<T>(c.a, 1), b = operand<T>(c.b, 2);
  for (auto _ : state) {
    T y = a.matmul(b);
    custody::release(y);
  }
  custody::release(a);
  custody::release(b);
}

template <AnyTensor T>
T apply_unary(const T& x, const std::string& op) {
  if (op == "relu") return x.relu();
  if (op == "tanh") return x.tanh();
  if (op == "sigmoid") return x.sigmoid();
  return x.exp();
}

template <AnyTensor T>
void unary(benchmark::State& state, std::string op, int64_t numel) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T x = input<T>({numel});
  for (auto _ : state) {
    T y = apply_unary(x, op);
    custody::release(y);
  }
  custody::release(x);
}

template <AnyTensor T>
void binary(benchmark::State& state, std::string op, int64_t numel) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = input<T>({numel}, 1), b = input<T>({numel}, 2);
  const bool add = op == "add";
  for (auto _ : state) {
    T c = add ? a + b : a * b;
    custody::release(c);
  }
  custody::release(a);
  custody::release(b);
}

template <AnyTensor T>
void sum_rows(benchmark::State& state, int64_t rows, int64_t cols) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T x = input<T>({rows, cols});
  for (auto _ : state) {
    T y = x.sum(1);
    custody::release(y);
  }
  custody::release(x);
}

// ---- oneDNN called directly -------------------------------------------------------

dnnl::memory::dims dense_strides(const dnnl::memory::dims& sizes) {
  dnnl::memory::dims strides(sizes.size(), 1);
  for (size_t i = sizes.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * sizes[i + 1];
  return strides;
}

// A dense row-major float32 descriptor of `sizes`.
dnnl::memory::desc dense(const std::vector<int64_t>& sizes) {
  const dnnl::memory::dims dims(sizes.begin(), sizes.end());
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dense_strides(dims));
}

// The operand as oneDNN sees it: the stored layout, with the last two dims
// swapped (a column-major matrix) when it is used transposed.
dnnl::memory::desc operand_desc(const Operand& o) {
  const size_t r = o.sizes.size();
  dnnl::memory::dims sizes(o.sizes.begin(), o.sizes.end());
  dnnl::memory::dims strides = dense_strides(sizes);
  if (o.transposed) {
    std::swap(sizes[r - 1], sizes[r - 2]);
    std::swap(strides[r - 1], strides[r - 2]);
  }
  return dnnl::memory::desc(sizes, dnnl::memory::data_type::f32, strides);
}

void direct_matmul(benchmark::State& state, MatmulCase c) {
  const dnnl::memory::desc a_md = operand_desc(c.a), b_md = operand_desc(c.b);
  const dnnl::memory::dims a_dims = a_md.dims();
  std::vector<int64_t> out(a_dims.begin(), a_dims.end());
  out.back() = b_md.dims().back();
  const dnnl::memory::desc c_md = dense(out);
  dnnl::memory a = direct::filled(a_md, 1), b = direct::filled(b_md, 2), y(c_md, direct::env().engine);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), direct::env().engine);
  state.SetLabel(pd.impl_info_str());
  direct::run_primitive(state, dnnl::matmul(pd), {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, y}});
}

void direct_unary(benchmark::State& state, std::string op, int64_t numel) {
  const dnnl::memory::desc md = dense({numel});
  dnnl::memory x = direct::filled(md, 1), y(md, direct::env().engine);
  dnnl::algorithm alg = dnnl::algorithm::eltwise_exp;
  if (op == "relu") alg = dnnl::algorithm::eltwise_relu;
  if (op == "tanh") alg = dnnl::algorithm::eltwise_tanh;
  if (op == "sigmoid") alg = dnnl::algorithm::eltwise_logistic;
  dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md, 0.f, 0.f), direct::env().engine);
  state.SetLabel(pd.impl_info_str());
  direct::run_primitive(state, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void direct_binary(benchmark::State& state, std::string op, int64_t numel) {
  const dnnl::memory::desc md = dense({numel});
  dnnl::memory a = direct::filled(md, 1), b = direct::filled(md, 2), c(md, direct::env().engine);
  const dnnl::algorithm alg = op == "add" ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul;
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, md, md, md), direct::env().engine);
  state.SetLabel(pd.impl_info_str());
  direct::run_primitive(state, dnnl::binary(pd), {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, c}});
}

// ---- registration -----------------------------------------------------------------

// Every policy on onednn, and tensor_ptr on aten (libtorch's kernels under custody's handles).
template <class F>
void for_each_small_contender(F&& f) {
  for_each_tensor<Policies, TypeList<Onednn>>(f);
  f.template operator()<BasicTensor<tensor_ptr::Policy, Aten>>();
}

// Short runs, many of them (tools/bench/run.sh repeats each): a small case
// settles in a few thousand iterations.
constexpr double kMinTime = 0.05;

[[maybe_unused]] const bool registered = [] {
  for (const MatmulCase& c : matmul_cases()) {
    const std::string name = absl::StrCat("small_matmul/", operand_name(c.a), "x", operand_name(c.b));
    add_peer(name, "libtorch", &libtorch::matmul_views, c.a.sizes, c.a.transposed, c.b.sizes, c.b.transposed)
        ->MinTime(kMinTime);
    add_peer(name, "onednn_direct", &direct_matmul, c)->MinTime(kMinTime);
    for_each_small_contender(
        [&]<class T>() { add_peer(name, contender<T>(), &matmul<T>, c)->MinTime(kMinTime); });
  }
  for (const int64_t n : kElementwiseSizes) {
    for (const std::string op : kUnaryOps) {
      const std::string name = absl::StrCat("small_unary/", op, "/n=", n);
      add_peer(name, "libtorch", &libtorch::unary, op, n)->MinTime(kMinTime);
      add_peer(name, "onednn_direct", &direct_unary, op, n)->MinTime(kMinTime);
      for_each_small_contender(
          [&]<class T>() { add_peer(name, contender<T>(), &unary<T>, op, n)->MinTime(kMinTime); });
    }
    for (const std::string op : kBinaryOps) {
      const std::string name = absl::StrCat("small_binary/", op, "/n=", n);
      add_peer(name, "libtorch", &libtorch::binary, op, n)->MinTime(kMinTime);
      add_peer(name, "onednn_direct", &direct_binary, op, n)->MinTime(kMinTime);
      for_each_small_contender(
          [&]<class T>() { add_peer(name, contender<T>(), &binary<T>, op, n)->MinTime(kMinTime); });
    }
  }
  for (const int64_t cols : kRowLengths) {
    const int64_t rows = kSumElements / cols;
    const std::string name = absl::StrCat("small_sum/", rows, "x", cols, ",dim=1");
    add_peer(name, "libtorch", &libtorch::sum, rows, cols, std::optional<int64_t>(1))->MinTime(kMinTime);
    add_peer(name, "onednn_direct", &direct::sum, rows, cols, true)->MinTime(kMinTime);
    for_each_small_contender(
        [&]<class T>() { add_peer(name, contender<T>(), &sum_rows<T>, rows, cols)->MinTime(kMinTime); });
  }
  return true;
}();

}  // namespace
}  // namespace custody::bench
