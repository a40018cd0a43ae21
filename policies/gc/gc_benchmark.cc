// Copyright 2026 The custody Authors.
//
// policies/gc/gc_benchmark.cc — what `gc::collect()` costs when there is
// little to collect, in a process that has libtorch loaded (as every program
// using the aten backend or interop does: by default libgc scans the static
// data of every loaded library, and libtorch's is ~48 MB; the gc policy tells
// it to skip system libraries, Note [Static roots] in gc.h):
//
//   gc_collect/garbage=<g>/gc:<b>            create g unreachable 1-element tensors (not timed),
//                                            then gc::collect() (timed)
//   gc_collect/live=10000,garbage=0/gc:<b>   the same with 10000 live handles in a gc::vector
//   gc_collect/garbage=0/gc:<b>:scan_all_libraries   libgc's default roots, for comparison
//
//   gc_count_alloc/gc:<b>[:trigger]         what counting one allocation for the pressure
//                                            trigger costs (core's notify_alloc, as every
//                                            tensor allocation calls it), without a trigger
//                                            and with one that never fires
//
// Every contender reports, per iteration, `collections` and `finalized`
// (references given back by finalizers) from gc::stats(). There is no libtorch
// peer: libtorch frees by reference counting.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/reclaim.h"
#include "policies/gc/testing.h"
#include "custody/lists/all_host_backends.h"
#include "testing/bench/bench_util.h"
#include "testing/bench/libtorch_peers.h"

namespace custody::bench {
namespace {

using custody::lists::AllHostBackends;

constexpr int64_t kGarbage[] = {0, 16, 256};
constexpr int64_t kLive = 10000;

// Makes `n` tensors nobody refers to once this returns.
template <AnyTensor T>
__attribute__((noinline)) void make_garbage(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T t = T::empty({1});
    benchmark::DoNotOptimize(t);
  }
}

template <AnyTensor T>
void collect(benchmark::State& state, int64_t garbage, int64_t live, bool scan_all) {
  libtorch::warm_up();  // libtorch is really loaded (and initialized) in this process
  [[maybe_unused]] Env<gc::Policy> env;
  const bool old_scan_all = gc::scan_all_libraries();
  gc::set_scan_all_libraries(scan_all);  // the next collection re-registers the roots
  gc::vector<T> kept;
  kept.reserve(static_cast<size_t>(live));
  for (int64_t i = 0; i < live; ++i) kept.push_back(T::empty({1}));
  gc::collect();
  const CollectorCounters<gc::Policy> counters;
  for (auto _ : state) {
    state.PauseTiming();
    make_garbage<T>(garbage);
    state.ResumeTiming();
    gc::collect();
  }
  counters.report(state);
  const gc::Stats s = gc::stats();
  state.counters["roots_kB_scanned"] = static_cast<double>(s.root_bytes_scanned) / 1e3;
  state.counters["roots_kB_skipped"] = static_cast<double>(s.root_bytes_skipped) / 1e3;
  gc::set_scan_all_libraries(old_scan_all);
  for (T& t : kept) custody::release(t);
}

// Counting one 64-byte allocation (Note [Bytes since the last collection], counters.cc).
template <AnyTensor T>
void count_alloc(benchmark::State& state, bool with_trigger) {
  using B = typename T::backend_type;
  [[maybe_unused]] Env<gc::Policy> env;
  std::optional<gc::ScopedPressureTrigger> trigger;
  if (with_trigger) trigger.emplace(int64_t{1} << 50, /*time_budget=*/1.0);
  gc::collect();
  const Device device = B::device();
  for (auto _ : state) {
    for (int i = 0; i < 64; ++i) ::custody::internal::notify_alloc(device, 64);
  }
  state.SetItemsProcessed(state.iterations() * 64);
  gc::collect();
}

[[maybe_unused]] const bool registered = [] {
  for_each_type(AllHostBackends{}, []<class B>() {
    using T = BasicTensor<gc::Policy, B>;
    for (int64_t g : kGarbage) {
      add_peer(absl::StrCat("gc_collect/garbage=", g), contender<T>(), &collect<T>, g, int64_t{0},
               false);
    }
    add_peer(absl::StrCat("gc_collect/live=", kLive, ",garbage=0"), contender<T>(), &collect<T>,
             int64_t{0}, kLive, false);
    add_peer("gc_count_alloc", contender<T>(), &count_alloc<T>, false);
    add_peer("gc_count_alloc", contender<T>("trigger"), &count_alloc<T>, true);
    // libgc's default, every loaded library's static data scanned (Note [Static roots]).
    add_peer("gc_collect/garbage=0", absl::StrCat(contender<T>(), ":scan_all_libraries"),
             &collect<T>, int64_t{0}, int64_t{0}, true);
  });
  return true;
}();

}  // namespace
}  // namespace custody::bench
