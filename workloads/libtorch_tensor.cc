// Copyright 2026 The custody Authors.

#include "workloads/libtorch_tensor.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <stdexcept>

namespace custody::workloads {

struct LibtorchTensorAccess {
  static at::Tensor get(const LibtorchTensor& t) {
    if (t.impl_ == nullptr) throw std::invalid_argument("LibtorchTensor: an empty handle");
    // Borrow: a new reference for the returned at::Tensor.
    auto* impl = static_cast<c10::TensorImpl*>(t.impl_);
    return at::Tensor(c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::reclaim_copy(impl));
  }
  static LibtorchTensor make(at::Tensor t) { return LibtorchTensor(t.unsafeReleaseTensorImpl()); }
  static void release(void* impl) {
    if (impl != nullptr) {
      c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::reclaim(static_cast<c10::TensorImpl*>(impl));
    }
  }
};

namespace {
using A = LibtorchTensorAccess;
at::Tensor get(const LibtorchTensor& t) { return A::get(t); }
LibtorchTensor wrap(at::Tensor t) { return A::make(std::move(t)); }
at::IntArrayRef ref(IntSpan s) { return at::IntArrayRef(s.data(), s.size()); }
}  // namespace

LibtorchTensor::LibtorchTensor(const LibtorchTensor& other) : impl_(nullptr) {
  if (other.impl_ != nullptr) impl_ = A::get(other).unsafeReleaseTensorImpl();
}
LibtorchTensor::~LibtorchTensor() { A::release(impl_); }

LibtorchTensor LibtorchTensor::from_vector(const std::vector<float>& data, IntSpan sizes) {
  return wrap(at::from_blob(const_cast<float*>(data.data()), ref(sizes), at::kFloat).clone());
}
LibtorchTensor LibtorchTensor::zeros(IntSpan sizes) { return wrap(at::zeros(ref(sizes), at::kFloat)); }
LibtorchTensor LibtorchTensor::ones(IntSpan sizes) { return wrap(at::ones(ref(sizes), at::kFloat)); }
LibtorchTensor LibtorchTensor::randn(IntSpan sizes) { return wrap(at::randn(ref(sizes), at::kFloat)); }
LibtorchTensor LibtorchTensor::rand(IntSpan sizes) { return wrap(at::rand(ref(sizes), at::kFloat)); }
LibtorchTensor LibtorchTensor::scalar(double value) { return wrap(at::scalar_tensor(value, at::kFloat)); }

LibtorchTensor LibtorchTensor::matmul(const LibtorchTensor& o) const { return wrap(at::matmul(get(*this), get(o))); }
LibtorchTensor LibtorchTensor::add(const LibtorchTensor& o) const { return wrap(at::add(get(*this), get(o))); }
LibtorchTensor LibtorchTensor::add(double o) const { return wrap(at::add(get(*this), o)); }
LibtorchTensor LibtorchTensor::sub(const LibtorchTensor& o) const { return wrap(at::sub(get(*this), get(o))); }
LibtorchTensor LibtorchTensor::sub(double o) const { return wrap(at::sub(get(*this), o)); }
LibtorchTensor LibtorchTensor::mul(const LibtorchTensor& o) const { return wrap(at::mul(get(*this), get(o))); }
LibtorchTensor LibtorchTensor::mul(double o) const { return wrap(at::mul(get(*this), o)); }
LibtorchTensor LibtorchTensor::div(const LibtorchTensor& o) const { return wrap(at::div(get(*this), get(o))); }
LibtorchTensor LibtorchTensor::div(double o) const { return wrap(at::div(get(*this), o)); }
LibtorchTensor LibtorchTensor::relu() const { return wrap(at::relu(get(*this))); }
LibtorchTensor LibtorchTensor::silu() const { return wrap(at::silu(get(*this))); }
LibtorchTensor LibtorchTensor::tanh() const { return wrap(at::tanh(get(*this))); }
LibtorchTensor LibtorchTensor::sigmoid() const { return wrap(at::sigmoid(get(*this))); }
LibtorchTensor LibtorchTensor::exp() const { return wrap(at::exp(get(*this))); }
LibtorchTensor LibtorchTensor::log() const { return wrap(at::log(get(*this))); }
LibtorchTensor LibtorchTensor::neg() const { return wrap(at::neg(get(*this))); }
LibtorchTensor LibtorchTensor::sqrt() const { return wrap(at::sqrt(get(*this))); }
LibtorchTensor LibtorchTensor::rsqrt() const { return wrap(at::rsqrt(get(*this))); }
LibtorchTensor LibtorchTensor::gt(double o) const { return wrap(at::gt(get(*this), o)); }
LibtorchTensor LibtorchTensor::t() const { return wrap(get(*this).t()); }
LibtorchTensor LibtorchTensor::transpose(int64_t a, int64_t b) const { return wrap(get(*this).transpose(a, b)); }
LibtorchTensor LibtorchTensor::reshape(IntSpan sizes) const { return wrap(get(*this).reshape(ref(sizes))); }
LibtorchTensor LibtorchTensor::sum() const { return wrap(at::sum(get(*this))); }
LibtorchTensor LibtorchTensor::sum(int64_t dim, bool keepdim) const {
  return wrap(at::sum(get(*this), {dim}, keepdim));
}
LibtorchTensor LibtorchTensor::mean() const { return wrap(at::mean(get(*this))); }
LibtorchTensor LibtorchTensor::mean(int64_t dim, bool keepdim) const {
  return wrap(at::mean(get(*this), {dim}, keepdim));
}
LibtorchTensor LibtorchTensor::argmax(int64_t dim) const { return wrap(at::argmax(get(*this), dim)); }
LibtorchTensor LibtorchTensor::softmax(int64_t dim) const { return wrap(at::softmax(get(*this), dim)); }
LibtorchTensor LibtorchTensor::log_softmax(int64_t dim) const { return wrap(at::log_softmax(get(*this), dim)); }
LibtorchTensor LibtorchTensor::add_(const LibtorchTensor& o) const { return wrap(get(*this).add_(get(o))); }
LibtorchTensor LibtorchTensor::sub_(const LibtorchTensor& o) const { return wrap(get(*this).sub_(get(o))); }
LibtorchTensor LibtorchTensor::mul_(const LibtorchTensor& o) const { return wrap(get(*this).mul_(get(o))); }
LibtorchTensor LibtorchTensor::mul_(double o) const { return wrap(get(*this).mul_(o)); }
LibtorchTensor LibtorchTensor::copy_(const LibtorchTensor& o) const { return wrap(get(*this).copy_(get(o))); }

const LibtorchTensor& LibtorchTensor::requires_grad_(bool requires_grad) const {
  get(*this).requires_grad_(requires_grad);
  return *this;
}
bool LibtorchTensor::requires_grad() const { return get(*this).requires_grad(); }
void LibtorchTensor::backward() const { get(*this).backward(); }
LibtorchTensor LibtorchTensor::grad() const {
  const at::Tensor g = get(*this).grad();
  return g.defined() ? wrap(g) : LibtorchTensor();
}
void LibtorchTensor::reset_grad() const { get(*this).mutable_grad().reset(); }
LibtorchTensor LibtorchTensor::detach() const { return wrap(get(*this).detach()); }

template <class V>
V LibtorchTensor::item() const {
  return get(*this).item<V>();
}
template float LibtorchTensor::item<float>() const;
template double LibtorchTensor::item<double>() const;
template int64_t LibtorchTensor::item<int64_t>() const;

int64_t LibtorchTensor::numel() const { return get(*this).numel(); }
int64_t LibtorchTensor::dim() const { return get(*this).dim(); }
int64_t LibtorchTensor::size(int64_t d) const { return get(*this).size(d); }

LibtorchTensor LibtorchParams::add(std::string name, LibtorchTensor value) {
  names_.push_back(std::move(name));
  values_.push_back(value);
  return value;
}
LibtorchTensor LibtorchParams::from_vector(std::string name, const std::vector<float>& data, IntSpan sizes) {
  return add(std::move(name), LibtorchTensor::from_vector(data, sizes));
}
LibtorchTensor LibtorchParams::zeros(std::string name, IntSpan sizes) {
  return add(std::move(name), LibtorchTensor::zeros(sizes));
}
LibtorchTensor LibtorchParams::ones(std::string name, IntSpan sizes) {
  return add(std::move(name), LibtorchTensor::ones(sizes));
}
LibtorchTensor LibtorchParams::randn(std::string name, IntSpan sizes, double stddev) {
  return add(std::move(name), wrap(at::randn(ref(sizes), at::kFloat).mul_(stddev)));
}
LibtorchTensor LibtorchParams::uniform(std::string name, IntSpan sizes, double bound) {
  return add(std::move(name), wrap(at::rand(ref(sizes), at::kFloat).sub_(0.5).mul_(2 * bound)));
}

void LibtorchParams::requires_grad_(bool requires_grad) const {
  for (const LibtorchTensor& v : values_) v.requires_grad_(requires_grad);
}
void LibtorchParams::zero_grad() const {
  for (const LibtorchTensor& v : values_) v.reset_grad();
}

struct LibtorchNoGradGuard::State {
  at::NoGradGuard guard;
};
LibtorchNoGradGuard::LibtorchNoGradGuard() : state_(std::make_unique<State>()) {}
LibtorchNoGradGuard::~LibtorchNoGradGuard() = default;

struct LibtorchInferenceMode::State {
  c10::InferenceMode mode;
};
LibtorchInferenceMode::LibtorchInferenceMode() : state_(std::make_unique<State>()) {}
LibtorchInferenceMode::~LibtorchInferenceMode() = default;

}  // namespace custody::workloads
