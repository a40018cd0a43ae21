// Copyright 2026 The custody Authors.
//
// core/foreign_stack.h — a hook around calls into library code that may run
// with its stack pointer off the calling thread's stack.
//
// Note [Kernels off the thread's stack]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// oneDNN 2.6's f32 JIT gemm (jit_avx_gemm_f32's kernel, behind the matmul
// primitive on AVX2 machines) keeps a packed copy of A on "the stack": for
// K <= 252 it lowers rsp on the thread's own stack, but for a larger K it
// points rsp at a workspace it got from malloc and runs the whole kernel
// there (`mov rsp, ws`; rsp goes back at its end). Nothing is wrong with that
// for the kernel; it is wrong for a collector that stops threads with a
// signal and scans each one's stack from the stack pointer the signal found
// (libgc): it then scans from the heap workspace up to the thread's stack
// base — hundreds of MiB across other threads' stacks, malloc arenas and
// holes. Where a hole is unmapped the collector faults (the gc server at 4
// workers crashed in GC_mark_from about one run in two); where it is not, a
// stale word anywhere in between keeps garbage alive.
//
// So a backend runs such a call through run_off_stack(): with no hook it is a
// plain call (one relaxed load); a policy whose collector scans stacks (gc)
// installs a hook that runs the call as a region where this thread is not
// stopped and its stack is scanned from where it was on entry (libgc's
// GC_do_blocking). The call must not allocate or touch collector-managed
// memory, and must not re-enter custody: only the library's kernel goes in,
// never a tensor allocation (a failed one runs reclaimers, which collect).

#ifndef CUSTODY_CORE_FOREIGN_STACK_H_
#define CUSTODY_CORE_FOREIGN_STACK_H_

#include <atomic>
#include <exception>
#include <type_traits>

namespace custody::internal {

// Runs fn(ctx) as a region where the stack pointer may leave this thread's stack.
using OffStackRunner = void (*)(void (*fn)(void*), void* ctx);

// Installs the process-wide runner (once, by a policy; the last one wins).
void set_off_stack_runner(OffStackRunner runner);

inline std::atomic<OffStackRunner> g_off_stack_runner{nullptr};

// Runs `f()` (void; it may throw) through the installed runner, or directly.
// An exception from f is carried across the runner and rethrown here.
template <class F>
void run_off_stack(F&& f) {
  const OffStackRunner runner = g_off_stack_runner.load(std::memory_order_acquire);
  if (runner == nullptr) {
    f();
    return;
  }
  struct Call {
    std::remove_reference_t<F>* f;
    std::exception_ptr error;
  } call{&f, nullptr};
  runner(
      [](void* p) {
        Call* c = static_cast<Call*>(p);
        try {
          (*c->f)();
        } catch (...) {
          c->error = std::current_exception();
        }
      },
      &call);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace custody::internal

#endif  // CUSTODY_CORE_FOREIGN_STACK_H_
