// Copyright 2026 The custody Authors.
//
// The hybrid llama (hybrid.h): gc parameters, scoped activations, the same
// tokens as libtorch and as every pure policy, on onednn and aten; nothing
// left after finish; the parameters survive every token scope.

#include "workloads/llama/hybrid.h"

#include <cstdint>
#include <vector>

#include "backends/aten/aten.h"
#include "backends/onednn/onednn.h"
#include "gtest/gtest.h"
#include "workloads/llama/llama.h"

namespace custody::workloads::llama {
namespace {

LlamaConfig small_config() {
  LlamaConfig c;
  c.dim = 64;
  c.hidden_dim = 160;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.vocab_size = 512;
  c.seq_len = 24;
  return c;
}

template <class B>
void same_tokens_as_libtorch() {
  SCOPED_TRACE(B::name);
  const LlamaWeights w = random_weights(small_config(), /*seed=*/3);
  constexpr int64_t kSteps = 20;
  std::unique_ptr<Generator> peer = make_libtorch_generator(w);
  for (int64_t i = 0; i < kSteps; ++i) peer->step();
  gc::collect();
  const StatsSnapshot before = B::stats().snapshot();
  {
    HybridGenerator<B> g(w);
    const int64_t after_setup = B::stats().snapshot().live_tensors;
    for (int64_t i = 0; i < kSteps; ++i) {
      g.step();
      // Each token's scope gave back all it made: only the parameters and cache remain.
      EXPECT_EQ(B::stats().snapshot().live_tensors, after_setup) << "token " << i;
    }
    EXPECT_EQ(g.tokens(), peer->tokens());
    g.finish();
  }
  gc::collect();
  const StatsSnapshot after = B::stats().snapshot();
  EXPECT_EQ(after.live_tensors, before.live_tensors);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
}

TEST(HybridLlama, SameTokensAsLibtorchOnOnednn) { same_tokens_as_libtorch<Onednn>(); }
TEST(HybridLlama, SameTokensAsLibtorchOnAten) { same_tokens_as_libtorch<Aten>(); }

}  // namespace
}  // namespace custody::workloads::llama
