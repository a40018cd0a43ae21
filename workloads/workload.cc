// Copyright 2026 The custody Authors.

#include "workloads/workload.h"

namespace custody::workloads {

const char* collect_mode_name(CollectMode mode) {
  switch (mode) {
    case CollectMode::kPressureTrigger:
      return "trigger";
    case CollectMode::kCollectEveryStep:
      return "collect_every_step";
    case CollectMode::kNeither:
      return "no_collection";
  }
  return "?";
}

}  // namespace custody::workloads
