// Copyright 2026 The custody Authors.
//
// workloads/train/train.h — the `train` workload: a llama-shaped transformer
// language model (the llama workload's blocks: RMSNorm, rotary position
// embeddings, causal multi-head attention, SwiGLU; here over a whole sequence
// at once) trained on a seeded token stream with AdamW, its gradients taken
// by the tape (core/autograd), dropout on the Philox streams.
//
//   const train::TrainData data = train::make_data({});
//   train::HandleTrainer<tensor_ptr::Policy, Onednn> trainer(data);
//   for (int i = 0; i < 20; ++i) trainer.step();   // one batch each
//   double loss = trainer.metric();                  // the last step's
//
// The model (TrainModel) is policy-generic library code: its `loss` gives back
// every handle it makes and returns the recorded loss, whose graph holds what
// backward needs. The weights are llama::random_weights of a small config, so
// every policy, backend and the libtorch peer (torch's autograd and
// torch::optim::AdamW) train the same model on the same batches with the same
// dropout masks: the losses agree step by step.

#ifndef CUSTODY_WORKLOADS_TRAIN_TRAIN_H_
#define CUSTODY_WORKLOADS_TRAIN_TRAIN_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_format.h"
#include "core/nn/modules.h"
#include "core/nn/optim.h"
#include "core/nn/training.h"
#include "core/nn/var_store.h"
#include "core/policy_traits.h"
#include "core/temporary.h"
#include "core/tensor.h"
#include "workloads/llama/llama.h"
#include "workloads/workload.h"

namespace custody::workloads::train {

// The graph pathologies the systems custody learned from ran into, as
// variants of the training step (docs/autograd.md, "The pathologies"):
enum class Pathology {
  kNone,
  // A running total of the losses kept across steps without detach() (pytorch
  // #4890): the total's graph reaches every step's loss.
  kKeepLoss,
  // A gradient penalty: backward(create_graph=true), then penalty * sum(g²)
  // over the parameters' gradients backward again (pytorch #4661), the
  // gradients cleared at the start of the next step, as torch users write it:
  // between steps each gradient holds a graph that holds its parameter.
  kCreateGraph,
  // Gradient accumulation over micro-batches, each forward and backward in a
  // region of its own (a dispose scope under scope), the parameters and the
  // optimizer outside, the step after the regions ended (TorchSharp
  // #1057/#1197).
  kScopedGrads,
};
// "none", "keep_loss", "create_graph", "scoped_grads".
const char* pathology_name(Pathology p);

struct TrainConfig {
  int64_t vocab = 128;
  int64_t dim = 64;
  int64_t hidden_dim = 176;
  int64_t n_layers = 2;
  int64_t n_heads = 4;
  int64_t seq = 64;
  int64_t batch = 8;
  double dropout = 0.1;
  nn::AdamWOptions adamw{.lr = 3e-3};
  uint32_t seed = 1;            // weights, the token stream and the dropout masks
  int64_t stream_length = 1 << 14;
  Pathology pathology = Pathology::kNone;
  double penalty = 1e-2;         // create_graph: the weight of sum(g²)
  int64_t micro_batches = 2;     // scoped_grads: micro-batches of `batch` rows per step
  int64_t head_size() const { return dim / n_heads; }
  llama::LlamaConfig model() const {
    return {.dim = dim, .hidden_dim = hidden_dim, .n_layers = n_layers, .n_heads = n_heads,
            .n_kv_heads = n_heads, .vocab_size = vocab, .seq_len = seq};
  }
};

// One batch: inputs and the next tokens (the targets), each [batch, seq] row-major.
struct Batch {
  std::vector<int64_t> inputs, targets;
};

struct TrainData {
  TrainConfig config;
  llama::LlamaWeights weights;
  std::vector<int64_t> stream;             // the token stream batches are cut from
  std::vector<float> rope_cos, rope_sin;   // [seq, head_size / 2]
  std::vector<float> causal_mask;          // [seq, seq]: 0 at and below the diagonal, -inf above
  // The batch of step `step`: windows of seq + 1 tokens at seeded offsets.
  Batch batch(int64_t step) const;
};

// The config validated (InvalidArgument naming the field), the weights, a
// stream from a seeded Markov chain (each token has a few likely successors,
// so there is something to learn), the RoPE tables and the mask.
TrainData make_data(const TrainConfig& config);

// The transformer on tensors of type T. Parameters live in `vs` (outside any
// dispose scope); the RoPE tables and the mask in a store of their own that
// never requires grad.
template <AnyTensor T>
class TrainModel {
 public:
  explicit TrainModel(const TrainData& d) : c_(d.config) {
    const TrainConfig& c = c_;
    const llama::LlamaWeights& w = d.weights;
    const auto param = [&](const std::string& name, const std::vector<float>& v, std::vector<int64_t> sizes) {
      return vs.from_vector(name, v, sizes);
    };
    const auto linear = [&](const std::string& name, const std::vector<float>& v, int64_t out, int64_t in) {
      return nn::Linear<T>(param(name, v, {out, in}), std::nullopt);
    };
    embedding_ = param("tok_embeddings.weight", w.token_embedding, {c.vocab, c.dim});
    layers_.reserve(w.layers.size());
    for (size_t l = 0; l < w.layers.size(); ++l) {
      const llama::LayerWeights& lw = w.layers[l];
      const std::string p = absl::StrFormat("layers.%d.", l);
      layers_.push_back(Layer{
          nn::RMSNorm<T>(param(p + "attention_norm.weight", lw.rms_att, {c.dim}), kEps),
          linear(p + "attention.wq.weight", lw.wq, c.dim, c.dim),
          linear(p + "attention.wk.weight", lw.wk, c.dim, c.dim),
          linear(p + "attention.wv.weight", lw.wv, c.dim, c.dim),
          linear(p + "attention.wo.weight", lw.wo, c.dim, c.dim),
          nn::RMSNorm<T>(param(p + "ffn_norm.weight", lw.rms_ffn, {c.dim}), kEps),
          linear(p + "feed_forward.w1.weight", lw.w1, c.hidden_dim, c.dim),
          linear(p + "feed_forward.w2.weight", lw.w2, c.dim, c.hidden_dim),
          linear(p + "feed_forward.w3.weight", lw.w3, c.hidden_dim, c.dim),
      });
    }
    final_norm_ = std::make_unique<nn::RMSNorm<T>>(param("norm.weight", w.rms_final, {c.dim}), kEps);
    classifier_ = std::make_unique<nn::Linear<T>>(linear("output.weight", w.wcls, c.vocab, c.dim));
    const int64_t half = c.head_size() / 2;
    rope_cos_ = buffers_.from_vector("rope.cos", d.rope_cos, std::vector<int64_t>{1, c.seq, 1, half});
    rope_sin_ = buffers_.from_vector("rope.sin", d.rope_sin, std::vector<int64_t>{1, c.seq, 1, half});
    mask_ = buffers_.from_vector("causal_mask", d.causal_mask, std::vector<int64_t>{c.seq, c.seq});
  }

  // The mean next-token cross-entropy of a batch (inputs, targets: int64
  // [batch, seq]), recorded while grad mode is on.
  T loss(const T& inputs, const T& targets) const {
    const TrainConfig& c = c_;
    T x = custody::embedding(embedding_, inputs);  // [batch, seq, dim]
    for (const Layer& layer : layers_) {
      Temporary<T> prev = std::move(x);
      x = block(layer, *prev);
    }
    Temporary<T> last = std::move(x);
    Temporary<T> normed = final_norm_->forward(*last);
    Temporary<T> logits = classifier_->forward(*normed);  // [batch, seq, vocab]
    Temporary<T> flat = logits->reshape({c.batch * c.seq, c.vocab});
    Temporary<T> flat_targets = targets.reshape({-1});
    return nn::cross_entropy_loss(*flat, *flat_targets);
  }

  nn::VarStore<T> vs;  // the parameters

 private:
  static constexpr double kEps = 1e-5;

  struct Layer {
    nn::RMSNorm<T> attention_norm;
    nn::Linear<T> wq, wk, wv, wo;
    nn::RMSNorm<T> ffn_norm;
    nn::Linear<T> w1, w2, w3;
  };

  // Rotates pairs (2i, 2i+1) of each head of v [batch, seq, heads, head_size]
  // by position * freq_i (the llama workload's rope, for every position at once).
  T rope(const T& v) const {
    const TrainConfig& c = c_;
    const int64_t half = c.head_size() / 2;
    Temporary<T> pairs = v.view({c.batch, c.seq, c.n_heads, half, 2});
    Temporary<T> v0 = pairs->select(4, 0), v1 = pairs->select(4, 1);  // [batch, seq, heads, half]
    const auto combine = [](const T& a, const T& ca, const T& b, const T& cb, bool minus) {
      Temporary<T> l = a.mul(ca), r = b.mul(cb);
      Temporary<T> sum = minus ? l->sub(*r) : l->add(*r);
      return sum->unsqueeze(4);
    };
    HandleVector<T> parts;
    absl::Cleanup release_parts = [&parts] {
      for (T& p : parts) custody::release(p);
    };
    parts.push_back(combine(*v0, rope_cos_, *v1, rope_sin_, /*minus=*/true));   // v0 cos - v1 sin
    parts.push_back(combine(*v0, rope_sin_, *v1, rope_cos_, /*minus=*/false));  // v0 sin + v1 cos
    Temporary<T> rotated = custody::cat(parts, 4);
    return rotated->reshape({c.batch, c.seq, c.n_heads, c.head_size()});
  }

  // Causal self-attention of xb [batch, seq, dim]: [batch, seq, dim].
  T attention(const Layer& layer, const T& xb) const {
    const TrainConfig& c = c_;
    const int64_t hs = c.head_size();
    const auto heads = [&](const nn::Linear<T>& w, bool rotate) {  // [batch, heads, seq, head_size]
      Temporary<T> raw = w.forward(xb);
      Temporary<T> split = raw->view({c.batch, c.seq, c.n_heads, hs});
      if (!rotate) return split->permute({0, 2, 1, 3});
      Temporary<T> rotated = rope(*split);
      return rotated->permute({0, 2, 1, 3});
    };
    Temporary<T> q = heads(layer.wq, true), k = heads(layer.wk, true), v = heads(layer.wv, false);
    Temporary<T> att = [&] {
      Temporary<T> kt = k->transpose(2, 3);
      Temporary<T> scores = q->matmul(*kt);  // [batch, heads, seq, seq]
      Temporary<T> scaled = scores->mul(1.0 / std::sqrt(static_cast<double>(hs)));
      Temporary<T> masked = scaled->add(mask_);
      return masked->softmax(-1);
    }();
    Temporary<T> o = att->matmul(*v);  // [batch, heads, seq, head_size]
    Temporary<T> back = o->permute({0, 2, 1, 3});
    Temporary<T> merged = back->reshape({c.batch, c.seq, c.dim});
    return layer.wo.forward(*merged);
  }

  T block(const Layer& layer, const T& x) const {
    const double p = c_.dropout;
    Temporary<T> h = [&] {
      Temporary<T> xb = layer.attention_norm.forward(x);
      Temporary<T> att = attention(layer, *xb);
      Temporary<T> dropped = nn::dropout(*att, p, /*training=*/true);
      return x.add(*dropped);
    }();
    Temporary<T> ffn = [&] {
      Temporary<T> xb = layer.ffn_norm.forward(*h);
      Temporary<T> gate = [&] {
        Temporary<T> h1 = layer.w1.forward(*xb);
        return h1->silu();
      }();
      Temporary<T> up = layer.w3.forward(*xb);
      Temporary<T> act = gate->mul(*up);  // SwiGLU
      Temporary<T> out = layer.w2.forward(*act);
      return nn::dropout(*out, p, /*training=*/true);
    }();
    return h->add(*ffn);
  }

  TrainConfig c_;
  nn::VarStore<T> buffers_;  // RoPE tables and the causal mask: no grad
  T embedding_;
  std::vector<Layer> layers_;
  std::unique_ptr<nn::RMSNorm<T>> final_norm_;
  std::unique_ptr<nn::Linear<T>> classifier_;
  T rope_cos_, rope_sin_, mask_;
};

// What every policy's trainer offers (besides Runner): the last step's loss
// as its metric and, as a figure, the graph nodes alive beyond those alive
// when it was made (what a kept graph holds besides tensors).
class Trainer : public Runner {
 public:
  double metric() override { return loss_; }
  std::vector<Figure> figures() const override {
    return {{"graph_nodes_held", static_cast<double>(autograd::live_nodes() - nodes_at_start_)}};
  }

 protected:
  double loss_ = 0;
  int64_t step_ = 0;
  int64_t nodes_at_start_ = autograd::live_nodes();
};

// The tracked loss of `batch` (d.batch(index)) on m, made in T's policy.
template <AnyTensor T>
T batch_loss(const TrainModel<T>& m, const TrainData& d, int64_t index) {
  const TrainConfig& c = d.config;
  const Batch b = d.batch(index);
  Temporary<T> inputs = T::from_vector(b.inputs, {c.batch, c.seq});
  Temporary<T> targets = T::from_vector(b.targets, {c.batch, c.seq});
  return m.loss(*inputs, *targets);
}

// create_graph's penalty: weight * the sum over the parameters' gradients of
// sum(g²), recorded (the gradients hold the graph of the first backward).
template <AnyTensor T>
T gradient_penalty(const nn::VarStore<T>& vs, double weight) {
  Temporary<T> total = T::scalar(0.0, ScalarType::Float);
  for (const std::string& name : vs.names()) {
    Temporary<T> g = vs.get(name).grad();
    if (!g->defined()) continue;
    Temporary<T> g2 = g->mul(*g);
    Temporary<T> s = g2->sum();
    total.reset(total->add(*s));
  }
  return total->mul(weight);
}

// The same training in libtorch (train_libtorch.cc): torch's autograd and
// torch::optim::AdamW, the same dropout masks. The compare tool's peer.
std::unique_ptr<Trainer> make_libtorch_trainer(const TrainData& data);

}  // namespace custody::workloads::train

#endif  // CUSTODY_WORKLOADS_TRAIN_TRAIN_H_
