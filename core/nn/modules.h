// Copyright 2026 The custody Authors.
//
// core/nn/modules.h — Linear, Embedding, RMSNorm, LayerNorm, ReLU, SiLU and Sequential,
// written once for every policy and backend.
//
//   nn::VarStore<T> vs;
//   nn::Sequential<T> mlp;
//   mlp.add<nn::Linear<T>>(vs, "fc1", 784, 256);
//   mlp.add<nn::ReLU<T>>();
//   mlp.add<nn::Linear<T>>(vs, "fc2", 256, 10);
//   T logits = mlp.forward(x);   // a fresh handle; every intermediate already given back
//
// Like TorchSharp's modules, a module's parameters live in a VarStore and the
// module holds handles to them (see var_store.h); `forward` returns a fresh
// handle the caller owns per its policy's idiom, and gives back every
// temporary it made itself with custody::release (G3) as soon as it is dead,
// so library code leaves nothing for the caller's scope, `disposing`, `free`
// or collector. Shapes follow PyTorch: Linear's weight is [out, in] and
// `forward(x) = x @ weight.t() + bias` for x of shape [..., in] (rank <= 3).

#ifndef CUSTODY_CORE_NN_MODULES_H_
#define CUSTODY_CORE_NN_MODULES_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/temporary.h"
#include "core/nn/var_store.h"
#include "core/tensor.h"

namespace custody::nn {

template <AnyTensor T>
class Module {
 public:
  virtual ~Module() = default;
  // A fresh handle to the output; `x` is untouched.
  virtual T forward(const T& x) const = 0;
};

// y = x @ weight.t() + bias; weight [out, in] ~ U(-1/sqrt(in), 1/sqrt(in)) as
// torch.nn.Linear, bias the same (if any). Parameters: "<name>.weight", "<name>.bias".
template <AnyTensor T>
class Linear : public Module<T> {
 public:
  Linear(VarStore<T>& vs, const std::string& name, int64_t in, int64_t out, bool bias = true) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    weight_ = vs.uniform(name + ".weight", std::vector<int64_t>{out, in}, bound);
    if (bias) bias_ = vs.uniform(name + ".bias", std::vector<int64_t>{out}, bound);
    has_bias_ = bias;
  }
  // Uses parameters that exist already (e.g. loaded from a checkpoint).
  Linear(T weight, std::optional<T> bias) : weight_(std::move(weight)), has_bias_(bias.has_value()) {
    if (bias) bias_ = std::move(*bias);
  }
  // The same without a bias. (With std::nullopt converted to an optional, GCC's
  // -Wmaybe-uninitialized at -O1 took the move above for a read of the empty one.)
  Linear(T weight, std::nullopt_t) : weight_(std::move(weight)), has_bias_(false) {}

  T forward(const T& x) const override {
    const CategoryScope activation(MemoryCategory::kActivation);
    Temporary<T> wt = weight_.t();
    Temporary<T> y = x.matmul(*wt);
    if (!has_bias_) return y.take();
    return y->add(bias_);
  }

  const T& weight() const { return weight_; }
  const T& bias() const { return bias_; }  // only if has_bias()
  bool has_bias() const { return has_bias_; }
  int64_t in_features() const { return weight_.size(1); }
  int64_t out_features() const { return weight_.size(0); }

 private:
  T weight_, bias_;
  bool has_bias_ = false;
};

// Rows of weight [num, dim] ~ N(0, 1) (torch.nn.Embedding) for int64 indices.
template <AnyTensor T>
class Embedding : public Module<T> {
 public:
  Embedding(VarStore<T>& vs, const std::string& name, int64_t num, int64_t dim)
      : weight_(vs.randn(name + ".weight", std::vector<int64_t>{num, dim}, 1.0)) {}
  explicit Embedding(T weight) : weight_(std::move(weight)) {}
  T forward(const T& indices) const override {
    const CategoryScope activation(MemoryCategory::kActivation);
    return custody::embedding(weight_, indices);
  }
  const T& weight() const { return weight_; }

 private:
  T weight_;
};

// y = x * rsqrt(mean(x², -1) + eps) * weight over the last dim (Llama's RMSNorm);
// weight [dim] starts at ones.
template <AnyTensor T>
class RMSNorm : public Module<T> {
 public:
  RMSNorm(VarStore<T>& vs, const std::string& name, int64_t dim, double eps = 1e-5)
      : weight_(vs.ones(name + ".weight", std::vector<int64_t>{dim})), eps_(eps) {}
  RMSNorm(T weight, double eps) : weight_(std::move(weight)), eps_(eps) {}

  T forward(const T& x) const override {
    const CategoryScope activation(MemoryCategory::kActivation);
    Temporary<T> inv = [&] {
      Temporary<T> sq = x.mul(x);
      Temporary<T> ms = sq->mean(-1, /*keepdim=*/true);
      Temporary<T> shifted = ms->add(eps_);
      return shifted->rsqrt();
    }();
    Temporary<T> normed = x.mul(*inv);
    return normed->mul(weight_);
  }
  const T& weight() const { return weight_; }

 private:
  T weight_;
  double eps_;
};

// y = (x - mean(x, -1)) * rsqrt(var(x, -1) + eps) * weight + bias over the last
// dim (torch.nn.LayerNorm(dim), the biased variance); weight [dim] starts at
// ones, bias [dim] at zeros.
template <AnyTensor T>
class LayerNorm : public Module<T> {
 public:
  LayerNorm(VarStore<T>& vs, const std::string& name, int64_t dim, double eps = 1e-5)
      : weight_(vs.ones(name + ".weight", std::vector<int64_t>{dim})),
        bias_(vs.zeros(name + ".bias", std::vector<int64_t>{dim})),
        eps_(eps) {}
  LayerNorm(T weight, T bias, double eps) : weight_(std::move(weight)), bias_(std::move(bias)), eps_(eps) {}

  T forward(const T& x) const override {
    const CategoryScope activation(MemoryCategory::kActivation);
    Temporary<T> centered = [&] {
      Temporary<T> mean = x.mean(-1, /*keepdim=*/true);
      return x.sub(*mean);
    }();
    Temporary<T> inv = [&] {
      Temporary<T> sq = centered->mul(*centered);
      Temporary<T> var = sq->mean(-1, /*keepdim=*/true);
      Temporary<T> shifted = var->add(eps_);
      return shifted->rsqrt();
    }();
    Temporary<T> normed = centered->mul(*inv);
    Temporary<T> scaled = normed->mul(weight_);
    return scaled->add(bias_);
  }
  const T& weight() const { return weight_; }
  const T& bias() const { return bias_; }

 private:
  T weight_;
  T bias_;
  double eps_;
};

template <AnyTensor T>
class ReLU : public Module<T> {
 public:
  T forward(const T& x) const override {
    const CategoryScope activation(MemoryCategory::kActivation);
    return x.relu();
  }
};

template <AnyTensor T>
class SiLU : public Module<T> {
 public:
  T forward(const T& x) const override {
    const CategoryScope activation(MemoryCategory::kActivation);
    return x.silu();
  }
};

// Runs its modules in order; each intermediate output is given back as soon as
// the next module has consumed it (TorchSharp's Sequential).
template <AnyTensor T>
class Sequential : public Module<T> {
 public:
  template <class M, class... Args>
  M& add(Args&&... args) {
    auto m = std::make_unique<M>(std::forward<Args>(args)...);
    M& ref = *m;
    modules_.push_back(std::move(m));
    return ref;
  }
  T forward(const T& x) const override {
    if (modules_.empty()) return x.alias();
    T cur = modules_.front()->forward(x);
    for (size_t i = 1; i < modules_.size(); ++i) {
      Temporary<T> prev = std::move(cur);
      cur = modules_[i]->forward(*prev);
    }
    return cur;
  }
  size_t size() const { return modules_.size(); }
  const Module<T>& operator[](size_t i) const { return *modules_[i]; }

 private:
  std::vector<std::unique_ptr<Module<T>>> modules_;
};

}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_MODULES_H_
