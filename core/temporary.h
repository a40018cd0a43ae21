// Copyright 2026 The custody Authors.
//
// core/temporary.h — `Temporary<T>`: a handle given back with
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

#ifndef CUSTODY_CORE_TEMPORARY_H_
#define CUSTODY_CORE_TEMPORARY_H_

#include <utility>

// Included by core/tensor.h (autograd's formulas use it); T is a BasicTensor.

namespace custody {

template <class T>
class Temporary {
 public:
  Temporary(T t) : t_(std::move(t)) {}  // NOLINT: implicit, so `Temporary<T> y = x.op();`
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  ~Temporary() {
    if (armed_) t_.release();
  }

  const T& operator*() const { return t_; }
  const T* operator->() const { return &t_; }
  operator const T&() const { return t_; }  // NOLINT: pass where a `const T&` is expected

  // Gives the current handle back and holds `t` instead.
  void reset(T t) {
    T old = std::exchange(t_, std::move(t));
    if (armed_) old.release();
    armed_ = true;
  }

  // The handle, no longer released here: the caller owns the reference.
  T take() {
    armed_ = false;
    return std::move(t_);
  }

 private:
  T t_;
  bool armed_ = true;
};

template <class T>
Temporary(T) -> Temporary<T>;

}  // namespace custody

#endif  // CUSTODY_CORE_TEMPORARY_H_
