// Copyright 2026 The custody Authors.
//
// tests/fuzz/lifetime_manual_fuzz_test.cc — the lifetime fuzzer (tests/fuzz/lifetime_fuzz.h) on
// manual: handles are plain values naming a ledger entry; RELEASE is free() (count - 1, the last
// gives the reference back, a free past zero is a LifetimeError), EXTRA is retain() into another
// slot (count + 1); manual::testing::refcount is checked against the model's count after each step.
// THREAD frees a copy on another thread. A dropped handle is a leak until the idiom's cleanup.

#include <thread>

#include "policies/manual/manual.h"
#include "tests/fuzz/lifetime_fuzz.h"

namespace custody::fuzz {

template <>
struct Rules<manual::Policy> : DefaultRules<manual::Policy> {
  struct State {
    uint64_t since = manual::testing::next_serial();
  };
  static bool last_handle_releases(const MRef&) { return false; }  // a leak, by the contract
  // The model side of one free of slot s's reference; false when it must be a LifetimeError.
  template <class H>
  static bool model_free(H& h, int s) {
    const int r = h.m.slot[s];
    if (r < 0) return true;  // freeing a default handle does nothing
    MRef& ref = h.m.refs[r];
    if (!ref.live) return false;
    if (--ref.count == 0) h.m.release(r);
    return true;
  }
  template <class H>
  static void release(H& h, int s) {
    const bool threw = h.expect_lifetime_error([&] { manual::free(h.slots[s]); }, "free");
    if (threw == model_free(h, s)) h.fail(threw ? "free: unexpected LifetimeError" : "free past zero did not throw");
  }
  template <class H>
  static void thread(H& h, int s) {
    const int64_t numel = h.m.valid(s) ? Numel(h.m.tensor_of(s).sizes) : -1;
    bool ok = true, threw = false;
    std::thread th([t = h.slots[s], numel, &ok, &threw] {
      ok = numel_as_modelled(t, numel);
      try {
        manual::free(t);
      } catch (const LifetimeError&) {
        threw = true;
      }
    });
    th.join();
    if (!ok) h.fail("thread: the handle did not behave as the model says");
    if (threw == model_free(h, s)) h.fail("thread: free disagrees with the model");
  }
  // retain(a) into slot d.
  template <class H>
  static void extra(H& h, Reader& in) {
    const int d = in.slot(), a = in.slot();
    const int r = h.m.slot[a];
    std::optional<typename H::T> t;
    const bool threw = h.expect_lifetime_error([&] { t.emplace(manual::retain(h.slots[a])); }, "retain");
    if (threw == h.m.valid(a)) h.fail("retain: disagrees with the model");
    if (!threw) {
      h.m.refs[r].count++;
      h.assign(d, *t, r);
    }
  }
  template <class H>
  static void check_slot(H& h, int s) {
    const int64_t rc = manual::testing::refcount(h.slots[s]);
    if (rc != h.m.refs[h.m.slot[s]].count) {
      h.fail("refcount " + std::to_string(rc) + ", model " + std::to_string(h.m.refs[h.m.slot[s]].count));
    }
  }
  // The idiom's cleanup: every reference this program created and did not free is freed.
  template <class H>
  static void finish(H& h) {
    manual::testing::release_created_on_this_thread_since(h.state.since);
    for (size_t r = 0; r < h.m.refs.size(); ++r) h.m.release(static_cast<int>(r));
  }
};

}  // namespace custody::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  custody::fuzz::run_program<custody::manual::Policy>(data, size);
  return 0;
}
