// Copyright 2026 The custody Authors.
//
// workloads/llama/llama_libtorch.cc — the decoding of llama.h in plain
// libtorch, as a libtorch user would write it (same weights, same RoPE
// tables, same KV cache layout): the compare tool's peer. The only
// translation unit of the workload that includes ATen.

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <memory>
#include <vector>

#include "workloads/llama/llama.h"

namespace custody::workloads::llama {
namespace {

at::Tensor tensor_of(const std::vector<float>& v, std::vector<int64_t> sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

class LibtorchGenerator final : public Generator {
 public:
  explicit LibtorchGenerator(const LlamaWeights& w) : c_(w.config) {
    c10::InferenceMode guard;
    const LlamaConfig& c = c_;
    embedding_ = tensor_of(w.token_embedding, {c.vocab_size, c.dim});
    for (const LayerWeights& lw : w.layers) {
      layers_.push_back(Layer{tensor_of(lw.rms_att, {c.dim}), tensor_of(lw.wq, {c.dim, c.dim}),
                              tensor_of(lw.wk, {c.kv_dim(), c.dim}), tensor_of(lw.wv, {c.kv_dim(), c.dim}),
                              tensor_of(lw.wo, {c.dim, c.dim}), tensor_of(lw.rms_ffn, {c.dim}),
                              tensor_of(lw.w1, {c.hidden_dim, c.dim}), tensor_of(lw.w2, {c.dim, c.hidden_dim}),
                              tensor_of(lw.w3, {c.hidden_dim, c.dim}), at::zeros({c.seq_len, c.kv_dim()}),
                              at::zeros({c.seq_len, c.kv_dim()})});
    }
    rms_final_ = tensor_of(w.rms_final, {c.dim});
    wcls_ = w.wcls.empty() ? embedding_ : tensor_of(w.wcls, {c.vocab_size, c.dim});
    const int64_t half = c.head_size() / 2;
    std::vector<float> cos_t(static_cast<size_t>(c.seq_len * half)), sin_t(cos_t.size());
    for (int64_t pos = 0; pos < c.seq_len; ++pos) {
      for (int64_t i = 0; i < half; ++i) {
        const float freq = 1.0f / std::pow(10000.0f, static_cast<float>(2 * i) / static_cast<float>(c.head_size()));
        cos_t[static_cast<size_t>(pos * half + i)] = std::cos(static_cast<float>(pos) * freq);
        sin_t[static_cast<size_t>(pos * half + i)] = std::sin(static_cast<float>(pos) * freq);
      }
    }
    cos_ = tensor_of(cos_t, {c.seq_len, half});
    sin_ = tensor_of(sin_t, {c.seq_len, half});
  }

  void step() override {
    c10::InferenceMode guard;
    const LlamaConfig& c = c_;
    const int64_t pos = next_position(c), hs = c.head_size(), len = pos + 1;
    const int64_t kv_mul = c.n_heads / c.n_kv_heads;
    at::Tensor x = embedding_.index_select(0, at::full({1}, tokens_.back(), at::kLong));
    for (const Layer& l : layers_) {
      const at::Tensor xb = rmsnorm(x, l.rms_att);
      const at::Tensor q = rope(at::matmul(xb, l.wq.t()), c.n_heads, pos);
      l.k_cache.narrow(0, pos, 1).copy_(rope(at::matmul(xb, l.wk.t()), c.n_kv_heads, pos));
      l.v_cache.narrow(0, pos, 1).copy_(at::matmul(xb, l.wv.t()));
      at::Tensor keys = l.k_cache.narrow(0, 0, len).view({len, c.n_kv_heads, hs}).permute({1, 2, 0});
      at::Tensor values = l.v_cache.narrow(0, 0, len).view({len, c.n_kv_heads, hs}).permute({1, 0, 2});
      if (kv_mul > 1) {
        keys = keys.repeat_interleave(kv_mul, 0);
        values = values.repeat_interleave(kv_mul, 0);
      }
      const at::Tensor att = at::softmax(at::matmul(q.view({c.n_heads, 1, hs}), keys) / std::sqrt(double(hs)), -1);
      x = x + at::matmul(at::matmul(att, values).reshape({1, c.dim}), l.wo.t());
      const at::Tensor xb2 = rmsnorm(x, l.rms_ffn);
      x = x + at::matmul(at::silu(at::matmul(xb2, l.w1.t())) * at::matmul(xb2, l.w3.t()), l.w2.t());
    }
    const at::Tensor logits = at::matmul(rmsnorm(x, rms_final_), wcls_.t());
    tokens_.push_back(logits.argmax(-1).item<int64_t>());
  }

  void finish() override { layers_.clear(); }

 private:
  struct Layer {
    at::Tensor rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, k_cache, v_cache;
  };
  static at::Tensor rmsnorm(const at::Tensor& x, const at::Tensor& w) {
    return x * at::rsqrt((x * x).mean({-1}, /*keepdim=*/true) + 1e-5) * w;
  }
  at::Tensor rope(const at::Tensor& v, int64_t heads, int64_t pos) const {
    const int64_t half = c_.head_size() / 2;
    const at::Tensor pairs = v.view({heads, half, 2});
    const at::Tensor v0 = pairs.select(2, 0), v1 = pairs.select(2, 1);
    const at::Tensor cs = cos_.select(0, pos), sn = sin_.select(0, pos);
    return at::stack({v0 * cs - v1 * sn, v0 * sn + v1 * cs}, 2).reshape({1, heads * c_.head_size()});
  }

  LlamaConfig c_;
  at::Tensor embedding_, rms_final_, wcls_, cos_, sin_;
  std::vector<Layer> layers_;
};

}  // namespace

std::unique_ptr<Generator> make_libtorch_generator(const LlamaWeights& weights) {
  return std::make_unique<LibtorchGenerator>(weights);
}

}  // namespace custody::workloads::llama
