// Copyright 2026 The custody Authors.
//
// core/nn/var_store.h — `VarStore<T>`: named parameters owned outside any
// dispose scope (ocaml-torch's var store; the parameters of TorchSharp's
// modules), for every policy.
//
//   nn::VarStore<T> vs;                               // no scope needed, even under scope
//   T w = vs.randn("fc1.weight", {256, 784}, 0.05);   // a handle to the stored parameter
//   ...                                               // steps update w in place (w.sub_(...))
//   vs.clear();                                       // or ~VarStore: every parameter given back
//
// What the store does per policy (core/policy_traits.h):
//  * it holds one handle per parameter in a HandleVector (gc::vector under gc,
//    so the collector sees the parameters wherever the store lives);
//  * creating a parameter needs no dispose scope, and a parameter created while
//    one is open leaves it (scope);
//  * `clear()` and the destructor give every stored reference back with
//    custody::release, so parameters never wait for a collector.
// Handles returned by the store are copies of the stored one with the policy's
// copy semantics (a shared reference under tensor_ptr, the same alias under
// dispose/gc/scope, the same reference under manual): never release them; the
// store does. Using one after `clear()` is a LifetimeError (except under
// tensor_ptr, where a returned handle keeps its tensor alive).

#ifndef CUSTODY_CORE_NN_VAR_STORE_H_
#define CUSTODY_CORE_NN_VAR_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/policy_traits.h"
#include "core/stats.h"
#include "core/tensor.h"

namespace custody::nn {

template <AnyTensor T>
class VarStore {
  using Traits = PolicyTraits<typename T::policy_type>;

 public:
  VarStore() = default;
  VarStore(const VarStore&) = delete;
  VarStore& operator=(const VarStore&) = delete;
  ~VarStore() { clear(); }

  // Stores `value` (takes over its reference) under `name`; returns a handle to it.
  T add(std::string name, T value) {
    if (index_of(name) >= 0) {
      custody::release(value);  // nothing leaks on the error path
      throw InvalidArgument(absl::StrFormat("VarStore::add: a parameter named '%s' exists already", name));
    }
    Traits::persist(value);
    names_.push_back(std::move(name));
    values_.push_back(std::move(value));
    return values_.back();
  }

  // Parameter factories (Philox streams seeded by custody::manual_seed).
  T randn(std::string name, IntSpan sizes, double stddev) {
    return make(std::move(name), [&] {
      T n = T::randn(sizes);
      T scaled = n.mul(stddev);
      custody::release(n);
      return scaled;
    });
  }
  // Uniform in [-bound, bound).
  T uniform(std::string name, IntSpan sizes, double bound) {
    return make(std::move(name), [&] {
      T u = T::rand(sizes);
      T centered = u.sub(0.5);
      T scaled = centered.mul(2.0 * bound);
      custody::release(u);
      custody::release(centered);
      return scaled;
    });
  }
  T zeros(std::string name, IntSpan sizes) {
    return make(std::move(name), [&] { return T::zeros(sizes); });
  }
  T ones(std::string name, IntSpan sizes) {
    return make(std::move(name), [&] { return T::ones(sizes); });
  }
  T from_vector(std::string name, const std::vector<float>& data, IntSpan sizes) {
    return make(std::move(name), [&] { return T::from_vector(data, sizes); });
  }

  // The parameter named `name`; InvalidArgument naming the known ones if absent.
  T get(std::string_view name) const {
    const int64_t i = index_of(name);
    if (i < 0) {
      std::string known;
      for (const std::string& n : names_) known += (known.empty() ? "" : ", ") + n;
      throw InvalidArgument(absl::StrFormat("VarStore::get: no parameter named '%s' (have: %s)",
                                            name, known.empty() ? "none" : known));
    }
    return values_[static_cast<size_t>(i)];
  }
  bool contains(std::string_view name) const { return index_of(name) >= 0; }

  size_t size() const { return values_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  // Total number of elements over all parameters.
  int64_t num_elements() const {
    int64_t n = 0;
    for (const T& v : values_) n += v.numel();
    return n;
  }

  // Marks every parameter as requiring grad (or not): backward then
  // accumulates into each one's grad().
  void requires_grad_(bool requires_grad = true) const {
    for (const T& v : values_) v.requires_grad_(requires_grad);
  }
  // Clears the parameters' gradients before the next backward: drops them
  // (set_to_none, PyTorch's default since 2.0) or zeroes them in place.
  void zero_grad(bool set_to_none = true) const {
    for (const T& v : values_) {
      if (set_to_none) {
        v.reset_grad();
        continue;
      }
      T grad = v.grad();
      if (!grad.defined()) continue;
      Temporary<T> g = std::move(grad);
      NoGradGuard no_grad;
      Temporary<T> z = g->zero_();
    }
  }

  // Gives every parameter back: a parameter nobody else holds goes, with its
  // gradient and, for one made by backward(create_graph=true), the gradient's
  // graph (Note [The graph never holds a tensor that has meta]).
  void clear() {
    const HeldBy held("the VarStore");  // for a memory history (Note [Held by], core/stats.h)
    for (T& v : values_) custody::release(v);
    values_.clear();
    names_.clear();
  }

 private:
  template <class Fn>
  T make(std::string name, Fn fn) {
    [[maybe_unused]] typename Traits::Unscoped allow;
    const CategoryScope parameter(MemoryCategory::kParameter);  // for a memory history (core/stats.h)
    return add(std::move(name), fn());
  }
  int64_t index_of(std::string_view name) const {
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return static_cast<int64_t>(i);
    }
    return -1;
  }

  std::vector<std::string> names_;
  HandleVector<T> values_;
};

}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_VAR_STORE_H_
