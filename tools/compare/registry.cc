// Copyright 2026 The custody Authors.

#include "tools/compare/registry.h"

#include <algorithm>
#include <utility>

#include "core/error.h"

namespace custody::compare {
namespace {

struct Entry {
  std::string name, backend;
  PlanFactory plan;
};

std::vector<Entry>& entries() {
  static auto* e = new std::vector<Entry>;  // filled by static initializers; never destroyed
  return *e;
}

std::vector<std::pair<int, BackendRun>>& backends() {
  static auto* b = new std::vector<std::pair<int, BackendRun>>;  // as entries()
  return *b;
}

}  // namespace

bool register_workload(const std::string& name, const std::string& backend, PlanFactory plan) {
  if (find_workload(name, backend) != nullptr) {
    throw InvalidArgument("compare: the workload '" + name + "' is registered twice on " + backend);
  }
  entries().push_back({name, backend, std::move(plan)});
  return true;
}

std::vector<std::string> registered_workloads() {
  std::vector<std::string> names;
  for (const Entry& e : entries()) {
    if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
  }
  return names;
}

const PlanFactory* find_workload(std::string_view name, std::string_view backend) {
  for (const Entry& e : entries()) {
    if (e.name == name && e.backend == backend) return &e.plan;
  }
  return nullptr;
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
