// Copyright 2026 The custody Authors.
//
// workloads/train/train_libtorch.cc — the training of train.h in libtorch, as
// a libtorch user writes it: requires_grad parameters, the model in ATen ops,
// loss.backward(), torch::optim::AdamW, the gradients set to None; the
// pathologies (train.h) as a torch user writes them. The dropout
// masks are the Philox streams custody's T::rand would draw (core/philox.h),
// in the same order, so the losses agree step by step. The compare tool's
// peer, and the only translation unit of the workload that includes libtorch.

#include <ATen/ATen.h>
#include <torch/optim/adamw.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/philox.h"
#include "core/random.h"
#include "workloads/train/train.h"

namespace custody::workloads::train {
namespace {

at::Tensor tensor_of(const std::vector<float>& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<float*>(v.data()), sizes, at::kFloat).clone();
}

at::Tensor indices_of(const std::vector<int64_t>& v, at::IntArrayRef sizes) {
  return at::from_blob(const_cast<int64_t*>(v.data()), sizes, at::kLong).clone();
}

class LibtorchTrainer final : public Trainer {
 public:
  explicit LibtorchTrainer(const TrainData& d) : d_(d) {
    const TrainConfig& c = d.config;
    const llama::LlamaWeights& w = d.weights;
    manual_seed(c.seed);
    const auto param = [&](const std::vector<float>& v, at::IntArrayRef sizes) {
      params_.push_back(tensor_of(v, sizes).requires_grad_());
      return params_.back();
    };
    embedding_ = param(w.token_embedding, {c.vocab, c.dim});
    for (const llama::LayerWeights& lw : w.layers) {
      layers_.push_back(Layer{param(lw.rms_att, {c.dim}), param(lw.wq, {c.dim, c.dim}),
                              param(lw.wk, {c.dim, c.dim}), param(lw.wv, {c.dim, c.dim}),
                              param(lw.wo, {c.dim, c.dim}), param(lw.rms_ffn, {c.dim}),
                              param(lw.w1, {c.hidden_dim, c.dim}), param(lw.w2, {c.dim, c.hidden_dim}),
                              param(lw.w3, {c.hidden_dim, c.dim})});
    }
    final_norm_ = param(w.rms_final, {c.dim});
    classifier_ = param(w.wcls, {c.vocab, c.dim});
    const int64_t half = c.head_size() / 2;
    rope_cos_ = tensor_of(d.rope_cos, {1, c.seq, 1, half});
    rope_sin_ = tensor_of(d.rope_sin, {1, c.seq, 1, half});
    mask_ = tensor_of(d.causal_mask, {c.seq, c.seq});
    const nn::AdamWOptions& o = c.adamw;
    optimizer_ = std::make_unique<torch::optim::AdamW>(
        params_, torch::optim::AdamWOptions(o.lr).betas({o.beta1, o.beta2}).eps(o.eps).weight_decay(o.weight_decay));
  }

  void step() override {
    const TrainConfig& c = d_.config;
    if (c.pathology == Pathology::kScopedGrads) {  // gradient accumulation over the micro-batches
      double total = 0;
      for (int64_t k = 0; k < c.micro_batches; ++k) {
        const at::Tensor loss = batch_loss(step_ * c.micro_batches + k);
        total += loss.item<float>();
        (loss / static_cast<double>(c.micro_batches)).backward();
      }
      loss_ = total / static_cast<double>(c.micro_batches);
    } else {
      if (c.pathology == Pathology::kCreateGraph) zero_grad();  // clear, backward, step
      const at::Tensor loss = batch_loss(step_);
      loss_ = loss.item<float>();
      if (c.pathology == Pathology::kKeepLoss) {
        running_ = running_.defined() ? running_ + loss : loss;
        loss.backward();
      } else if (c.pathology == Pathology::kCreateGraph) {
        loss.backward({}, c10::nullopt, /*create_graph=*/true);
        at::Tensor penalty = at::zeros({});
        for (const at::Tensor& p : params_) penalty = penalty + (p.grad() * p.grad()).sum();
        (penalty * c.penalty).backward();
      } else {
        loss.backward();
      }
    }
    optimizer_->step();
    if (c.pathology != Pathology::kCreateGraph) zero_grad();
    ++step_;
  }

  void finish() override {
    running_ = at::Tensor();
    zero_grad();
    optimizer_.reset();
    layers_.clear();
    params_.clear();
    embedding_ = final_norm_ = classifier_ = rope_cos_ = rope_sin_ = mask_ = at::Tensor();
  }

 private:
  void zero_grad() {
    for (at::Tensor& p : params_) p.mutable_grad().reset();
  }
  at::Tensor batch_loss(int64_t index) const {
    const TrainConfig& c = d_.config;
    const Batch b = d_.batch(index);
    return loss_of(indices_of(b.inputs, {c.batch, c.seq}), indices_of(b.targets, {c.batch, c.seq}));
  }

  struct Layer {
    at::Tensor attention_norm, wq, wk, wv, wo, ffn_norm, w1, w2, w3;
  };

  static at::Tensor linear(const at::Tensor& x, const at::Tensor& w) { return at::matmul(x, w.t()); }
  static at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w) {
    return x * at::rsqrt((x * x).mean(-1, /*keepdim=*/true) + 1e-5) * w;
  }

  // custody's nn::dropout on T::rand's next stream: keep where u >= p, scale by 1 / (1 - p).
  at::Tensor dropout(const at::Tensor& x) const {
    const double p = d_.config.dropout;
    if (p == 0) return x;
    const internal::RandomStream s = internal::next_random_stream();
    std::vector<float> keep(static_cast<size_t>(x.numel()));
    const float scale = static_cast<float>(1.0 / (1.0 - p));
    for (size_t i = 0; i < keep.size(); ++i) {
      const auto u = static_cast<float>(philox::uniform01(philox::bits(s.seed, s.offset, i)));
      keep[i] = u >= p ? scale : 0.f;
    }
    return x * tensor_of(keep, x.sizes());
  }

  at::Tensor rope(const at::Tensor& v) const {
    const TrainConfig& c = d_.config;
    const at::Tensor pairs = v.view({c.batch, c.seq, c.n_heads, c.head_size() / 2, 2});
    const at::Tensor v0 = pairs.select(4, 0), v1 = pairs.select(4, 1);
    return at::stack({v0 * rope_cos_ - v1 * rope_sin_, v0 * rope_sin_ + v1 * rope_cos_}, 4)
        .reshape({c.batch, c.seq, c.n_heads, c.head_size()});
  }

  at::Tensor attention(const Layer& l, const at::Tensor& xb) const {
    const TrainConfig& c = d_.config;
    const auto heads = [&](const at::Tensor& w, bool rotate) {
      at::Tensor split = linear(xb, w).view({c.batch, c.seq, c.n_heads, c.head_size()});
      return (rotate ? rope(split) : split).permute({0, 2, 1, 3});
    };
    const at::Tensor q = heads(l.wq, true), k = heads(l.wk, true), v = heads(l.wv, false);
    const at::Tensor scores = at::matmul(q, k.transpose(2, 3)) * (1.0 / std::sqrt(static_cast<double>(c.head_size())));
    const at::Tensor att = at::softmax(scores + mask_, -1);
    return linear(at::matmul(att, v).permute({0, 2, 1, 3}).reshape({c.batch, c.seq, c.dim}), l.wo);
  }

  at::Tensor loss_of(const at::Tensor& inputs, const at::Tensor& targets) const {
    const TrainConfig& c = d_.config;
    at::Tensor x = at::embedding(embedding_, inputs);
    for (const Layer& l : layers_) {
      const at::Tensor h = x + dropout(attention(l, rms_norm(x, l.attention_norm)));
      const at::Tensor xb = rms_norm(h, l.ffn_norm);
      x = h + dropout(linear(at::silu(linear(xb, l.w1)) * linear(xb, l.w3), l.w2));
    }
    const at::Tensor logits = linear(rms_norm(x, final_norm_), classifier_).reshape({c.batch * c.seq, c.vocab});
    return at::nll_loss(at::log_softmax(logits, 1), targets.reshape({-1}));
  }

  const TrainData& d_;
  std::vector<at::Tensor> params_;
  at::Tensor embedding_, final_norm_, classifier_, rope_cos_, rope_sin_, mask_;
  std::vector<Layer> layers_;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  at::Tensor running_;  // keep_loss
};

}  // namespace

std::unique_ptr<Trainer> make_libtorch_trainer(const TrainData& data) {
  return std::make_unique<LibtorchTrainer>(data);
}

}  // namespace custody::workloads::train
