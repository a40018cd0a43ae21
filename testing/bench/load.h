// Copyright 2026 The custody Authors.
//
// testing/bench/load.h — a loaded machine for a benchmark binary: `--load=N`
// starts N child processes that spin on the CPU until the binary exits, so the
// benchmarks run while other work keeps the cores busy (as a build or a second
// test run would). A benchmark's median under load against its quiet median
// says whether it waits on descheduled threads (parallel regions for work too
// small to split).

#ifndef CUSTODY_TESTING_BENCH_LOAD_H_
#define CUSTODY_TESTING_BENCH_LOAD_H_

namespace custody::bench {

// Removes `--load=N` from argv (Google Benchmark rejects flags it does not
// know) and starts the N spinning children; killed when this process exits.
// Returns false, with a message on stderr, for a malformed value.
bool start_load_from_flags(int* argc, char** argv);

}  // namespace custody::bench

#endif  // CUSTODY_TESTING_BENCH_LOAD_H_
