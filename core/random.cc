// Copyright 2026 The custody Authors.

#include "core/random.h"

#include <atomic>

namespace custody {
namespace {
std::atomic<uint64_t> g_seed{67280421310721ULL};
std::atomic<uint64_t> g_offset{0};
}  // namespace

void manual_seed(uint64_t seed) {
  g_seed.store(seed);
  g_offset.store(0);
}

namespace internal {
RandomStream next_random_stream() {
  return RandomStream{g_seed.load(), g_offset.fetch_add(1)};
}
}  // namespace internal

}  // namespace custody
