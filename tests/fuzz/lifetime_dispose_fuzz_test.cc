// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_dispose_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// dispose: copies share one alias (disposing any copy disposes all), dispose() is idempotent, a
// dropped undisposed alias leaks (the model keeps it live) until the test idiom's cleanup at the
// end. THREAD disposes a copy on another thread. EXTRA checks is_disposed() of a slot.

#include <thread>

#include "policies/dispose/dispose.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<dispose::Policy> : DefaultRules<dispose::Policy> {
  struct State {
    uint64_t since = dispose::testing::next_serial();
  };
  static bool last_handle_releases(const MRef&) { return false; }  // a leak, by the contract
  template <class H>
  static void thread(H& h, int s) {
    const int r = h.m.slot[s];
    const int64_t numel = h.m.valid(s) ? Numel(h.m.tensor_of(s).sizes) : -1;
    bool ok = true;
    std::thread th([t = h.slots[s], numel, &ok]() mutable {
      ok = numel_as_modelled(t, numel);
      t.dispose();
    });
    th.join();
    if (!ok) h.fail("thread: the handle did not behave as the model says");
    if (r >= 0) h.m.release(r);
  }
  template <class H>
  static void extra(H& h, Reader& in) {
    const int s = in.slot();
    if (h.slots[s].is_disposed() == h.m.valid(s)) h.fail("is_disposed differs from the model");
  }
  // The idiom's cleanup: every alias this program created (leaked ones included) is disposed.
  template <class H>
  static void finish(H& h) {
    dispose::testing::release_created_on_this_thread_since(h.state.since);
    for (size_t r = 0; r < h.m.refs.size(); ++r) h.m.release(static_cast<int>(r));
  }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::dispose::Policy>(data, size);
  return 0;
}
