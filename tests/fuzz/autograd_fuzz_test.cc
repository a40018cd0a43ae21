// Copyright 2026 The custody Authors.
//
// tests/fuzz/autograd_fuzz_test.cc — the graph fuzzer (tests/fuzz/autograd_fuzz.h): every policy of
// ALL_POLICIES on every host backend, chosen by the input's length.

#include "tests/fuzz/autograd_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::graph::run_graph_program(data, size);
  return 0;
}
