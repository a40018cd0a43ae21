// Copyright 2026 The custody Authors.
//
// tools/compare/register.h — CUSTODY_REGISTER_WORKLOAD(W): an own workload W
// (workloads/generic.h) registered with the compare tool (registry.h, as the
// built-in workloads are: plans.h) on the host backends, every policy of
// ComparePolicies running OwnRunner<W, P, B> (the generic body, or a policy's
// specialization), and the same body as plain libtorch (LibtorchRunner<W>)
// the peer; its binary runs it by default (Selection::kOwn). The
// custody_workload macro (tools/build_defs/workload.bzl) generates the one
// file that uses it, after including the workload's header and its overrides.

#ifndef CUSTODY_TOOLS_COMPARE_REGISTER_H_
#define CUSTODY_TOOLS_COMPARE_REGISTER_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "custody/lists/host_backends.h"
#include "tools/compare/plans.h"
#include "tools/compare/policies.h"
#include "tools/compare/registry.h"
#include "workloads/generic.h"

namespace custody::compare {

template <class W>
struct OwnRunnerOf {
  template <class P, class B>
  using type = workloads::OwnRunner<W, P, B>;
};

template <class W, class B>
std::vector<WorkloadPlan> own_plans(const Options& /*o*/, int64_t steps) {
  auto data = std::make_shared<const typename W::Data>(W::make_data());
  WorkloadPlan p;
  p.name = W::kName;
  p.unit = W::kUnit;
  p.description = W::kDescription;
  p.steps = steps;
  p.contenders = policy_contenders<B, ComparePolicies, OwnRunnerOf<W>::template type>(data.get());
  const typename W::Data* d = data.get();
  p.contenders.push_back(
      {"libtorch", "", [d] { return std::make_unique<workloads::LibtorchRunner<W>>(*d); }});  // the peer
  p.data = data;
  std::vector<WorkloadPlan> out;
  out.push_back(std::move(p));
  return out;
}

// W on every backend of Backends (the host backends the tool ships), run as
// `selection` says.
template <class W, class Backends = lists::HostBackends>
bool register_generic_workload(Selection selection) {
  lists::for_each_type(Backends{}, [&]<class B>() {
    register_workload({W::kName, B::name, selection, W::kSteps, W::kQuickSteps, &own_plans<W, B>});
  });
  return true;
}

// W on every host backend, its binary's default (Selection::kOwn).
template <class W>
bool register_own_workload() {
  return register_generic_workload<W>(Selection::kOwn);
}

}  // namespace custody::compare

#define CUSTODY_REGISTER_WORKLOAD(W) \
  static const bool custody_registered_workload = ::custody::compare::register_own_workload<W>()

#endif  // CUSTODY_TOOLS_COMPARE_REGISTER_H_
