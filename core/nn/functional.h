// Copyright 2026 The custody Authors.
//
// core/nn/functional.h — the hand-written backward of the MLP pieces, a
// softmax cross-entropy, and in-place SGD, for every policy and backend
// (custody has no autograd).
//
//   T logits = model.forward(x);                                  // fc1 -> relu -> fc2
//   nn::LossAndGrad<T> l = nn::cross_entropy(logits, y_onehot);   // mean over the batch
//   nn::LinearGrads<T> g2 = nn::linear_backward(fc2, a, l.grad);  // d/d(fc2 params), d/da
//   T dh = nn::relu_backward(mask, g2.input);                    // mask = nn::relu_mask(h)
//   nn::LinearGrads<T> g1 = nn::linear_backward(fc1, x, dh, /*input_grad=*/false);
//   nn::sgd_(fc1, g1, lr);                                        // w -= lr * dw, in place
//
// Every function returns fresh handles the caller owns and gives back each
// temporary of its own (core/nn/temporary.h). Gradients handed to `sgd_` are
// consumed: given back after the update.

#ifndef CUSTODY_CORE_NN_FUNCTIONAL_H_
#define CUSTODY_CORE_NN_FUNCTIONAL_H_

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/nn/modules.h"
#include "core/nn/temporary.h"
#include "core/tensor.h"

namespace custody::nn {

template <AnyTensor T>
struct LossAndGrad {
  float loss;  // the mean loss
  T grad;      // d loss / d input
};

// Mean softmax cross-entropy of `logits` [batch, classes] against one-hot (or
// probability) targets of the same shape, and its gradient
// (softmax(logits) - targets) / batch.
template <AnyTensor H, class T = TensorOf<H>>
LossAndGrad<T> cross_entropy(const H& logits, const TensorOf<H>& targets) {
  if (logits.dim() != 2 || targets.dim() != 2 || logits.size(0) != targets.size(0) ||
      logits.size(1) != targets.size(1)) {
    throw ShapeError(absl::StrFormat(
        "cross_entropy: expected logits [batch, classes] and targets of the same shape, but got "
        "%s and %s", shape_str(logits.sizes()), shape_str(targets.sizes())));
  }
  const double inv_batch = 1.0 / static_cast<double>(logits.size(0));
  Temporary<T> logp = logits.log_softmax(1);
  float loss = 0;
  {
    Temporary<T> ylogp = targets.mul(*logp);
    Temporary<T> total = ylogp->sum();
    loss = static_cast<float>(-total->template item<float>() * inv_batch);
  }
  const CategoryScope gradient(MemoryCategory::kGradient);  // for a memory history (core/stats.h)
  Temporary<T> p = logp->exp();
  Temporary<T> diff = p->sub(targets);
  return LossAndGrad<T>{loss, diff->mul(inv_batch)};
}

// The fraction of rows whose argmax over logits [batch, classes] equals the
// argmax of targets (one-hot).
template <AnyTensor H, class T = TensorOf<H>>
double accuracy(const H& logits, const TensorOf<H>& targets) {
  Temporary<T> pred = logits.argmax(1);
  Temporary<T> want = targets.argmax(1);
  Temporary<T> same = pred->eq(*want);
  Temporary<T> as_float = same->to(ScalarType::Float);
  Temporary<T> mean = as_float->mean();
  return mean->template item<float>();
}

template <AnyTensor T>
struct LinearGrads {
  T weight;  // d loss / d weight [out, in]
  T bias;    // d loss / d bias [out] (if the layer has one)
  T input;   // d loss / d x [batch, in] (if asked for)
  bool has_bias = false;
  bool has_input = false;
};

// Gradients of y = x @ w.t() + b for x [batch, in] given dy = d loss / d y [batch, out]:
// dw = dy.t() @ x, db = dy.sum(0), dx = dy @ w.
template <AnyTensor T>
LinearGrads<T> linear_backward(const Linear<T>& layer, const std::type_identity_t<T>& x,
                               const std::type_identity_t<T>& dy, bool input_grad = true) {
  if (x.dim() != 2 || dy.dim() != 2) {
    throw ShapeError(absl::StrFormat(
        "linear_backward: expected x [batch, in] and dy [batch, out], but got %s and %s",
        shape_str(x.sizes()), shape_str(dy.sizes())));
  }
  const CategoryScope gradient(MemoryCategory::kGradient);
  Temporary<T> dw = [&] {
    Temporary<T> dy_t = dy.t();
    return dy_t->matmul(x);
  }();
  std::optional<Temporary<T>> db, dx;  // given back if a later op throws
  if (layer.has_bias()) db.emplace(dy.sum(0));
  if (input_grad) dx.emplace(dy.matmul(layer.weight()));
  LinearGrads<T> g;
  g.weight = dw.take();
  if (db) {
    g.bias = db->take();
    g.has_bias = true;
  }
  if (dx) {
    g.input = dx->take();
    g.has_input = true;
  }
  return g;
}

// What relu's backward needs from its input `pre`: the bool mask pre > 0, a
// quarter of pre's bytes (float32). Keep it instead of `pre` from the forward.
template <AnyTensor H, class T = TensorOf<H>>
T relu_mask(const H& pre) {
  const CategoryScope activation(MemoryCategory::kActivation);  // saved for the backward
  return pre.gt(0.0);
}

// d loss / d pre = dy where mask (pre > 0), else 0. `where` with a 0-dim zero,
// not `dy * mask`: float * bool would first copy the mask into a float tensor
// as large as dy.
template <AnyTensor H, class T = TensorOf<H>>
T relu_backward(const H& mask, const TensorOf<H>& dy) {
  if (mask.scalar_type() != ScalarType::Bool) {
    throw DTypeError(absl::StrFormat("relu_backward: expected the bool mask of relu_mask(pre), but got %s",
                                     dtype_name(mask.scalar_type())));
  }
  const CategoryScope gradient(MemoryCategory::kGradient);
  Temporary<T> zero = T::scalar(0.0, dy.scalar_type());
  return custody::where(mask, dy, *zero);
}

// param -= lr * grad, in place; `grad` is scaled in place and given back.
template <AnyTensor T>
void sgd_(const T& param, T& grad, double lr) {
  const CategoryScope optimizer(MemoryCategory::kOptimizerState);  // what it makes is its state
  Temporary<T> g = std::move(grad);
  { Temporary<T> scaled = g->mul_(lr); }
  Temporary<T> updated = param.sub_(*g);
}

// SGD on a Linear layer's parameters with its gradients (consumed; `input` is left).
template <AnyTensor T>
void sgd_(const Linear<T>& layer, LinearGrads<T>& g, double lr) {
  sgd_(layer.weight(), g.weight, lr);
  if (g.has_bias) sgd_(layer.bias(), g.bias, lr);
}

}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_FUNCTIONAL_H_
