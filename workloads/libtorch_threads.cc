// Copyright 2026 The custody Authors.

#include "workloads/libtorch_threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <omp.h>

#include "core/threads.h"

namespace custody::workloads {

void configure_libtorch_threads() {
  const int n = custody::num_threads();
  at::set_num_threads(n);
  omp_set_num_threads(n);
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(n);
}

}  // namespace custody::workloads
