// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_gc_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on gc:
// copies share one alias, dispose() is idempotent. The harness disposes an alias before dropping
// its last handle (finalization under a conservative scan is not deterministic), so EXTRA
// (gc::collect()) must change nothing the model sees: every live alias is reachable from the
// slots, on this thread's stack. THREAD disposes a copy on another, registered thread.

#include <thread>

#include "policies/gc/gc.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<gc::Policy> : DefaultRules<gc::Policy> {
  struct State {
    uint64_t since = gc::testing::next_serial();
  };
  static bool last_handle_releases(const MRef&) { return false; }
  static void on_last_handle(H& h, int s) {
    h.slots[s].dispose();
    h.m.release(h.m.slot[s]);
  }
  static void thread(H& h, int s) {
    const int r = h.m.slot[s];
    const int64_t numel = h.m.valid(s) ? Numel(h.m.tensor_of(s).sizes) : -1;
    bool ok = true;
    T copy = h.slots[s];
    std::thread th([&copy, numel, &ok] {
      gc::ThreadRegistration reg;
      T t = copy;
      ok = numel_as_modelled(t, numel);
      t.dispose();
    });
    th.join();
    if (!ok) h.fail("thread: the handle did not behave as the model says");
    if (r >= 0) h.m.release(r);
  }
  static void extra(H&, Reader&) { gc::collect(); }
  static void finish(H& h) {
    gc::testing::release_created_on_this_thread_since(h.state.since);
    for (size_t r = 0; r < h.m.refs.size(); ++r) h.m.release(static_cast<int>(r));
  }
  static void settle() { gc::collect(); }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::gc::Policy>(data, size);
  return 0;
}
