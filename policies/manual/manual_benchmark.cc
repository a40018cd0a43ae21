// Copyright 2026 The custody Authors.
//
// policies/manual/manual_benchmark.cc — what ownership alone costs under the
// manual policy, with tensor_ptr (a shared pointer) as the in-binary peer:
//
//   BM_HandleCopy    copy-construct a handle and destroy the copy (a plain value here)
//   BM_AliasRelease  `auto b = a.alias(); custody::release(b);` plus b's destructor
//   BM_EmptyRelease  `auto b = T::empty({1}); custody::release(b);` (allocation included)
//
//   ./bazelw run --config=opt //policies/manual:manual_benchmark -- \
//       --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
//
// Compare each manual row with its tensor_ptr row from the same run (DESIGN §10).

#include <algorithm>
#include <vector>

#include "backends/onednn/onednn.h"
#include "benchmark/benchmark.h"
#include "core/tensor.h"
#include "policies/manual/manual.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace {

// With --benchmark_repetitions=N: the min over repetitions, beside Google Benchmark's
// mean, median and stddev (the min is the least disturbed run on a shared machine).
double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

using ManualT = custody::BasicTensor<custody::manual::Policy, custody::Onednn>;
using TensorPtrT = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Onednn>;

template <class T>
void BM_HandleCopy(benchmark::State& state) {
  T a = T::empty({1});
  for (auto _ : state) {
    T b = a;
    benchmark::DoNotOptimize(b);
  }
  custody::release(a);
}

template <class T>
void BM_AliasRelease(benchmark::State& state) {
  T a = T::empty({1});
  for (auto _ : state) {
    T b = a.alias();
    benchmark::DoNotOptimize(b);
    custody::release(b);
  }
  custody::release(a);
}

template <class T>
void BM_EmptyRelease(benchmark::State& state) {
  for (auto _ : state) {
    T b = T::empty({1});
    benchmark::DoNotOptimize(b);
    custody::release(b);
  }
}

BENCHMARK_TEMPLATE(BM_HandleCopy, TensorPtrT)->ComputeStatistics("min", Min);
BENCHMARK_TEMPLATE(BM_HandleCopy, ManualT)->ComputeStatistics("min", Min);
BENCHMARK_TEMPLATE(BM_AliasRelease, TensorPtrT)->ComputeStatistics("min", Min);
BENCHMARK_TEMPLATE(BM_AliasRelease, ManualT)->ComputeStatistics("min", Min);
BENCHMARK_TEMPLATE(BM_EmptyRelease, TensorPtrT)->ComputeStatistics("min", Min);
BENCHMARK_TEMPLATE(BM_EmptyRelease, ManualT)->ComputeStatistics("min", Min);
// Several threads at once on their own tensors: the owner-thread fast paths
// must not contend (today's global mutex does).
BENCHMARK_TEMPLATE(BM_AliasRelease, TensorPtrT)->Threads(2)->ComputeStatistics("min", Min);
BENCHMARK_TEMPLATE(BM_AliasRelease, ManualT)->Threads(2)->ComputeStatistics("min", Min);

}  // namespace
