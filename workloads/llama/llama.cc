// Copyright 2026 The custody Authors.

#include "workloads/llama/llama.h"

#include <cstdio>
#include <fstream>
#include <random>

namespace custody::workloads::llama {

LlamaWeights random_weights(const LlamaConfig& c, uint32_t seed) {
  std::mt19937 gen(seed);
  const auto uniform = [&gen] {  // [0, 1), identical across standard libraries
    return static_cast<double>(gen() >> 8) / static_cast<double>(1u << 24);
  };
  const auto normal = [&](int64_t n, double stddev) {  // Box-Muller
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) {
      const double u1 = 1.0 - uniform(), u2 = uniform();
      e = static_cast<float>(stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }
    return v;
  };
  // Linear weights N(0, 1/fan_in) keep activations at unit scale through the
  // layers, so each token's logits depend on the context (not only on the
  // last token's embedding).
  const auto linear = [&](int64_t out, int64_t in) { return normal(out * in, 1.0 / std::sqrt(static_cast<double>(in))); };
  const auto ones = [](int64_t n) { return std::vector<float>(static_cast<size_t>(n), 1.f); };
  LlamaWeights w;
  w.config = c;
  w.token_embedding = normal(c.vocab_size * c.dim, 1.0);
  for (int64_t l = 0; l < c.n_layers; ++l) {
    LayerWeights lw;
    lw.rms_att = ones(c.dim);
    lw.wq = linear(c.dim, c.dim);
    lw.wk = linear(c.kv_dim(), c.dim);
    lw.wv = linear(c.kv_dim(), c.dim);
    lw.wo = linear(c.dim, c.dim);
    lw.rms_ffn = ones(c.dim);
    lw.w1 = linear(c.hidden_dim, c.dim);
    lw.w2 = linear(c.dim, c.hidden_dim);
    lw.w3 = linear(c.hidden_dim, c.dim);
    w.layers.push_back(std::move(lw));
  }
  w.rms_final = ones(c.dim);
  // A classifier of its own: shared with the embedding, the logits of random
  // weights would mostly pick the last token again.
  w.wcls = linear(c.vocab_size, c.dim);
  return w;
}

namespace {

// Reads float32 arrays from a llama2.c checkpoint, checking the file holds them.
class CheckpointReader {
 public:
  CheckpointReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw InvalidArgument("llama::load_checkpoint: cannot open '" + path + "'");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<int64_t>(in_.tellg());
    in_.seekg(0);
  }
  int32_t read_int() {
    int32_t v = 0;
    read(&v, sizeof v);
    return v;
  }
  std::vector<float> floats(int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    read(v.data(), static_cast<int64_t>(v.size() * sizeof(float)));
    return v;
  }
  void skip(int64_t bytes) {
    need(bytes);
    in_.seekg(bytes, std::ios::cur);
  }
  int64_t remaining() { return size_ - static_cast<int64_t>(in_.tellg()); }
  const std::string& path() const { return path_; }

 private:
  void need(int64_t bytes) {
    if (bytes > remaining()) {
      throw InvalidArgument(absl::StrFormat(
          "llama::load_checkpoint: '%s' ends early: %d bytes needed at offset %d, the file has %d "
          "(a llama2.c legacy .bin file? its header must match its size)",
          path_, bytes, static_cast<int64_t>(in_.tellg()), size_));
    }
  }
  void read(void* out, int64_t bytes) {
    need(bytes);
    in_.read(static_cast<char*>(out), bytes);
  }
  std::string path_;
  std::ifstream in_;
  int64_t size_ = 0;
};

}  // namespace

LlamaWeights load_checkpoint(const std::string& path) {
  CheckpointReader r(path);
  LlamaConfig c;
  c.dim = r.read_int();
  c.hidden_dim = r.read_int();
  c.n_layers = r.read_int();
  c.n_heads = r.read_int();
  c.n_kv_heads = r.read_int();
  const int32_t vocab = r.read_int();
  c.seq_len = r.read_int();
  const bool shared = vocab > 0;  // llama2.c: a negative vocab_size means a separate classifier
  c.vocab_size = vocab < 0 ? -static_cast<int64_t>(vocab) : vocab;
  if (c.dim <= 0 || c.hidden_dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 ||
      c.vocab_size <= 0 || c.seq_len <= 0 || c.dim % c.n_heads != 0 || c.n_heads % c.n_kv_heads != 0) {
    throw InvalidArgument(absl::StrFormat(
        "llama::load_checkpoint: '%s' has an invalid header (dim=%d hidden_dim=%d n_layers=%d n_heads=%d "
        "n_kv_heads=%d vocab_size=%d seq_len=%d)", path, c.dim, c.hidden_dim, c.n_layers, c.n_heads,
        c.n_kv_heads, vocab, c.seq_len));
  }
  LlamaWeights w;
  w.config = c;
  const int64_t L = c.n_layers, d = c.dim, kv = c.kv_dim(), h = c.hidden_dim;
  w.token_embedding = r.floats(c.vocab_size * d);
  // run.c stores each kind of weight for all layers together: [layer][...].
  std::vector<float> rms_att = r.floats(L * d), wq = r.floats(L * d * d), wk = r.floats(L * kv * d),
                     wv = r.floats(L * kv * d), wo = r.floats(L * d * d), rms_ffn = r.floats(L * d),
                     w1 = r.floats(L * h * d), w2 = r.floats(L * d * h), w3 = r.floats(L * h * d);
  const auto slice = [](const std::vector<float>& all, int64_t l, int64_t n) {
    return std::vector<float>(all.begin() + l * n, all.begin() + (l + 1) * n);
  };
  for (int64_t l = 0; l < L; ++l) {
    w.layers.push_back(LayerWeights{slice(rms_att, l, d), slice(wq, l, d * d), slice(wk, l, kv * d),
                                    slice(wv, l, kv * d), slice(wo, l, d * d), slice(rms_ffn, l, d),
                                    slice(w1, l, h * d), slice(w2, l, d * h), slice(w3, l, h * d)});
  }
  w.rms_final = r.floats(d);
  r.skip(c.seq_len * c.head_size() * static_cast<int64_t>(sizeof(float)));  // freq_cis_real, freq_cis_imag
  if (!shared) w.wcls = r.floats(c.vocab_size * d);
  return w;
}

}  // namespace custody::workloads::llama
