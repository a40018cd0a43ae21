// Copyright 2026 The custody Authors.
//
// workloads/libtorch_tensor.h — plain libtorch behind custody's method names:
// `LibtorchTensor` is one at::Tensor (libtorch's own reference count, nothing
// else), so an own workload's generic body (workloads/generic.h) also runs as
// plain libtorch code, the compare tool's peer, without being written twice.
// Only the methods below exist: a body that uses others compiles against the
// policies and names the missing one here.
//
//   LibtorchTensor x = LibtorchTensor::from_vector(data, {64, 256});
//   LibtorchTensor y = x.matmul(w);           // at::matmul
//   float v = y.mean().item<float>();
//
// No ATen header here: the tensor is held as its c10::TensorImpl pointer with
// one reference (libtorch_tensor.cc is the one translation unit with ATen).

#ifndef CUSTODY_WORKLOADS_LIBTORCH_TENSOR_H_
#define CUSTODY_WORKLOADS_LIBTORCH_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/shape.h"

namespace custody::workloads {

class LibtorchTensor {
 public:
  LibtorchTensor() = default;
  LibtorchTensor(const LibtorchTensor& other);
  LibtorchTensor(LibtorchTensor&& other) noexcept : impl_(std::exchange(other.impl_, nullptr)) {}
  LibtorchTensor& operator=(LibtorchTensor other) noexcept {
    std::swap(impl_, other.impl_);
    return *this;
  }
  ~LibtorchTensor();

  // float32 tensors, as custody's makers (from_vector copies).
  static LibtorchTensor from_vector(const std::vector<float>& data, IntSpan sizes);
  static LibtorchTensor zeros(IntSpan sizes);
  static LibtorchTensor ones(IntSpan sizes);
  static LibtorchTensor randn(IntSpan sizes);
  static LibtorchTensor rand(IntSpan sizes);
  static LibtorchTensor scalar(double value);

  LibtorchTensor matmul(const LibtorchTensor& other) const;
  LibtorchTensor add(const LibtorchTensor& other) const;
  LibtorchTensor add(double other) const;
  LibtorchTensor sub(const LibtorchTensor& other) const;
  LibtorchTensor sub(double other) const;
  LibtorchTensor mul(const LibtorchTensor& other) const;
  LibtorchTensor mul(double other) const;
  LibtorchTensor div(const LibtorchTensor& other) const;
  LibtorchTensor div(double other) const;
  LibtorchTensor relu() const;
  LibtorchTensor silu() const;
  LibtorchTensor tanh() const;
  LibtorchTensor sigmoid() const;
  LibtorchTensor exp() const;
  LibtorchTensor log() const;
  LibtorchTensor neg() const;
  LibtorchTensor sqrt() const;
  LibtorchTensor rsqrt() const;
  LibtorchTensor gt(double other) const;
  LibtorchTensor t() const;
  LibtorchTensor transpose(int64_t a, int64_t b) const;
  LibtorchTensor reshape(IntSpan sizes) const;
  LibtorchTensor sum() const;
  LibtorchTensor sum(int64_t dim, bool keepdim = false) const;
  LibtorchTensor mean() const;
  LibtorchTensor mean(int64_t dim, bool keepdim = false) const;
  LibtorchTensor argmax(int64_t dim) const;
  LibtorchTensor softmax(int64_t dim) const;
  LibtorchTensor log_softmax(int64_t dim) const;
  // In place; each returns another reference to this tensor, as custody's.
  LibtorchTensor add_(const LibtorchTensor& other) const;
  LibtorchTensor sub_(const LibtorchTensor& other) const;
  LibtorchTensor mul_(const LibtorchTensor& other) const;
  LibtorchTensor mul_(double other) const;
  LibtorchTensor copy_(const LibtorchTensor& other) const;

  // Autograd, libtorch's own (the peer of a body that calls backward()).
  const LibtorchTensor& requires_grad_(bool requires_grad = true) const;
  bool requires_grad() const;
  void backward() const;
  LibtorchTensor grad() const;  // an empty handle before any backward
  void reset_grad() const;
  LibtorchTensor detach() const;

  template <class V>
  V item() const;  // float, double, int64_t
  int64_t numel() const;
  int64_t dim() const;
  int64_t size(int64_t d) const;
  bool defined() const { return impl_ != nullptr; }

 private:
  friend struct LibtorchTensorAccess;  // libtorch_tensor.cc
  explicit LibtorchTensor(void* impl) : impl_(impl) {}
  void* impl_ = nullptr;  // a c10::TensorImpl holding one reference for this handle
};

// The parameters of a Model run as plain libtorch: what nn::VarStore is for
// custody's tensors (the same makers), a vector of tensors.
class LibtorchParams {
 public:
  LibtorchTensor from_vector(std::string name, const std::vector<float>& data, IntSpan sizes);
  LibtorchTensor zeros(std::string name, IntSpan sizes);
  LibtorchTensor ones(std::string name, IntSpan sizes);
  LibtorchTensor randn(std::string name, IntSpan sizes, double stddev);
  LibtorchTensor uniform(std::string name, IntSpan sizes, double bound);
  size_t size() const { return values_.size(); }
  // As nn::VarStore's.
  void requires_grad_(bool requires_grad = true) const;
  void zero_grad() const;

 private:
  LibtorchTensor add(std::string name, LibtorchTensor value);
  std::vector<std::string> names_;
  std::vector<LibtorchTensor> values_;
};

// libtorch's inference mode (no autograd bookkeeping), as its peers run, for
// one step of a body that does not call backward().
class LibtorchInferenceMode {
 public:
  LibtorchInferenceMode();
  ~LibtorchInferenceMode();
  LibtorchInferenceMode(const LibtorchInferenceMode&) = delete;
  LibtorchInferenceMode& operator=(const LibtorchInferenceMode&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// libtorch's NoGradGuard (at::NoGradGuard), for a body's parameter updates.
class LibtorchNoGradGuard {
 public:
  LibtorchNoGradGuard();
  ~LibtorchNoGradGuard();
  LibtorchNoGradGuard(const LibtorchNoGradGuard&) = delete;
  LibtorchNoGradGuard& operator=(const LibtorchNoGradGuard&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace custody::workloads

#endif  // CUSTODY_WORKLOADS_LIBTORCH_TENSOR_H_
