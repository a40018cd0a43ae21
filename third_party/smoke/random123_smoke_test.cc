// Random123 (header-only): philox4x32-10 against the Known Answer from Random123's kat_vectors.
#include <Random123/philox.h>

#include "gtest/gtest.h"

namespace {

TEST(Random123Smoke, Philox4x32KnownAnswer) {
  r123::Philox4x32 rng;
  r123::Philox4x32::ctr_type ctr = {{0, 0, 0, 0}};
  r123::Philox4x32::key_type key = {{0, 0}};
  r123::Philox4x32::ctr_type out = rng(ctr, key);
  EXPECT_EQ(out[0], 0x6627e8d5u);
  EXPECT_EQ(out[1], 0xe169c58du);
  EXPECT_EQ(out[2], 0xbc57ac4cu);
  EXPECT_EQ(out[3], 0x9b00dbd8u);
}

}  // namespace
