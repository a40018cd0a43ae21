// Copyright 2026 The custody Authors.

#include "core/foreign_stack.h"

namespace custody::internal {

void set_off_stack_runner(OffStackRunner runner) {
  g_off_stack_runner.store(runner, std::memory_order_release);
}

}  // namespace custody::internal
