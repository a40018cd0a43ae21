// Copyright 2026 The custody Authors.

#include "core/threads.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace custody {
namespace {

std::atomic<int> g_num_threads{0};  // 0: not decided yet

int cores_available() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace

int default_num_threads() {
  for (const char* var : {"CUSTODY_NUM_THREADS", "OMP_NUM_THREADS"}) {
    // OMP_NUM_THREADS may be a list ("4,2"): its first entry is the outer level's count.
    if (const char* v = std::getenv(var); v != nullptr && std::atoi(v) > 0) return std::atoi(v);
  }
  return cores_available();
}

int num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int expected = 0;
    n = default_num_threads();
    if (!g_num_threads.compare_exchange_strong(expected, n, std::memory_order_relaxed)) n = expected;
  }
  return n;
}

void set_num_threads(int n) {
  g_num_threads.store(n > 0 ? n : default_num_threads(), std::memory_order_relaxed);
}

}  // namespace custody
