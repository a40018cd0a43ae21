// Copyright 2026 The custody Authors.

#include "tools/compare/registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_join.h"
#include "core/error.h"

namespace custody::compare {
namespace {

std::vector<WorkloadRegistration>& workloads() {
  static auto* w = new std::vector<WorkloadRegistration>;  // filled by static initializers; never destroyed
  return *w;
}

std::vector<std::pair<int, BackendRun>>& backends() {
  static auto* b = new std::vector<std::pair<int, BackendRun>>;  // as workloads()
  return *b;
}

const WorkloadRegistration* find(std::string_view name, std::string_view backend) {
  for (const WorkloadRegistration& w : workloads()) {
    if (w.name == name && w.backend == backend) return &w;
  }
  return nullptr;
}

// The names registered whose first registration is (own) or is not (!own) kOwn, in that order.
std::vector<std::string> names(bool own) {
  std::vector<std::string> seen, out;
  for (const WorkloadRegistration& w : workloads()) {
    if (std::find(seen.begin(), seen.end(), w.name) != seen.end()) continue;
    seen.push_back(w.name);
    if ((w.selection == Selection::kOwn) == own) out.push_back(w.name);
  }
  return out;
}

}  // namespace

bool register_workload(WorkloadRegistration r) {
  if (find(r.name, r.backend) != nullptr) {
    throw InvalidArgument("compare: the workload '" + r.name + "' is registered twice on " + r.backend);
  }
  workloads().push_back(std::move(r));
  return true;
}

std::vector<std::string> registered_workloads() {
  std::vector<std::string> out = names(/*own=*/false);
  const std::vector<std::string> own = names(/*own=*/true);
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

std::vector<std::string> default_workloads() { return names(/*own=*/false); }

std::vector<std::string> own_workloads() { return names(/*own=*/true); }

std::vector<WorkloadPlan> registered_plans(std::string_view backend, const Options& o) {
  std::vector<WorkloadPlan> out;
  for (const std::string& name : o.workloads) {
    const WorkloadRegistration* w = find(name, backend);
    if (w == nullptr) {
      std::vector<std::string> known;
      for (const std::string& n : registered_workloads()) {
        if (find(n, backend) != nullptr) known.push_back(n);
      }
      throw InvalidArgument("compare: unknown workload '" + name + "' (known: " + absl::StrJoin(known, ", ") +
                            ")");
    }
    if (w->selection == Selection::kWhenNamed && !o.workloads_given) continue;
    const int64_t steps = o.steps > 0 ? o.steps : (o.quick ? w->quick_steps : w->steps);
    for (WorkloadPlan& p : w->plans(o, steps)) out.push_back(std::move(p));
  }
  return out;
}

bool register_backend(int order, BackendRun run) {
  for (const auto& [o, b] : backends()) {
    if (b.name == run.name) throw InvalidArgument("compare: the backend '" + run.name + "' is registered twice");
  }
  backends().emplace_back(order, std::move(run));
  return true;
}

std::vector<BackendRun> registered_backends() {
  std::vector<std::pair<int, BackendRun>> sorted = backends();
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<BackendRun> out;
  for (auto& [o, b] : sorted) out.push_back(std::move(b));
  return out;
}

}  // namespace custody::compare
