// Copyright 2026 The custody Authors.
//
// tests/extra_policy/lifetime_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// counted, built by //tests/fuzz from this package (tests/fuzz/BUILD reads the policy's package
// from TEST_POLICIES): each handle is its own reference (copy +1, release or destruction -1,
// use_count() checked); a released handle throws LifetimeError. THREAD moves a handle to another
// thread, which uses it and drops it there. No EXTRA op.

#include <thread>
#include <utility>

#include "tests/extra_policy/counted.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<counted::Policy> : DefaultRules<counted::Policy> {
  static constexpr bool kCopyIsNewRef = true;
  struct State {};
  static bool last_handle_releases(const MRef&) { return true; }
  // release(): the handle gives its reference back and is released from then on.
  static void release(H& h, int s) {
    custody::release(h.slots[s]);
    const int r = h.m.slot[s];
    if (r < 0) return;
    h.m.refs[r].handles--;
    h.m.release(r);
    h.m.slot[s] = -1;
  }
  static void thread(H& h, int s) {
    const int r = h.m.slot[s];
    const int64_t numel = r >= 0 ? Numel(h.m.tensor_of(s).sizes) : -1;
    T t = std::move(h.slots[s]);
    h.m.slot[s] = -1;
    bool ok = true;
    std::thread th([t = std::move(t), numel, &ok]() mutable {
      ok = numel_as_modelled(t, numel);
      t.release();
    });
    th.join();
    if (!ok) h.fail("thread: the handle did not behave as the model says");
    if (r >= 0) {
      h.m.refs[r].handles--;
      h.m.release(r);
    }
  }
  static void extra(H&, Reader&) {}
  static void check_slot(H& h, int s) {
    if (h.slots[s].use_count() != h.m.tensor_of(s).refs) h.fail("use_count differs from the model");
  }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::counted::Policy>(data, size);
  return 0;
}
