// Google Benchmark links and runs one tiny benchmark (the real ones are *_benchmark.cc, tagged manual).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

namespace {

void BM_Sum(benchmark::State& state) {
  std::vector<int> v(static_cast<size_t>(state.range(0)), 1);
  for (auto _ : state) {
    int s = 0;
    for (int x : v) s += x;
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_Sum)->Arg(64);

}  // namespace

int main(int argc, char** argv) {
  // Keep the smoke run short whatever the caller passes.
  std::vector<char*> args(argv, argv + argc);
  char min_time[] = "--benchmark_min_time=0.001";
  args.push_back(min_time);
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  return benchmark::RunSpecifiedBenchmarks() > 0 ? 0 : 1;
}
