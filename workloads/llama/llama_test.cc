// Copyright 2026 The custody Authors.
//
// The llama workload: the same tokens as the same decoder in plain libtorch
// under every policy on every host backend (grouped-query attention
// included); llama2.c checkpoints load to the same weights and bad ones are
// refused with InvalidArgument; decoding past the context is refused.

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <set>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "backends/aten/aten.h"
#include "backends/onednn/onednn.h"
#include "workloads/llama/hybrid.h"
#include "workloads/llama/llama.h"
#include "workloads/llama/runners.h"
#include "workloads/testing.h"

namespace custody::workloads::llama {
namespace {

LlamaConfig small_config() {
  LlamaConfig c;
  c.dim = 64;
  c.hidden_dim = 160;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;  // grouped-query attention: two query heads per key/value head
  c.vocab_size = 512;
  c.seq_len = 24;
  return c;
}

std::vector<int64_t> libtorch_tokens(const LlamaWeights& w, int64_t steps) {
  std::unique_ptr<Generator> g = make_libtorch_generator(w);
  for (int64_t i = 0; i < steps; ++i) g->step();
  return g->tokens();
}

TEST(Llama, SameTokensAsLibtorchUnderEveryPolicyAndBackend) {
  const LlamaWeights w = random_weights(small_config(), /*seed=*/3);
  constexpr int64_t kSteps = 20;
  const std::vector<int64_t> reference = libtorch_tokens(w, kSteps);
  ASSERT_EQ(reference.size(), static_cast<size_t>(kSteps + 1));
  EXPECT_GT(std::set<int64_t>(reference.begin(), reference.end()).size(), 5u) << "a varied sequence";
  testing::for_each_runner<RunnerFor>(
      w, [&](const std::string& name, Runner& runner) {
        auto& g = dynamic_cast<Generator&>(runner);
        for (int64_t i = 0; i < kSteps; ++i) g.step();
        EXPECT_EQ(g.tokens(), reference) << name;
      });
}

// The hybrid (hybrid.h): gc parameters and cache, each token's activations in a
// scope: libtorch's tokens, every token's scope giving back all it made, nothing
// left after finish.
template <class B>
void hybrid_decodes_libtorchs_tokens() {
  SCOPED_TRACE(B::name);
  const LlamaWeights w = random_weights(small_config(), /*seed=*/3);
  constexpr int64_t kSteps = 20;
  const std::vector<int64_t> reference = libtorch_tokens(w, kSteps);
  gc::collect();
  const StatsSnapshot before = B::stats().snapshot();
  const uint64_t since = gc::testing::next_serial();
  {
    HybridGenerator<B> g(w);
    const int64_t after_setup = B::stats().snapshot().live_tensors;
    for (int64_t i = 0; i < kSteps; ++i) {
      g.step();
      EXPECT_EQ(B::stats().snapshot().live_tensors, after_setup) << "token " << i;
    }
    EXPECT_EQ(g.tokens(), reference);
    g.finish();
  }
  gc::collect();
  // Under ThreadSanitizer the collector never runs (Note [ThreadSanitizer], policies/gc/gc.h): the
  // gc side's parameters come back through the test idiom instead.
  if (!gc::collector_enabled()) gc::testing::release_created_since(since);
  const StatsSnapshot after = B::stats().snapshot();
  EXPECT_EQ(after.live_tensors, before.live_tensors);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
}

TEST(Llama, HybridDecodesLibtorchsTokensOnOnednn) { hybrid_decodes_libtorchs_tokens<Onednn>(); }
TEST(Llama, HybridDecodesLibtorchsTokensOnAten) { hybrid_decodes_libtorchs_tokens<Aten>(); }

TEST(Llama, DecodingPastTheContextIsRefused) {
  LlamaConfig c = small_config();
  c.seq_len = 4;
  const LlamaWeights w = random_weights(c, 1);
  ManualGenerator<Onednn> g(w);
  for (int i = 0; i < 4; ++i) g.step();
  EXPECT_THROW(g.step(), InvalidArgument);
  g.finish();
}

// Writes `w` in llama2.c's legacy checkpoint format.
void write_checkpoint(const std::string& path, const LlamaWeights& w) {
  std::ofstream f(path, std::ios::binary);
  const LlamaConfig& c = w.config;
  const int32_t vocab = static_cast<int32_t>(w.wcls.empty() ? c.vocab_size : -c.vocab_size);
  for (int32_t v : {static_cast<int32_t>(c.dim), static_cast<int32_t>(c.hidden_dim),
                    static_cast<int32_t>(c.n_layers), static_cast<int32_t>(c.n_heads),
                    static_cast<int32_t>(c.n_kv_heads), vocab, static_cast<int32_t>(c.seq_len)}) {
    f.write(reinterpret_cast<const char*>(&v), sizeof v);
  }
  const auto put = [&f](const std::vector<float>& v) {
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  };
  put(w.token_embedding);
  for (auto field : {&LayerWeights::rms_att, &LayerWeights::wq, &LayerWeights::wk, &LayerWeights::wv,
                     &LayerWeights::wo, &LayerWeights::rms_ffn, &LayerWeights::w1, &LayerWeights::w2,
                     &LayerWeights::w3}) {
    for (const LayerWeights& l : w.layers) put(l.*field);
  }
  put(w.rms_final);
  put(std::vector<float>(static_cast<size_t>(c.seq_len * c.head_size()), 0.f));  // freq_cis_real, _imag
  if (!w.wcls.empty()) put(w.wcls);
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(Llama, CheckpointRoundTrip) {
  for (bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared classifier" : "own classifier");
    LlamaWeights w = random_weights(small_config(), 5);
    if (shared) w.wcls.clear();
    const std::string path = temp_path(shared ? "shared.bin" : "own.bin");
    write_checkpoint(path, w);
    const LlamaWeights loaded = load_checkpoint(path);
    EXPECT_EQ(loaded.config.dim, w.config.dim);
    EXPECT_EQ(loaded.config.n_kv_heads, w.config.n_kv_heads);
    EXPECT_EQ(loaded.config.vocab_size, w.config.vocab_size);
    EXPECT_EQ(loaded.token_embedding, w.token_embedding);
    ASSERT_EQ(loaded.layers.size(), w.layers.size());
    EXPECT_EQ(loaded.layers[1].wk, w.layers[1].wk);
    EXPECT_EQ(loaded.layers[1].w3, w.layers[1].w3);
    EXPECT_EQ(loaded.rms_final, w.rms_final);
    EXPECT_EQ(loaded.wcls, w.wcls);
    EXPECT_EQ(libtorch_tokens(loaded, 6), libtorch_tokens(w, 6));
  }
}

std::string load_error(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "<no InvalidArgument>";
}

TEST(Llama, BadCheckpointsAreRefused) {
  EXPECT_NE(load_error(temp_path("missing.bin")).find("cannot open"), std::string::npos);
  const LlamaWeights w = random_weights(small_config(), 5);
  const std::string path = temp_path("truncated.bin");
  write_checkpoint(path, w);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  EXPECT_NE(load_error(path).find("ends early"), std::string::npos) << load_error(path);
  std::ofstream(path, std::ios::binary).write("\x40\0\0\0\xff\xff\xff\xff", 8);
  EXPECT_NE(load_error(path).find("ends early"), std::string::npos) << load_error(path);
  int32_t header[7] = {64, 160, 2, 3, 2, 512, 24};  // 64 % 3 != 0
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof header);
  EXPECT_NE(load_error(path).find("invalid header"), std::string::npos) << load_error(path);
}

// Writes the 7 header fields, then `extra_floats` zeros.
void write_header(const std::string& path, std::vector<int32_t> header, int64_t extra_floats = 0) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size() * 4));
  const std::vector<float> zeros(static_cast<size_t>(extra_floats), 0.f);
  f.write(reinterpret_cast<const char*>(zeros.data()), static_cast<std::streamsize>(zeros.size() * 4));
}

// Note [Checkpoint validation]: everything is checked before a buffer is made, each refusal an
// InvalidArgument naming the file and what is wrong.
TEST(Llama, CheckpointsAreValidatedBeforeAnythingIsAllocated) {
  const std::string path = temp_path("header.bin");
  const auto error_of = [&](std::vector<int32_t> header, int64_t extra = 0) {
    write_header(path, std::move(header), extra);
    return load_error(path);
  };
  const auto has = [](const std::string& msg, std::initializer_list<const char*> parts) {
    for (const char* p : parts) {
      if (msg.find(p) == std::string::npos) return ::testing::AssertionFailure() << msg << " lacks " << p;
    }
    return ::testing::AssertionSuccess();
  };
  // A header that claims dim 2^20 in a 28-byte file: refused by size, nothing allocated (was bad_alloc).
  EXPECT_TRUE(has(error_of({1 << 20, 8, 1, 2, 2, 16, 4}), {path.c_str(), "ends early", "dim=1048576",
                                                           "needs", "the file has 28"}));
  // dim 2^30, or every field near INT32_MAX: the sizes pass 2^63, said as such.
  EXPECT_TRUE(has(error_of({1 << 30, 8, 1, 2, 2, 16, 4}), {"invalid header", "wk", "pass 2^63"}));
  const int32_t M = 2147483647;
  EXPECT_TRUE(has(error_of({M - 1, M, M, 1, 1, M, M}), {"invalid header", "pass 2^63"}));
  // Each field named.
  EXPECT_TRUE(has(error_of({16, 32, 0, 2, 2, 8, 4}), {"n_layers = 0 must be positive"}));
  EXPECT_TRUE(has(error_of({16, 32, 1, 2, 2, 0, 4}), {"vocab_size = 0 must be non-zero"}));
  EXPECT_TRUE(has(error_of({16, 32, 1, 4, 3, 8, 4}), {"n_heads = 4 is not a multiple of n_kv_heads = 3"}));
  EXPECT_TRUE(has(error_of({6, 32, 1, 2, 2, 8, 4}), {"head size", "is odd"}));
  EXPECT_TRUE(has(error_of({16}), {"ends early", "fewer than the 28"}));
  // The exact size: one float too many is refused too.
  const LlamaWeights w = random_weights(small_config(), 5);
  write_checkpoint(path, w);
  { std::ofstream(path, std::ios::binary | std::ios::app).write("\0\0\0\0", 4); }
  EXPECT_TRUE(has(load_error(path), {"is longer than its header says"}));
  // Not a regular file: each its own message, and a FIFO without a writer does not hang.
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string d = std::string(dir != nullptr ? dir : "/tmp");
  EXPECT_TRUE(has(load_error(d), {"is a directory, not a checkpoint file"}));
  const std::string fifo = temp_path("checkpoint.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(has(load_error(fifo), {"is a FIFO (named pipe), not a checkpoint file"}));
  EXPECT_TRUE(has(load_error("/dev/null"), {"is a device, not a checkpoint file"}));
}

}  // namespace
}  // namespace custody::workloads::llama
