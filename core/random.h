// Copyright 2026 The custody Authors.
//
// core/random.h — the global random stream state behind rand/randn/randint.
//
// `manual_seed(s)` sets the seed and rewinds the stream counter; every random
// factory call takes the next stream (offset), so the sequence of tensors that
// follows a seed is the same on every backend and every policy.

#ifndef CUSTODY_CORE_RANDOM_H_
#define CUSTODY_CORE_RANDOM_H_

#include <cstdint>

namespace custody {

void manual_seed(uint64_t seed);

namespace internal {
// Returns {seed, offset} for the next random tensor.
struct RandomStream {
  uint64_t seed;
  uint64_t offset;
};
RandomStream next_random_stream();
}  // namespace internal

}  // namespace custody

#endif  // CUSTODY_CORE_RANDOM_H_
