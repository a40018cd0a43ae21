// Copyright 2026 The custody Authors.
//
// workloads/llama/llama.h — the `llama` workload: a tiny llama2-architecture
// decoder (RMSNorm, rotary position embeddings, multi-head attention with a
// KV cache, SwiGLU feed-forward; Karpathy's llama2.c, stories15M-sized by
// default) generating tokens greedily, one token per step.
//
//   const llama::LlamaWeights w = llama::random_weights(llama::LlamaConfig{}, /*seed=*/1);
//   // or: llama::load_checkpoint("stories15M.bin")   (llama2.c's legacy .bin format)
//   llama::ScopeGenerator<Onednn> g(w);
//   for (int i = 0; i < 16; ++i) g.step();        // one token each
//   std::vector<int64_t> tokens = g.tokens();     // BOS first
//
// The model (LlamaModel) is policy-generic library code in the manner of
// core/nn: its forward gives back every temporary it makes with
// custody::release and returns the logits. One header per policy holds the
// decoding step in that policy's idiom (what becomes of the logits, the token
// tensor and the argmax). Weights are host vectors (seeded std::mt19937 or a
// checkpoint), so every policy, backend and the libtorch peer decode the same
// model; greedy decoding then yields the same tokens everywhere.

#ifndef CUSTODY_WORKLOADS_LLAMA_LLAMA_H_
#define CUSTODY_WORKLOADS_LLAMA_LLAMA_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "core/convert.h"
#include "core/error.h"
#include "core/nn/modules.h"
#include "core/nn/temporary.h"
#include "core/nn/var_store.h"
#include "core/policy_traits.h"
#include "core/tensor.h"
#include "workloads/workload.h"

namespace custody::workloads::llama {

// llama2.c's Config; the defaults are stories15M's.
struct LlamaConfig {
  int64_t dim = 288;
  int64_t hidden_dim = 768;
  int64_t n_layers = 6;
  int64_t n_heads = 6;
  int64_t n_kv_heads = 6;
  int64_t vocab_size = 32000;
  int64_t seq_len = 256;
  int64_t head_size() const { return dim / n_heads; }
  int64_t kv_dim() const { return head_size() * n_kv_heads; }
};

struct LayerWeights {
  std::vector<float> rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3;  // w*: [out, in] row-major
};

struct LlamaWeights {
  LlamaConfig config;
  std::vector<float> token_embedding;  // [vocab, dim]
  std::vector<LayerWeights> layers;
  std::vector<float> rms_final;        // [dim]
  std::vector<float> wcls;             // [vocab, dim]; empty: shared with token_embedding
};

// Embeddings ~ N(0, 1), linear weights (the classifier too, not shared) ~ N(0, 1/fan_in),
// norms at 1 (std::mt19937 and Box-Muller, identical across standard libraries).
LlamaWeights random_weights(const LlamaConfig& config, uint32_t seed);
// A llama2.c checkpoint (the legacy .bin of run.c: 7 int32 config fields, then
// float32 weights). Validated before anything is allocated (Note [Checkpoint
// validation], llama.cc): InvalidArgument naming the file and the field when
// it is not a regular file, its header is inconsistent, its size does not
// match its header, or it shrinks while read.
LlamaWeights load_checkpoint(const std::string& path);

inline constexpr int64_t kBosToken = 1;

// The transformer, on tensors of type T. Parameters and the KV cache live in
// a VarStore (outside any dispose scope); `forward` gives back its temporaries.
template <AnyTensor T>
class LlamaModel {
 public:
  explicit LlamaModel(const LlamaWeights& w) : c_(w.config) {
    const LlamaConfig& c = c_;
    if (c.dim <= 0 || c.n_heads <= 0 || c.dim % c.n_heads != 0 || c.n_kv_heads <= 0 ||
        c.n_heads % c.n_kv_heads != 0 || c.head_size() % 2 != 0) {
      throw InvalidArgument(absl::StrFormat(
          "LlamaModel: unsupported config dim=%d n_heads=%d n_kv_heads=%d (need dim %% n_heads == 0, "
          "n_heads %% n_kv_heads == 0 and an even head size)", c.dim, c.n_heads, c.n_kv_heads));
    }
    const auto param = [&](const std::string& name, const std::vector<float>& v,
                           std::vector<int64_t> sizes) { return vs_.from_vector(name, v, sizes); };
    embedding_ = param("tok_embeddings.weight", w.token_embedding, {c.vocab_size, c.dim});
    layers_.reserve(w.layers.size());
    for (size_t l = 0; l < w.layers.size(); ++l) {
      const LayerWeights& lw = w.layers[l];
      const std::string p = absl::StrFormat("layers.%d.", l);
      layers_.push_back(Layer{
          nn::RMSNorm<T>(param(p + "attention_norm.weight", lw.rms_att, {c.dim}), kEps),
          nn::Linear<T>(param(p + "attention.wq.weight", lw.wq, {c.dim, c.dim}), std::nullopt),
          nn::Linear<T>(param(p + "attention.wk.weight", lw.wk, {c.kv_dim(), c.dim}), std::nullopt),
          nn::Linear<T>(param(p + "attention.wv.weight", lw.wv, {c.kv_dim(), c.dim}), std::nullopt),
          nn::Linear<T>(param(p + "attention.wo.weight", lw.wo, {c.dim, c.dim}), std::nullopt),
          nn::RMSNorm<T>(param(p + "ffn_norm.weight", lw.rms_ffn, {c.dim}), kEps),
          nn::Linear<T>(param(p + "feed_forward.w1.weight", lw.w1, {c.hidden_dim, c.dim}), std::nullopt),
          nn::Linear<T>(param(p + "feed_forward.w2.weight", lw.w2, {c.dim, c.hidden_dim}), std::nullopt),
          nn::Linear<T>(param(p + "feed_forward.w3.weight", lw.w3, {c.hidden_dim, c.dim}), std::nullopt),
          vs_.zeros(p + "k_cache", std::vector<int64_t>{c.seq_len, c.kv_dim()}),
          vs_.zeros(p + "v_cache", std::vector<int64_t>{c.seq_len, c.kv_dim()}),
      });
    }
    final_norm_ = std::make_unique<nn::RMSNorm<T>>(param("norm.weight", w.rms_final, {c.dim}), kEps);
    classifier_ = std::make_unique<nn::Linear<T>>(
        w.wcls.empty() ? embedding_ : param("output.weight", w.wcls, {c.vocab_size, c.dim}), std::nullopt);
    // RoPE tables [seq_len, head_size / 2], as run.c computes them.
    const int64_t half = c.head_size() / 2;
    std::vector<float> cos_t(static_cast<size_t>(c.seq_len * half)), sin_t(cos_t.size());
    for (int64_t pos = 0; pos < c.seq_len; ++pos) {
      for (int64_t i = 0; i < half; ++i) {
        const float freq = 1.0f / std::pow(10000.0f, static_cast<float>(2 * i) / static_cast<float>(c.head_size()));
        const float val = static_cast<float>(pos) * freq;
        cos_t[static_cast<size_t>(pos * half + i)] = std::cos(val);
        sin_t[static_cast<size_t>(pos * half + i)] = std::sin(val);
      }
    }
    rope_cos_ = param("rope.cos", cos_t, {c.seq_len, half});
    rope_sin_ = param("rope.sin", sin_t, {c.seq_len, half});
  }

  // The same model on `owner`'s parameters and KV cache, every tensor shared
  // into this policy (custody::share_as, core/convert.h): each regime holds
  // its own reference and gives it back its own way. The hybrid llama
  // (hybrid.h) runs the forward of a scope model over a gc model's tensors.
  template <AnyTensor U>
  explicit LlamaModel(const LlamaModel<U>& owner) : c_(owner.c_) {
    [[maybe_unused]] typename PolicyTraits<typename T::policy_type>::Unscoped outside_scopes;
    const auto share = [&](const std::string& name, const U& t) {
      return vs_.add(name, share_as<typename T::policy_type>(t));
    };
    const auto norm = [&](const std::string& name, const nn::RMSNorm<U>& n) {
      return nn::RMSNorm<T>(share(name, n.weight()), kEps);
    };
    const auto linear = [&](const std::string& name, const nn::Linear<U>& l) {
      return nn::Linear<T>(share(name, l.weight()), std::nullopt);
    };
    embedding_ = share("tok_embeddings.weight", owner.embedding_);
    layers_.reserve(owner.layers_.size());
    for (size_t l = 0; l < owner.layers_.size(); ++l) {
      const auto& o = owner.layers_[l];
      const std::string p = absl::StrFormat("layers.%d.", l);
      layers_.push_back(Layer{norm(p + "attention_norm.weight", o.attention_norm), linear(p + "wq", o.wq),
                              linear(p + "wk", o.wk), linear(p + "wv", o.wv), linear(p + "wo", o.wo),
                              norm(p + "ffn_norm.weight", o.ffn_norm), linear(p + "w1", o.w1),
                              linear(p + "w2", o.w2), linear(p + "w3", o.w3), share(p + "k_cache", o.k_cache),
                              share(p + "v_cache", o.v_cache)});
    }
    final_norm_ = std::make_unique<nn::RMSNorm<T>>(norm("norm.weight", *owner.final_norm_));
    classifier_ = std::make_unique<nn::Linear<T>>(linear("output.weight", *owner.classifier_));
    rope_cos_ = share("rope.cos", owner.rope_cos_);
    rope_sin_ = share("rope.sin", owner.rope_sin_);
  }

  const LlamaConfig& config() const { return c_; }
  int64_t num_parameters() const { return vs_.num_elements(); }

  // Logits [1, vocab] for `token` at position `pos` (0-based, < seq_len);
  // writes this position's keys and values into the KV cache.
  T forward(int64_t token, int64_t pos) const {
    const LlamaConfig& c = c_;
    if (pos < 0 || pos >= c.seq_len) {
      throw InvalidArgument(absl::StrFormat("LlamaModel::forward: position %d is outside [0, %d)", pos, c.seq_len));
    }
    if (token < 0 || token >= c.vocab_size) {
      throw InvalidArgument(absl::StrFormat("LlamaModel::forward: token %d is outside [0, %d)", token, c.vocab_size));
    }
    T x = [&] {
      nn::Temporary<T> idx = T::from_vector(std::vector<int64_t>{token});
      return custody::embedding(embedding_, *idx);  // [1, dim]
    }();
    for (const Layer& layer : layers_) {
      nn::Temporary<T> prev = std::move(x);
      x = block(layer, *prev, pos);
    }
    nn::Temporary<T> last = std::move(x);
    nn::Temporary<T> normed = final_norm_->forward(*last);
    return classifier_->forward(*normed);
  }

 private:
  template <AnyTensor U>
  friend class LlamaModel;
  static constexpr double kEps = 1e-5;

  struct Layer {
    nn::RMSNorm<T> attention_norm;
    nn::Linear<T> wq, wk, wv, wo;
    nn::RMSNorm<T> ffn_norm;
    nn::Linear<T> w1, w2, w3;
    T k_cache, v_cache;  // [seq_len, kv_dim]
  };

  // Rotates pairs (2i, 2i+1) of each head of v [1, heads * head_size] by pos * freq_i.
  T rope(const T& v, int64_t heads, int64_t pos) const {
    const int64_t half = c_.head_size() / 2;
    nn::Temporary<T> pairs = v.view({heads, half, 2});
    nn::Temporary<T> v0 = pairs->select(2, 0), v1 = pairs->select(2, 1);  // [heads, half]
    nn::Temporary<T> cs = rope_cos_.select(0, pos), sn = rope_sin_.select(0, pos);  // [half]
    const auto combine = [](const T& a, const T& ca, const T& b, const T& cb, bool minus) {
      nn::Temporary<T> l = a.mul(ca), r = b.mul(cb);
      nn::Temporary<T> sum = minus ? l->sub(*r) : l->add(*r);
      return sum->unsqueeze(2);  // [heads, half, 1]
    };
    HandleVector<T> parts;
    // Released on every way out, an error in the second combine or in cat included.
    absl::Cleanup release_parts = [&parts] {
      for (T& p : parts) custody::release(p);
    };
    parts.push_back(combine(*v0, *cs, *v1, *sn, /*minus=*/true));   // v0 cos - v1 sin
    parts.push_back(combine(*v0, *sn, *v1, *cs, /*minus=*/false));  // v0 sin + v1 cos
    nn::Temporary<T> rotated = custody::cat(parts, 2);  // [heads, half, 2]
    return rotated->reshape({1, heads * c_.head_size()});
  }

  // Keys or values of positions [0, pos] as [n_heads, ...] batches: [n_heads, head_size, T]
  // for keys (transposed), [n_heads, T, head_size] for values; kv heads repeat for grouped queries.
  T cached(const T& cache, int64_t pos, bool keys) const {
    const LlamaConfig& c = c_;
    const int64_t len = pos + 1, hs = c.head_size(), kv_mul = c.n_heads / c.n_kv_heads;
    nn::Temporary<T> rows = cache.narrow(0, 0, len);
    nn::Temporary<T> split = rows->view({len, c.n_kv_heads, hs});
    if (kv_mul == 1) return keys ? split->permute({1, 2, 0}) : split->permute({1, 0, 2});
    nn::Temporary<T> per_head = keys ? split->permute({1, 2, 0}) : split->permute({1, 0, 2});
    nn::Temporary<T> grouped = per_head->unsqueeze(1);
    nn::Temporary<T> repeated = keys ? grouped->expand({c.n_kv_heads, kv_mul, hs, len})
                                     : grouped->expand({c.n_kv_heads, kv_mul, len, hs});
    return keys ? repeated->reshape({c.n_heads, hs, len}) : repeated->reshape({c.n_heads, len, hs});
  }

  T attention(const Layer& layer, const T& xb, int64_t pos) const {
    const LlamaConfig& c = c_;
    const int64_t hs = c.head_size();
    nn::Temporary<T> q = [&] {
      nn::Temporary<T> raw = layer.wq.forward(xb);
      return rope(*raw, c.n_heads, pos);
    }();
    {
      nn::Temporary<T> raw_k = layer.wk.forward(xb);
      nn::Temporary<T> k = rope(*raw_k, c.n_kv_heads, pos);
      nn::Temporary<T> v = layer.wv.forward(xb);
      nn::Temporary<T> k_row = layer.k_cache.narrow(0, pos, 1), v_row = layer.v_cache.narrow(0, pos, 1);
      nn::Temporary<T> k_done = k_row->copy_(*k), v_done = v_row->copy_(*v);
    }
    nn::Temporary<T> keys = cached(layer.k_cache, pos, /*keys=*/true);
    nn::Temporary<T> values = cached(layer.v_cache, pos, /*keys=*/false);
    nn::Temporary<T> qh = q->view({c.n_heads, 1, hs});
    nn::Temporary<T> att = [&] {
      nn::Temporary<T> scores = qh->matmul(*keys);  // [n_heads, 1, pos + 1]
      nn::Temporary<T> scaled = scores->mul(1.0 / std::sqrt(static_cast<double>(hs)));
      return scaled->softmax(-1);
    }();
    nn::Temporary<T> heads = att->matmul(*values);  // [n_heads, 1, head_size]
    nn::Temporary<T> merged = heads->reshape({1, c.dim});
    return layer.wo.forward(*merged);
  }

  T block(const Layer& layer, const T& x, int64_t pos) const {
    nn::Temporary<T> h = [&] {
      nn::Temporary<T> xb = layer.attention_norm.forward(x);
      nn::Temporary<T> att = attention(layer, *xb, pos);
      return x.add(*att);
    }();
    nn::Temporary<T> ffn = [&] {
      nn::Temporary<T> xb = layer.ffn_norm.forward(*h);
      nn::Temporary<T> gate = [&] {
        nn::Temporary<T> h1 = layer.w1.forward(*xb);
        return h1->silu();
      }();
      nn::Temporary<T> up = layer.w3.forward(*xb);
      nn::Temporary<T> act = gate->mul(*up);  // SwiGLU
      return layer.w2.forward(*act);
    }();
    return h->add(*ffn);
  }

  LlamaConfig c_;
  nn::VarStore<T> vs_;
  T embedding_;
  std::vector<Layer> layers_;
  std::unique_ptr<nn::RMSNorm<T>> final_norm_;
  std::unique_ptr<nn::Linear<T>> classifier_;
  T rope_cos_, rope_sin_;
};

// What every policy's generator offers (besides Runner).
class Generator : public Runner {
 public:
  // The tokens so far: BOS, then one per step.
  const std::vector<int64_t>& tokens() const { return tokens_; }
  double metric() override { return static_cast<double>(tokens_.back()); }

 protected:
  // The position of the next step (the last token's), and a guard against
  // running past the model's context.
  int64_t next_position(const LlamaConfig& c) const {
    const int64_t pos = static_cast<int64_t>(tokens_.size()) - 1;
    if (pos >= c.seq_len) {
      throw InvalidArgument(absl::StrFormat("llama: generated %d tokens, the model's context (seq_len)", c.seq_len));
    }
    return pos;
  }
  std::vector<int64_t> tokens_{kBosToken};
};

// The same decoding in plain libtorch (llama_libtorch.cc): the compare tool's peer.
std::unique_ptr<Generator> make_libtorch_generator(const LlamaWeights& weights);

}  // namespace custody::workloads::llama

#endif  // CUSTODY_WORKLOADS_LLAMA_LLAMA_H_
