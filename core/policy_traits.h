// Copyright 2026 The custody Authors.
//
// core/policy_traits.h — what policy-generic library code (core/nn, the
// workloads) needs to know about an ownership policy beyond its handle.
//
//   template <AnyTensor T>
//   class Store {
//     HandleVector<T> params_;                      // handles kept on the heap
//     void add(T t) {
//       PolicyTraits<typename T::policy_type>::persist(t);  // out of any dispose scope
//       params_.push_back(t);
//     }
//   };
//
// The defaults fit tensor_ptr, dispose and manual. A policy specialises
// PolicyTraits in its own header, deriving from DefaultPolicyTraits:
//  * gc: handles on the heap live in gc::vector, where the collector sees them;
//  * scope: `persist` detaches from the dispose scope, `Unscoped` allows
//    creating tensors with no scope open (for long-lived state such as
//    parameters, created before any step scope exists).

#ifndef CUSTODY_CORE_POLICY_TRAITS_H_
#define CUSTODY_CORE_POLICY_TRAITS_H_

#include <concepts>
#include <utility>
#include <vector>

#include "core/refcount.h"
#include "core/tensor_impl.h"

namespace custody {

namespace internal {
// Stands in for BasicTensor when a policy's handle template is named in a concept.
struct PolicyProbe;
}  // namespace internal

// What an ownership policy provides (core/tensor.h, docs/design.md §5): a name
// and `template <class Derived> class Handle`, the CRTP base of BasicTensor,
// with what core calls on it: a default handle, the adopting constructor
// (wraps a fresh +1 reference), `checked_impl(op)` (the TensorImpl, or a
// LifetimeError naming op) and `release_reference()` (G3). BasicTensor<Policy,
// Backend> requires it, and each policy checks itself with
// `static_assert(OwnershipPolicy<Policy>)` beside its definition, so a policy
// that misses a piece fails there, not deep inside core/tensor.h.
template <class P>
concept OwnershipPolicy =
    requires {
      { P::name } -> std::convertible_to<const char*>;
      typename P::template Handle<internal::PolicyProbe>;
    } &&
    std::default_initializable<typename P::template Handle<internal::PolicyProbe>> &&
    std::constructible_from<typename P::template Handle<internal::PolicyProbe>, AdoptTag, ImplRef> &&
    requires(typename P::template Handle<internal::PolicyProbe>& h, const char* op) {
      { std::as_const(h).checked_impl(op) } -> std::same_as<const TensorImpl&>;
      h.release_reference();
    };

struct DefaultPolicyTraits {
  // Where handles kept on the heap (outside local variables) live.
  template <class T>
  using vector = std::vector<T>;
  // RAII: while alive, tensors may be created on this thread outside any
  // construct the policy would otherwise require (a dispose scope).
  struct Unscoped {};
  // Makes `t` owned by its handles alone, outside any dispose scope, so it
  // outlives the construct it was created in (a parameter, a cache).
  template <class T>
  static void persist(const T& /*t*/) {}
};

template <class Policy>
struct PolicyTraits : DefaultPolicyTraits {};

template <class T>
using HandleVector = typename PolicyTraits<typename T::policy_type>::template vector<T>;

}  // namespace custody

#endif  // CUSTODY_CORE_POLICY_TRAITS_H_
