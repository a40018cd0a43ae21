// Copyright 2026 The custody Authors.
//
// backends/aten/aten_benchmark.cc — what the aten backend adds on top of the
// libtorch kernel it calls: `c = a + b` on float tensors of 1, 1024 and 65536
// elements, under every policy, against libtorch itself:
//
//   aten_add/numel=<n>/<policy>:aten   custody (fresh result from libtorch's allocator, one
//                                      at::add_out on from_blob views), released per the policy
//   aten_add/numel=<n>/libtorch        at::add (peer)
//   aten_add/numel=<n>/libtorch_out    at::add_out into a preallocated result: the kernel alone

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/aten/aten.h"
#include "benchmark/benchmark.h"
#include "custody/lists/all_policies.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllPolicies;

constexpr int64_t kSizes[] = {1, 1024, 65536};

template <AnyTensor T>
void custody_add(benchmark::State& state, int64_t numel) {
  [[maybe_unused]] Env<typename T::policy_type> env;
  T a = input<T>({numel}, 1), b = input<T>({numel}, 2);
  for (auto _ : state) {
    T c = a + b;
    custody::release(c);
  }
  custody::release(a);
  custody::release(b);
}

[[maybe_unused]] const bool registered = [] {
  for (int64_t n : kSizes) {
    const std::string case_name = absl::StrCat("aten_add/numel=", n);
    add_peer(case_name, "libtorch", &libtorch::add, n);
    add_peer(case_name, "libtorch_out", &libtorch::add_out, n);
    for_each_tensor<AllPolicies, TypeList<Aten>>(
        [&]<class T>() { add_peer(case_name, contender<T>(), &custody_add<T>, n); });
  }
  return true;
}();

}  // namespace
}  // namespace custody::bench
