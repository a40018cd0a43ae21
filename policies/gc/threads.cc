// Copyright 2026 The custody Authors.
//
// policies/gc/threads.cc — registering threads with the collector (Note
// [Thread registration] in gc.h).

#include "policies/gc/internal.h"

#include "core/error.h"

namespace custody::gc::internal {

bool register_this_thread() {
  if (GC_thread_is_registered()) {
    tls_known_registered = true;
    return false;
  }
  GC_stack_base sb;
  if (GC_get_stack_base(&sb) != GC_SUCCESS) {
    throw DeviceError("gc: cannot find the stack of this thread to register it with the collector");
  }
  const int rc = GC_register_my_thread(&sb);
  tls_known_registered = true;
  return rc == GC_SUCCESS;
}

void unregister_this_thread() {
  tls_known_registered = false;
  GC_unregister_my_thread();
}

}  // namespace custody::gc::internal
