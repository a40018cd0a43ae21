// Copyright 2026 The custody Authors.
//
// tools/compare/register.h — CUSTODY_REGISTER_WORKLOAD(W): the compare tool's
// plan of an own workload W (workloads/generic.h) on the host backends, every
// policy of ComparePolicies running OwnRunner<W, P, B> (the generic body, or
// a policy's specialization), and the same body as plain libtorch
// (LibtorchRunner<W>) the peer. The custody_workload macro
// (tools/build_defs/workload.bzl) generates the one file that uses it, after
// including the workload's header and its overrides.

#ifndef CUSTODY_TOOLS_COMPARE_REGISTER_H_
#define CUSTODY_TOOLS_COMPARE_REGISTER_H_

#include <memory>

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
WorkloadPlan own_plan(const Options& o) {
  auto data = std::make_shared<const typename W::Data>(W::make_data());
  WorkloadPlan p;
  p.name = W::kName;
  p.unit = W::kUnit;
  p.description = W::kDescription;
  p.steps = o.steps > 0 ? o.steps : (o.quick ? W::kQuickSteps : W::kSteps);
  p.contenders = policy_contenders<B, ComparePolicies, OwnRunnerOf<W>::template type>(data.get());
  const typename W::Data* d = data.get();
  p.contenders.push_back(
      {"libtorch", "", [d] { return std::make_unique<workloads::LibtorchRunner<W>>(*d); }});  // the peer
  p.data = data;
  return p;
}

template <class W>
bool register_own_workload() {
  lists::for_each_type(lists::HostBackends{},
                       [&]<class B>() { register_workload(W::kName, B::name, &own_plan<W, B>); });
  return true;
}

}  // namespace custody::compare

#define CUSTODY_REGISTER_WORKLOAD(W) \
  static const bool custody_registered_workload = ::custody::compare::register_own_workload<W>()

#endif  // CUSTODY_TOOLS_COMPARE_REGISTER_H_
