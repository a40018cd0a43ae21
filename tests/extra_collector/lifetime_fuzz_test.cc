// Copyright 2026 The custody Authors.
//
// tests/extra_collector/lifetime_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h)
// on deferred, built by //tests/fuzz from this package (tests/fuzz/BUILD reads the policy's
// package from TEST_POLICIES): each handle is its own reference (copy +1, use_count() checked);
// release gives it back now; CLEAR of the last handle of a live reference queues it, and the model
// keeps it live (counted in the TensorImpl's use_count) until EXTRA, deferred::collect(), which
// must give back exactly the queued references. THREAD moves a handle to another thread, which
// uses and releases it there. The end of a program collects.

#include <cstdint>
#include <string>
#include <vector>

#include "tests/extra_collector/deferred.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<deferred::Policy> : OwningHandleRules<deferred::Policy> {
  struct State {
    std::vector<int> queued;  // model references dropped while live, not yet collected
  };
  // Dropping the last handle queues its reference: the model keeps it live.
  static bool last_handle_releases(const MRef&) { return false; }
  template <class H>
  static void on_last_handle(H& h, int s) { h.state.queued.push_back(h.m.slot[s]); }
  template <class H>
  static void collect(H& h) {
    const deferred::Stats before = deferred::stats();
    if (before.queued != static_cast<int64_t>(h.state.queued.size())) {
      h.fail("deferred: " + std::to_string(before.queued) + " references queued, the model " +
             std::to_string(h.state.queued.size()));
    }
    const int64_t n = deferred::collect();
    if (n != static_cast<int64_t>(h.state.queued.size())) {
      h.fail("deferred::collect() gave back " + std::to_string(n) +
             " references, the model queued " + std::to_string(h.state.queued.size()));
    }
    for (int r : h.state.queued) h.m.release(r);
    h.state.queued.clear();
    if (deferred::stats().queued_bytes != 0) h.fail("deferred: queued bytes left after collect()");
  }
  template <class H>
  static void extra(H& h, Reader&) { collect(h); }
  template <class H>
  static void finish(H& h) { collect(h); }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::deferred::Policy>(data, size);
  return 0;
}
