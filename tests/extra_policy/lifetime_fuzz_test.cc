// Copyright 2026 The custody Authors.
//
// tests/extra_policy/lifetime_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// counted, built by //tests/fuzz from this package (tests/fuzz/BUILD reads the policy's package
// from TEST_POLICIES): each handle is its own reference (copy +1, release or destruction -1,
// use_count() checked); a released handle throws LifetimeError. THREAD moves a handle to another
// thread, which uses it and drops it there. No EXTRA op.

#include "tests/extra_policy/counted.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

// Each handle is its own reference: the rules of tests/fuzz/lifetime_fuzz.h's OwningHandleRules, as is.
template <>
struct Rules<counted::Policy> : OwningHandleRules<counted::Policy> {};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::counted::Policy>(data, size);
  return 0;
}
