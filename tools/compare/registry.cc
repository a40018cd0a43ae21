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

}  // namespace custody::compare
