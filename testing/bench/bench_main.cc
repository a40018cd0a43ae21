// Copyright 2026 The custody Authors.
//
// testing/bench/bench_main.cc — main() of every *_benchmark binary: Google
// Benchmark's flags, the common thread setting, then the benchmarks each
// binary registered at static-initialization time (testing/bench/bench_util.h).
// `--load=N` runs them beside N spinning processes (testing/bench/load.h).

#include "benchmark/benchmark.h"
#include "testing/bench/load.h"
#include "testing/bench/threads.h"

int main(int argc, char** argv) {
  if (!custody::bench::start_load_from_flags(&argc, argv)) return 2;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  custody::bench::configure_threads();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
