// Copyright 2026 The custody Authors.
//
// core/nn/temporary.h — `Temporary<T>`: a handle given back with
// custody::release (G3) when it goes out of scope, on every path, exceptions
// included. Policy-generic library code holds its intermediates in these:
//
//   Temporary<T> wt = weight.t();
//   Temporary<T> y = x.matmul(*wt);
//   return y->add(bias);          // wt and y are released here, or if add throws
//   return y.take();              // or: hand y to the caller instead
//
// Under tensor_ptr this is what the handle does anyway; under dispose, scope,
// manual and gc it gives the reference back now instead of at the end of the
// caller's `disposing` block, scope, `free` or the next collection.

#ifndef CUSTODY_CORE_NN_TEMPORARY_H_
#define CUSTODY_CORE_NN_TEMPORARY_H_

#include <utility>

#include "core/tensor.h"

namespace custody::nn {

template <AnyTensor T>
class Temporary {
 public:
  Temporary(T t) : t_(std::move(t)) {}  // NOLINT: implicit, so `Temporary<T> y = x.op();`
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  ~Temporary() {
    if (armed_) custody::release(t_);
  }

  const T& operator*() const { return t_; }
  const T* operator->() const { return &t_; }
  operator const T&() const { return t_; }  // NOLINT: pass where a `const T&` is expected

  // The handle, no longer released here: the caller owns the reference.
  T take() {
    armed_ = false;
    return std::move(t_);
  }

 private:
  T t_;
  bool armed_ = true;
};

template <AnyTensor T>
Temporary(T) -> Temporary<T>;

}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_TEMPORARY_H_
