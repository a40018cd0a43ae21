// Copyright 2026 The custody Authors.
//
// core/nn/training.h — what a model trained by the tape (core/autograd) needs
// beyond the modules: the cross-entropy over class indices and dropout on the
// Philox streams, both written with tracked ops so `loss.backward()` reaches
// through them.
//
//   T logits = head.forward(x);                        // [batch, classes]
//   T loss = nn::cross_entropy_loss(logits, targets);       // targets: int64 [batch]
//   T h = nn::dropout(x, /*p=*/0.1, /*training=*/true);
//
// Each returns a fresh handle the caller owns and gives back its own
// temporaries; bad input is a typed custody::Error naming the function.

#ifndef CUSTODY_CORE_NN_TRAINING_H_
#define CUSTODY_CORE_NN_TRAINING_H_

#include <cstdint>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/temporary.h"
#include "core/tensor.h"

namespace custody::nn {

// The mean over the batch of -log softmax(logits)[target] (torch's
// F.cross_entropy with class indices, reduction "mean"). logits: a floating
// [batch, classes]; targets: integer [batch], each in [0, classes).
template <AnyTensor T>
T cross_entropy_loss(const T& logits, const T& targets) {
  if (logits.dim() != 2 || !is_floating_point(logits.scalar_type())) {
    throw ShapeError(absl::StrFormat(
        "cross_entropy_loss: expected floating logits [batch, classes] but got %s of %s",
        dtype_name(logits.scalar_type()), shape_str(logits.sizes())));
  }
  if (is_floating_point(targets.scalar_type()) || targets.scalar_type() == ScalarType::Bool) {
    throw DTypeError(absl::StrFormat("cross_entropy_loss: expected integer class indices but got %s targets",
                                     dtype_name(targets.scalar_type())));
  }
  const int64_t batch = logits.size(0), classes = logits.size(1);
  if (targets.dim() != 1 || targets.size(0) != batch) {
    throw ShapeError(absl::StrFormat("cross_entropy_loss: expected targets [%d] for logits %s but got %s", batch,
                                     shape_str(logits.sizes()), shape_str(targets.sizes())));
  }
  if (batch == 0) throw ShapeError("cross_entropy_loss: the mean over an empty batch is undefined");
  {
    Temporary<T> lo = targets.min();
    Temporary<T> hi = targets.max();
    const int64_t low = lo->template item<int64_t>(), high = hi->template item<int64_t>();
    if (low < 0 || high >= classes) {
      throw InvalidArgument(absl::StrFormat("cross_entropy_loss: target %d is out of bounds for %d classes",
                                            low < 0 ? low : high, classes));
    }
  }
  Temporary<T> logp = logits.log_softmax(1);
  Temporary<T> picked = [&] {
    Temporary<T> column = targets.reshape({-1, 1});
    Temporary<T> range = T::arange(Scalar(classes), targets.scalar_type());
    Temporary<T> hit = column->eq(*range);
    Temporary<T> one_hot = hit->to(logits.scalar_type());
    return logp->mul(*one_hot);
  }();
  Temporary<T> total = picked->sum();
  return total->div(-static_cast<double>(batch));
}

// Zeroes each element of `x` with probability p and scales the rest by
// 1 / (1 - p) while training (torch's F.dropout); the identity (another
// handle to x) when not training or p == 0. The mask is T::rand's next
// Philox stream, so a seed (custody::manual_seed) gives the same mask on every
// backend and policy.
template <AnyTensor T>
T dropout(const T& x, double p, bool training) {
  if (!(p >= 0.0 && p < 1.0)) {
    throw InvalidArgument(absl::StrFormat("dropout: probability has to be in [0, 1) but got %g", p));
  }
  if (!training || p == 0.0) return x.alias();
  Temporary<T> keep = [&] {
    Temporary<T> u = T::rand(x.sizes(), x.scalar_type());
    Temporary<T> kept = u->ge(p);
    Temporary<T> mask = kept->to(x.scalar_type());
    return mask->mul(1.0 / (1.0 - p));
  }();
  return x.mul(*keep);
}

}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_TRAINING_H_
