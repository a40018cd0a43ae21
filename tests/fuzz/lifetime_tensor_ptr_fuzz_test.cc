// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_tensor_ptr_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// tensor_ptr: each handle is its own reference (copy +1, reset/destruction -1, use_count() checked);
// a released handle is null. EXTRA moves a handle (std::move: the source becomes null).

#include <thread>

#include "policies/tensor_ptr/tensor_ptr.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<tensor_ptr::Policy> : DefaultRules<tensor_ptr::Policy> {
  static constexpr bool kCopyIsNewRef = true;
  struct State {};
  static bool last_handle_releases(const MRef&) { return true; }
  // reset(): the handle goes null, its reference back.
  static void release(H& h, int s) {
    custody::release(h.slots[s]);
    if (h.slots[s] != nullptr) h.fail("release: the handle is not null");
    const int r = h.m.slot[s];
    if (r < 0) return;
    h.m.refs[r].handles--;
    h.m.release(r);
    h.m.slot[s] = -1;
  }
  // The handle moves to another thread, which uses it and drops it there.
  static void thread(H& h, int s) {
    const int r = h.m.slot[s];
    const int64_t numel = r >= 0 ? Numel(h.m.tensor_of(s).sizes) : -1;
    T t = std::move(h.slots[s]);
    h.m.slot[s] = -1;
    bool ok = true;
    std::thread th([t = std::move(t), numel, &ok]() mutable {
      ok = numel_as_modelled(t, numel);
      t.reset();
    });
    th.join();
    if (!ok) h.fail("thread: the handle did not behave as the model says");
    if (r >= 0) {
      h.m.refs[r].handles--;
      h.m.release(r);
    }
  }
  static void extra(H& h, Reader& in) {
    const int d = in.slot(), a = in.slot();
    if (d == a) return;
    h.drop(d);
    h.slots[d] = std::move(h.slots[a]);
    h.m.slot[d] = h.m.slot[a];
    h.m.slot[a] = -1;
    if (h.slots[a] != nullptr) h.fail("move: the source is not null");
  }
  static void check_slot(H& h, int s) {
    if (h.slots[s].use_count() != h.m.tensor_of(s).refs) h.fail("use_count differs from the model");
  }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::tensor_ptr::Policy>(data, size);
  return 0;
}
