// Copyright 2026 The custody Authors.
//
// workloads/libtorch_threads.h — makes libtorch, OpenBLAS and OpenMP use
// custody::num_threads() threads, so the libtorch peers of the workloads run
// with the same thread count as custody's backends (docs/reference.md, "Threads").

#ifndef CUSTODY_WORKLOADS_LIBTORCH_THREADS_H_
#define CUSTODY_WORKLOADS_LIBTORCH_THREADS_H_

namespace custody::workloads {

void configure_libtorch_threads();

}  // namespace custody::workloads

#endif  // CUSTODY_WORKLOADS_LIBTORCH_THREADS_H_
