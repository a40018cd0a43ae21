// Copyright 2026 The custody Authors.
//
// core/convert.h — a tensor handed between ownership policies on one backend:
// the boundary where two regimes meet (ocaml-torch's convert_rc_tensor_to_gc,
// TorchSharp's MoveToOuterDisposeScope questions).
//
//   scope::Tensor a = ...;                                  // an activation, in a scope
//   gc::Tensor p = custody::share_as<gc::Policy>(a);         // a second owner: the collector's
//   gc::Tensor q = custody::transfer<gc::Policy>(std::move(a));  // ownership moves; `a` is released
//
// share_as<Q>(t) makes a Q handle that holds a reference of its own on t's
// tensor: both handles stay valid, and each regime gives its own reference
// back its own way (the scope at its end, the collector when it finds the
// alias unreachable, dispose()/free()/reset() by hand). Views made from either
// share the storage, as views within one policy do.
//
// transfer<Q>(std::move(t)) makes the Q handle and then gives t's reference
// back the P way (custody::release: scope leaves its scope, dispose and gc
// dispose the alias, manual frees, tensor_ptr resets), so the tensor now lives
// as long as Q says; using t afterwards is a LifetimeError. transfer<P> from P
// is a no-op but for the handle.
//
// Making the Q handle follows Q's rules: under scope it needs an open dispose
// scope (else LifetimeError, and t is untouched: transfer gives t's reference
// back only once the Q handle holds its own). Ops take operands of one policy;
// convert first.

#ifndef CUSTODY_CORE_CONVERT_H_
#define CUSTODY_CORE_CONVERT_H_

#include <utility>

#include "core/tensor.h"

namespace custody {

template <class Q, class P, class B>
  requires OwnershipPolicy<Q>
BasicTensor<Q, B> share_as(const BasicTensor<P, B>& t) {
  return BasicTensor<Q, B>::adopt(internal::retain(t.checked_impl("share_as")));
}

template <class Q, class P, class B>
  requires OwnershipPolicy<Q>
BasicTensor<Q, B> transfer(BasicTensor<P, B>&& t) {
  BasicTensor<Q, B> out = BasicTensor<Q, B>::adopt(internal::retain(t.checked_impl("transfer")));
  custody::release(t);
  return out;
}

}  // namespace custody

#endif  // CUSTODY_CORE_CONVERT_H_
