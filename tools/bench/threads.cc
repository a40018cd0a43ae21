// Copyright 2026 The custody Authors.
//
// tools/bench/threads.cc — configure_threads(): today each library keeps its
// own default (OMP_NUM_THREADS, or one thread per core).

#include "tools/bench/threads.h"

namespace custody::bench {

void configure_threads() {
  // Thread setting: see README ("Benchmarks"). Nothing is changed here yet.
}

}  // namespace custody::bench
