// Copyright 2026 The custody Authors.
//
// core/threads.h — the one thread count custody's CPU kernels run on.
//
//   CUSTODY_NUM_THREADS=2 ./my_program     // or custody::set_num_threads(2)
//
// Note [One thread count]
// ~~~~~~~~~~~~~~~~~~~~~~~
// oneDNN and libtorch both run on OpenMP (libgomp) threads, and OpenMP's
// thread count is a per-thread setting that any library may change: loading
// libtorch with OMP_NUM_THREADS unset leaves it at 1 on the main thread. custody
// decides its count once — CUSTODY_NUM_THREADS, else OMP_NUM_THREADS, else the
// cores this process may run on (sched_getaffinity) — and each CPU backend
// re-applies it on the calling thread before it runs a parallel kernel (one
// thread-local read when it already holds). Core only decides the number; the
// backends own the OpenMP calls. See docs/reference.md, "Threads", for OpenBLAS.

#ifndef CUSTODY_CORE_THREADS_H_
#define CUSTODY_CORE_THREADS_H_

namespace custody {

// The thread count CPU kernels use (>= 1).
int num_threads();
// Sets it for the whole process; n <= 0 goes back to the default above.
void set_num_threads(int n);
// The default: CUSTODY_NUM_THREADS, else OMP_NUM_THREADS, else the available cores.
int default_num_threads();

}  // namespace custody

#endif  // CUSTODY_CORE_THREADS_H_
