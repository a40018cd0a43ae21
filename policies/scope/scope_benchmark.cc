// Copyright 2026 The custody Authors.
//
// policies/scope/scope_benchmark.cc — what dispose scopes cost:
//
//   scope_open_close/scope            open and close an empty DisposeScope
//   scope_open_close/with_rc_scope    the same through with_rc_scope (a callback returning an int)
//   scope_register/k=<k>/scope:<b>    open a scope, create k 1-element tensors (each registered in
//                                     it), close it (which disposes them)
//   scope_register/k=<k>/tensor_ptr:<b>   the same k tensors kept alive by TensorPtrs in a
//                                     reserved std::vector, then cleared
//   scope_register/k=<k>/libtorch     k at::empty({1}) in a reserved std::vector, then cleared (peer)
//
// scope_open_close has no libtorch peer (libtorch has no dispose scopes).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "policies/scope/scope.h"
#include "policies/tensor_ptr/tensor_ptr.h"
#include "custody/lists/all_host_backends.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllHostBackends;

constexpr int64_t kCounts[] = {1, 16, 256};

void open_close(benchmark::State& state) {
  for (auto _ : state) {
    scope::DisposeScope d;
    benchmark::DoNotOptimize(&d);
  }
}

void open_close_rc(benchmark::State& state) {
  for (auto _ : state) {
    int r = scope::with_rc_scope([] { return 1; });
    benchmark::DoNotOptimize(r);
  }
}

template <AnyTensor T>
void register_k(benchmark::State& state, int64_t k) {
  for (auto _ : state) {
    scope::DisposeScope d;
    for (int64_t i = 0; i < k; ++i) {
      T t = T::empty({1});
      benchmark::DoNotOptimize(t);
    }
  }
}

template <AnyTensor T>
void keep_k(benchmark::State& state, int64_t k) {
  std::vector<T> kept;
  kept.reserve(static_cast<size_t>(k));
  for (auto _ : state) {
    for (int64_t i = 0; i < k; ++i) kept.push_back(T::empty({1}));
    kept.clear();
  }
}

[[maybe_unused]] const bool registered = [] {
  add("scope_open_close", "scope", open_close);
  add("scope_open_close", "with_rc_scope", open_close_rc);
  for (int64_t k : kCounts) {
    const std::string case_name = absl::StrCat("scope_register/k=", k);
    add_peer(case_name, "libtorch", &libtorch::create_keep, k);
    for_each_type(AllHostBackends{}, [&]<class B>() {
      using Scoped = BasicTensor<scope::Policy, B>;
      using Shared = BasicTensor<tensor_ptr::Policy, B>;
      add_peer(case_name, contender<Scoped>(), &register_k<Scoped>, k);
      add_peer(case_name, contender<Shared>(), &keep_k<Shared>, k);
    });
  }
  return true;
}();

}  // namespace
}  // namespace custody::bench
