// Copyright 2026 The custody Authors.
//
// backends/onednn/direct.h — the `onednn_direct` peer of the onednn benchmarks
// (onednn_benchmark.cc, small_benchmark.cc): oneDNN called directly, with a
// primitive made once outside the timing loop on plain memory and a
// preallocated destination, the floor custody's own path adds to.

#ifndef CUSTODY_BACKENDS_ONEDNN_DIRECT_H_
#define CUSTODY_BACKENDS_ONEDNN_DIRECT_H_

#include <cstdint>
#include <random>
#include <unordered_map>

#include "benchmark/benchmark.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace custody::bench::direct {

struct Dnnl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
inline Dnnl& env() {
  static Dnnl* e = new Dnnl();
  return *e;
}

// A memory object of `md` (oneDNN allocates it) filled with normal values.
inline dnnl::memory filled(const dnnl::memory::desc& md, uint32_t seed) {
  dnnl::memory m(md, env().engine);
  float* p = static_cast<float*>(m.get_data_handle());
  const size_t n = md.get_size() / sizeof(float);
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  for (size_t i = 0; i < n; ++i) p[i] = normal(gen);
  return m;
}

// Runs `prim` with `args` once per iteration (made once, outside the loop).
inline void run_primitive(benchmark::State& state, const dnnl::primitive& prim,
                          const std::unordered_map<int, dnnl::memory>& args) {
  dnnl::stream& s = env().stream;
  prim.execute(s, args);  // warm-up: the first execution may JIT or page in
  s.wait();
  for (auto _ : state) {
    prim.execute(s, args);
    s.wait();
  }
}

// oneDNN's reduction: the sum of a dense [rows, cols] matrix's rows
// (`over_dim1`) or of all of it.
inline void sum(benchmark::State& state, int64_t rows, int64_t cols, bool over_dim1) {
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::desc src({rows, cols}, dnnl::memory::data_type::f32, tag::ab);
  const dnnl::memory::desc dst({over_dim1 ? rows : 1, 1}, dnnl::memory::data_type::f32, tag::ab);
  dnnl::memory x = filled(src, 1), y(dst, env().engine);
  dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(dnnl::algorithm::reduction_sum, src, dst, 0.f, 0.f),
                                     env().engine);
  state.SetLabel(pd.impl_info_str());
  run_primitive(state, dnnl::reduction(pd), {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

}  // namespace custody::bench::direct

#endif  // CUSTODY_BACKENDS_ONEDNN_DIRECT_H_
