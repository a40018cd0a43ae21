// Copyright 2026 The custody Authors.

#include "workloads/workload.h"

namespace custody::workloads {

const char* gc_mode_name(GcMode mode) {
  switch (mode) {
    case GcMode::kPressureTrigger:
      return "trigger";
    case GcMode::kCollectEveryStep:
      return "collect_every_step";
    case GcMode::kNeither:
      return "no_collection";
  }
  return "?";
}

}  // namespace custody::workloads
