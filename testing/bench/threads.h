// Copyright 2026 The custody Authors.
//
// testing/bench/threads.h — the one place where benchmark binaries set how many
// threads oneDNN, libtorch and OpenMP loops use, called by bench_main before
// any benchmark runs.

#ifndef CUSTODY_TESTING_BENCH_THREADS_H_
#define CUSTODY_TESTING_BENCH_THREADS_H_

namespace custody::bench {

// Sets the thread counts of every library a benchmark calls, so that every
// contender of a case runs with the same number of threads.
void configure_threads();

}  // namespace custody::bench

#endif  // CUSTODY_TESTING_BENCH_THREADS_H_
