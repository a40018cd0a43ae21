// Copyright 2026 The custody Authors.
//
// custody/lists/type_list.h — `TypeList<Ts...>` and loops over one, for the
// generated lists of policies and backends (//custody/lists:policies,
// :all_policies, :host_backends, :test_backends, from
// tools/build_defs/flags.bzl), so that code run for every policy is written
// once as a template and a new policy is one list entry:
//
//   for_each_type(AllPolicies{}, [&]<class P>() { run<BasicTensor<P, Onednn>>(); });
//   for_each_tensor<AllPolicies, HostBackends>([&]<class T>() { ... });

#ifndef CUSTODY_CUSTODY_LISTS_TYPE_LIST_H_
#define CUSTODY_CUSTODY_LISTS_TYPE_LIST_H_

#include <array>
#include <cstddef>
#include <string_view>

#include "core/tensor.h"

namespace custody::lists {

template <class... Ts>
struct TypeList {
  static constexpr size_t size = sizeof...(Ts);
};

// f.template operator()<X>() for each X of the list, in order.
template <class F, class... Ts>
void for_each_type(TypeList<Ts...>, F&& f) {
  (f.template operator()<Ts>(), ...);
}

// f.template operator()<BasicTensor<P, B>>() for each policy P and backend B,
// backend-major (all policies on the first backend, then the next).
template <class Policies, class Backends, class F>
void for_each_tensor(F&& f) {
  for_each_type(Backends{}, [&]<class B>() {
    for_each_type(Policies{}, [&]<class P>() { f.template operator()<BasicTensor<P, B>>(); });
  });
}

// Concat<TypeList<A...>, TypeList<B...>, ...>: TypeList<A..., B..., ...>.
template <class... Lists>
struct ConcatLists;
template <>
struct ConcatLists<> {
  using type = TypeList<>;
};
template <class... As>
struct ConcatLists<TypeList<As...>> {
  using type = TypeList<As...>;
};
template <class... As, class... Bs, class... Rest>
struct ConcatLists<TypeList<As...>, TypeList<Bs...>, Rest...> {
  using type = typename ConcatLists<TypeList<As..., Bs...>, Rest...>::type;
};
template <class... Lists>
using Concat = typename ConcatLists<Lists...>::type;

// TensorsOf<Policies, Backends>: TypeList<BasicTensor<P, B>...>, backend-major.
template <class Policies, class Backends>
struct TensorsOfLists;
template <class... Ps, class... Bs>
struct TensorsOfLists<TypeList<Ps...>, TypeList<Bs...>> {
  template <class B>
  using OnBackend = TypeList<BasicTensor<Ps, B>...>;
  using type = Concat<OnBackend<Bs>...>;
};
template <class Policies, class Backends>
using TensorsOf = typename TensorsOfLists<Policies, Backends>::type;

// Apply<To, TypeList<Ts...>>: To<Ts...>, e.g. a GoogleTest ::testing::Types
// list for a typed test over every policy: Apply<::testing::Types, TensorsOf<...>>.
template <template <class...> class To, class List>
struct ApplyList;
template <template <class...> class To, class... Ts>
struct ApplyList<To, TypeList<Ts...>> {
  using type = To<Ts...>;
};
template <template <class...> class To, class List>
using Apply = typename ApplyList<To, List>::type;

// The `name` of each type of the list (Policy::name, Backend::name), in order.
template <class... Ts>
constexpr std::array<std::string_view, sizeof...(Ts)> names_of(TypeList<Ts...>) {
  return {std::string_view(Ts::name)...};
}

}  // namespace custody::lists

#endif  // CUSTODY_CUSTODY_LISTS_TYPE_LIST_H_
