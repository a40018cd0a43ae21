// Copyright 2026 The custody Authors.
//
// backends/onednn/onednn_benchmark.cc — large float32 work on the onednn
// backend, against libtorch and against oneDNN called directly, in one binary:
//
//   add_16M/fresh/<c>          c = a + b over 16M floats into a fresh result (released)
//   add_16M/in_place/<c>       a.add_(b) over 16M floats (peer: omp_loop, `a[i] += b[i]`)
//   matmul_2d/n=<n>/<c>        [n, n] x [n, n], n = 64, 256, 1024, 2048
//   matmul_batched/b=<b>,n=<n>/<c>   [b, n, n] x [b, n, n]: (8, 64), (8, 256), (4, 1024), (2, 2048)
//   matmul_4d/<a>x<b>/<c>      attention-like rank-4 products: equal batches
//                              ([2, 8, 128, 64] x [2, 8, 64, 128], merged into one batch
//                              dim) and b broadcast over the first ([8, 64, 128]: oneDNN's
//                              own broadcast, rank 4); tensor_ptr contenders and libtorch
//   softmax/4096x4096,dim=1/<c>
//                              custody's is its row kernel (Note [Softmax rows])
//   relu/16x512/<c>            below oneDNN's size threshold: the host loop (a serving
//                              worker's activation)
//   sum/4096x4096/<c>          over everything
//   sum/4096x4096,dim=1/<c>
//   special_scan/<size>/loops the special-value scan of Note [Special values]
//                              (host::any_special_f32, the clone this CPU picks) over
//                              24 KiB (in L1), 192 KiB (in L2) and
//                              64 MiB (from memory) of ordinary floats, one thread: bytes/s
//
// Contenders: `<policy>:onednn` for every policy (for matmul with n >= 1024,
// tensor_ptr only: there the policy is noise and one iteration is long),
// `tensor_ptr:aten` (every policy at matmul n <= 256), `libtorch` (at::add,
// at::add_, at::matmul, at::softmax, at::sum), `onednn_direct` (a oneDNN
// primitive on plain contiguous memory, created once outside the timing loop,
// writing into a preallocated destination) and `omp_loop` (a `#pragma omp
// parallel for` loop over preallocated buffers; for add_16M/fresh it writes
// into a preallocated result: the memory-bandwidth floor). custody results are
// given back with custody::release inside the loop.
//
// Every name is filterable, e.g. skip the long matmuls:
//   --benchmark_filter='-matmul_.*n=(1024|2048)'

#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/host/loops.h"
#include "backends/onednn/direct.h"
#include "benchmark/benchmark.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "custody/lists/all_policies.h"
#include "custody/lists/host_backends.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllPolicies;
using custody::lists::HostBackends;

constexpr int64_t k16M = int64_t{16} << 20;
constexpr int64_t kRows = 4096, kCols = 4096;

struct MatmulSize {
  int64_t batch;  // 0: 2-D
  int64_t n;
};
constexpr MatmulSize kMatmul2d[] = {{0, 64}, {0, 256}, {0, 1024}, {0, 2048}};
constexpr MatmulSize kMatmulBatched[] = {{8, 64}, {8, 256}, {4, 1024}, {2, 2048}};

std::vector<int64_t> matmul_dims(MatmulSize s) {
  return s.batch > 0 ? std::vector<int64_t>{s.batch, s.n, s.n} : std::vector<int64_t>{s.n, s.n};
}

// ---- custody -----------------------------------------------------------------

template <AnyTensor T>
void add_fresh(benchmark::State& state) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = input<T>({k16M}, 1), b = input<T>({k16M}, 2);
  for (auto _ : state) {
    T c = a + b;
    custody::release(c);
  }
  custody::release(a);
  custody::release(b);
}

template <AnyTensor T>
void add_in_place(benchmark::State& state) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = input<T>({k16M}, 1), b = input<T>({k16M}, 2);
  for (auto _ : state) {
    T r = a.add_(b);
    custody::release(r);
  }
  custody::release(a);
  custody::release(b);
}

template <AnyTensor T>
void matmul_shapes(benchmark::State& state, std::vector<int64_t> a_sizes, std::vector<int64_t> b_sizes) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = input<T>(a_sizes, 1), b = input<T>(b_sizes, 2);
  for (auto _ : state) {
    T c = a.matmul(b);
    custody::release(c);
  }
  custody::release(a);
  custody::release(b);
}

template <AnyTensor T>
void matmul(benchmark::State& state, MatmulSize size) {
  matmul_shapes<T>(state, matmul_dims(size), matmul_dims(size));
}

template <AnyTensor T>
void softmax(benchmark::State& state) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T x = input<T>({kRows, kCols});
  for (auto _ : state) {
    T y = x.softmax(1);
    custody::release(y);
  }
  custody::release(x);
}

template <AnyTensor T>
void relu(benchmark::State& state, int64_t rows, int64_t cols) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T x = input<T>({rows, cols});
  for (auto _ : state) {
    T y = x.relu();
    custody::release(y);
  }
  custody::release(x);
}

template <AnyTensor T>
void sum(benchmark::State& state, bool over_dim1) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T x = input<T>({kRows, kCols});
  for (auto _ : state) {
    T y = over_dim1 ? x.sum(1) : x.sum();
    custody::release(y);
  }
  custody::release(x);
}

// ---- OpenMP loops ---------------------------------------------------------------

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], FreeDeleter>;

// 64-byte aligned, first touched by the OpenMP threads that will use it.
Buffer omp_buffer(int64_t n, float value) {
  Buffer b(static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(n) * sizeof(float))));
  float* p = b.get();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) p[i] = value + static_cast<float>(i % 7);
  return b;
}

void omp_add_fresh(benchmark::State& state) {
  const int64_t n = k16M;
  Buffer a = omp_buffer(n, 1), b = omp_buffer(n, 2), c = omp_buffer(n, 0);
  const float* pa = a.get();
  const float* pb = b.get();
  float* pc = c.get();
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) pc[i] = pa[i] + pb[i];
    benchmark::DoNotOptimize(pc);
    benchmark::ClobberMemory();
  }
  state.counters["omp_threads"] = omp_get_max_threads();
}

void omp_add_in_place(benchmark::State& state) {
  const int64_t n = k16M;
  Buffer a = omp_buffer(n, 1), b = omp_buffer(n, 2);
  float* pa = a.get();
  const float* pb = b.get();
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) pa[i] += pb[i];
    benchmark::DoNotOptimize(pa);
    benchmark::ClobberMemory();
  }
  state.counters["omp_threads"] = omp_get_max_threads();
}

// ---- oneDNN called directly -------------------------------------------------------

dnnl::memory::desc plain_desc(const std::vector<int64_t>& dims) {
  using tag = dnnl::memory::format_tag;
  return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()),
                            dnnl::memory::data_type::f32,
                            dims.size() == 3 ? tag::abc : tag::ab);
}

void direct_matmul(benchmark::State& state, MatmulSize size) {
  const std::vector<int64_t> dims = matmul_dims(size);
  const dnnl::memory::desc md = plain_desc(dims);
  dnnl::memory a = direct::filled(md, 1), b = direct::filled(md, 2), c(md, direct::env().engine);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(md, md, md), direct::env().engine);
  state.SetLabel(pd.impl_info_str());  // which oneDNN implementation ran (e.g. brg:avx512_core)
  const dnnl::matmul prim(pd);
  direct::run_primitive(state, prim, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
}

void direct_softmax(benchmark::State& state) {
  const dnnl::memory::desc md = plain_desc({kRows, kCols});
  dnnl::memory x = direct::filled(md, 1), y(md, direct::env().engine);
  dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), direct::env().engine);
  state.SetLabel(pd.impl_info_str());
  direct::run_primitive(state, dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void special_scan(benchmark::State& state, int64_t bytes) {
  std::vector<float> data(static_cast<size_t>(bytes) / sizeof(float));
  for (size_t i = 0; i < data.size(); ++i) data[i] = 1.0f + static_cast<float>(i % 1000) * 1e-3f;
  for (auto _ : state) {
    bool found = host::any_special_f32(data.data(), static_cast<int64_t>(data.size()), false);
    benchmark::DoNotOptimize(found);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

// ---- registration -----------------------------------------------------------------

// Every policy on onednn, and tensor_ptr on aten (for big work the policy is noise).
template <class F>
void for_each_big_contender(F&& f) {
  for_each_tensor<AllPolicies, TypeList<Onednn>>(f);
  f.template operator()<BasicTensor<tensor_ptr::Policy, Aten>>();
}

void register_matmul(const std::string& case_name, MatmulSize size) {
  add_peer(case_name, "libtorch", &libtorch::matmul, size.batch, size.n);
  add_peer(case_name, "onednn_direct", &direct_matmul, size);
  const auto one = [&]<class T>() { add_peer(case_name, contender<T>(), &matmul<T>, size); };
  if (size.n <= 256) {
    for_each_tensor<AllPolicies, HostBackends>(one);
  } else {
    for_each_tensor<TypeList<tensor_ptr::Policy>, HostBackends>(one);
  }
}

[[maybe_unused]] const bool registered = [] {
  add_peer("add_16M/fresh", "libtorch", &libtorch::add, k16M);
  add("add_16M/fresh", "omp_loop", omp_add_fresh);
  add_peer("add_16M/in_place", "libtorch", &libtorch::add_in_place, k16M);
  add("add_16M/in_place", "omp_loop", omp_add_in_place);
  for_each_big_contender([]<class T>() {
    add("add_16M/fresh", contender<T>(), add_fresh<T>);
    add("add_16M/in_place", contender<T>(), add_in_place<T>);
  });

  for (MatmulSize s : kMatmul2d) register_matmul(absl::StrCat("matmul_2d/n=", s.n), s);
  for (MatmulSize s : kMatmulBatched) {
    register_matmul(absl::StrCat("matmul_batched/b=", s.batch, ",n=", s.n), s);
  }

  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes4d = {
      {{2, 8, 128, 64}, {2, 8, 64, 128}}, {{2, 8, 128, 64}, {8, 64, 128}}};
  for (const auto& [sa, sb] : shapes4d) {
    const std::string name = absl::StrCat("matmul_4d/[", absl::StrJoin(sa, ","), "]x[",
                                          absl::StrJoin(sb, ","), "]");
    add_peer(name, "libtorch", &libtorch::matmul_shapes, sa, sb);
    for_each_tensor<TypeList<tensor_ptr::Policy>, HostBackends>(
        [&]<class T>() { add_peer(name, contender<T>(), &matmul_shapes<T>, sa, sb); });
  }

  const std::string softmax_case = absl::StrCat("softmax/", kRows, "x", kCols, ",dim=1");
  const std::string sum_case = absl::StrCat("sum/", kRows, "x", kCols);
  const std::string sum1_case = absl::StrCat("sum/", kRows, "x", kCols, ",dim=1");
  add_peer(softmax_case, "libtorch", &libtorch::softmax, kRows, kCols, int64_t{1});
  add(softmax_case, "onednn_direct", direct_softmax);
  add_peer(sum_case, "libtorch", &libtorch::sum, kRows, kCols, std::optional<int64_t>());
  add_peer(sum_case, "onednn_direct", &direct::sum, kRows, kCols, false);
  add_peer(sum1_case, "libtorch", &libtorch::sum, kRows, kCols, std::optional<int64_t>(1));
  add_peer(sum1_case, "onednn_direct", &direct::sum, kRows, kCols, true);
  constexpr int64_t kReluRows = 16, kReluCols = 512;
  const std::string relu_case = absl::StrCat("relu/", kReluRows, "x", kReluCols);
  add_peer(relu_case, "libtorch", &libtorch::relu, kReluRows, kReluCols);
  for_each_tensor<TypeList<tensor_ptr::Policy>, HostBackends>(
      [&]<class T>() { add_peer(relu_case, contender<T>(), &relu<T>, kReluRows, kReluCols); });
  for (const auto& [label, bytes] : {std::pair<const char*, int64_t>{"24KiB", int64_t{24} << 10},
                                     {"192KiB", int64_t{192} << 10},
                                     {"64MiB", int64_t{64} << 20}}) {
    add_peer(absl::StrCat("special_scan/", label), "loops", &special_scan, bytes);
  }
  for_each_big_contender([&]<class T>() {
    add(softmax_case, contender<T>(), softmax<T>);
    add_peer(sum_case, contender<T>(), &sum<T>, false);
    add_peer(sum1_case, contender<T>(), &sum<T>, true);
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
