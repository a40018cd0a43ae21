// Copyright 2026 The custody Authors.
//
// testing/bench/threads.cc — configure_threads(): every library a benchmark
// calls runs on custody::num_threads() threads (docs/reference.md, "Threads").

#include "testing/bench/threads.h"

#include <dlfcn.h>
#include <omp.h>

#include "core/threads.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {

void configure_threads() {
  const int n = custody::num_threads();
  // libtorch: stored process-wide, so each thread's lazy init applies it too.
  libtorch::set_num_threads(n);
  // oneDNN called directly and the OpenMP loops read the calling thread's count.
  omp_set_num_threads(n);
  // OpenBLAS (behind at::matmul): its own setter, when the loaded build has one.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(n);
}

}  // namespace custody::bench
