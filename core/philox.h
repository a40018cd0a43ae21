// Copyright 2026 The custody Authors.
//
// core/philox.h — counter-based random numbers (Philox 4x32-10 from Random123)
// shared by every backend, host and device code alike.
//
// Element i of a random tensor is a pure function of (seed, offset, i): block
// i / 4 of the counter {i/4 lo, i/4 hi, offset lo, offset hi} under key
// {seed lo, seed hi}, lane i % 4. So the same seed gives the same values on every
// backend and for any thread split.

#ifndef CUSTODY_CORE_PHILOX_H_
#define CUSTODY_CORE_PHILOX_H_

#include <cmath>
#include <cstdint>

#include <Random123/philox.h>

#include "core/dtype.h"

namespace custody::philox {

CUSTODY_HOST_DEVICE inline r123::Philox4x32::ctr_type block(uint64_t seed, uint64_t offset,
                                                           uint64_t index) {
  r123::Philox4x32 rng;
  r123::Philox4x32::ctr_type c = {{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                                   static_cast<uint32_t>(offset),
                                   static_cast<uint32_t>(offset >> 32)}};
  r123::Philox4x32::key_type k = {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
  return rng(c, k);
}

// 32 random bits for element i (lane i % 4 of block i / 4).
CUSTODY_HOST_DEVICE inline uint32_t bits(uint64_t seed, uint64_t offset, uint64_t i) {
  return block(seed, offset, i / 4).v[i % 4];
}

// Uniform in [0, 1) with 24 random bits (exact in float32).
CUSTODY_HOST_DEVICE inline double uniform01(uint32_t x) { return (x >> 8) * (1.0 / 16777216.0); }

// Standard normal for element i by Box–Muller over two streams of the same counter.
CUSTODY_HOST_DEVICE inline double normal(uint64_t seed, uint64_t offset, uint64_t i) {
  auto b = block(seed, offset, i);
  const double u1 = (b.v[0] + 1.0) * (1.0 / 4294967297.0);  // (0, 1]
  const double u2 = b.v[1] * (1.0 / 4294967296.0);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Integer in [low, high) (low < high, anywhere in int64) for element i. The
// range and the sum are taken modulo 2^64, so bounds near the int64 limits
// neither overflow nor lose precision.
CUSTODY_HOST_DEVICE inline int64_t randint(uint64_t seed, uint64_t offset, uint64_t i, int64_t low,
                                           int64_t high) {
  auto b = block(seed, offset, i);
  const uint64_t x = (static_cast<uint64_t>(b.v[0]) << 32) | b.v[1];
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + x % range);
}

}  // namespace custody::philox

#endif  // CUSTODY_CORE_PHILOX_H_
