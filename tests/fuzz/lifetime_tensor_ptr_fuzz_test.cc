// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_tensor_ptr_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// tensor_ptr: each handle is its own reference (copy +1, reset/destruction -1, use_count() checked);
// a released handle is null. EXTRA moves a handle (std::move: the source becomes null).

#include "policies/tensor_ptr/tensor_ptr.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

// OwningHandleRules (lifetime_fuzz.h), and what is tensor_ptr's own: a released handle is null, and
// EXTRA moves a handle (std::move: the source becomes null).
template <>
struct Rules<tensor_ptr::Policy> : OwningHandleRules<tensor_ptr::Policy> {
  template <class H>
  static void release(H& h, int s) {
    OwningHandleRules::release(h, s);
    if (h.slots[s] != nullptr) h.fail("release: the handle is not null");
  }
  template <class H>
  static void extra(H& h, Reader& in) {
    const int d = in.slot(), a = in.slot();
    if (d == a) return;
    h.drop(d);
    h.slots[d] = std::move(h.slots[a]);
    h.m.slot[d] = h.m.slot[a];
    h.m.slot[a] = -1;
    if (h.slots[a] != nullptr) h.fail("move: the source is not null");
  }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::tensor_ptr::Policy>(data, size);
  return 0;
}
