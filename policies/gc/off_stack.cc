// Copyright 2026 The custody Authors.
//
// policies/gc/off_stack.cc — the gc policy's runner for kernels that run on a
// heap buffer instead of the thread's stack (Note [Kernels off the thread's
// stack], core/foreign_stack.h).

#include "policies/gc/internal.h"

namespace custody::gc::internal {

// A registered thread runs such a kernel inside GC_do_blocking: libgc does not
// stop it with a signal (which could find rsp on the kernel's heap workspace)
// and scans its stack from the stack pointer it had on entry. The kernel
// touches no collector memory, as GC_do_blocking requires.
void run_off_stack_blocking(void (*fn)(void*), void* ctx) {
  if (!tls_known_registered && !GC_thread_is_registered()) {
    fn(ctx);  // the collector neither stops nor scans this thread
    return;
  }
  struct Call {
    void (*fn)(void*);
    void* ctx;
  } call{fn, ctx};
  GC_do_blocking(
      [](void* p) -> void* {
        Call* c = static_cast<Call*>(p);
        c->fn(c->ctx);
        return nullptr;
      },
      &call);
}

}  // namespace custody::gc::internal
