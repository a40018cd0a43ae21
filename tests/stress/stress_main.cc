// Copyright 2026 The custody Authors.
//
// tests/stress — 16 threads, each in one policy's idiom (thread i runs policy
// i % N of the N in ALL_POLICIES, tools/build_defs/flags.bzl: tensor_ptr,
// dispose, scope, gc, manual, then the test-only ones), all on the onednn
// backend at once,
// for --seconds (default 60): mixed ops, views, reductions and reads; gc
// threads leave garbage and collect; tensor_ptr threads hand tensors to each
// other through a shared mailbox. At the end every policy settles and the
// backend must hold exactly what it held before: zero live tensors and bytes
// left. //tests/stress:stress_test runs it for 3 s in the default test run
// (and under tsan in CI); run it longer under the sanitizers:
//
//   ./bazelw run --config=asan //tests/stress:stress -- --seconds=60
//   ./bazelw run --config=tsan //tests/stress:stress -- --seconds=60
//
// Exit status 0 when nothing was left, every value read was right and every
// policy (with a thread) completed iterations.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/nn/temporary.h"
#include "custody/lists/all_policies.h"
#include "core/policy_idiom.h"
#include "custody/lists/type_list.h"

namespace custody::stress {
namespace {

using B = Onednn;
using Clock = std::chrono::steady_clock;
using custody::lists::AllPolicies;
using custody::PolicyIdiom;

std::atomic<int64_t> g_wrong{0};

// One iteration in the generic form every policy accepts: each temporary held
// by an nn::Temporary, released (disposed, freed) when it goes out of scope.
template <class T>
void mixed_ops(int64_t i) {
  const float v = static_cast<float>(i % 7);
  nn::Temporary<T> a = T::full({16, 16}, v);
  nn::Temporary<T> b = T::ones({16, 16});
  nn::Temporary<T> c = a->matmul(*b);                      // every entry 16 v
  nn::Temporary<T> d = c->t();                              // a view
  nn::Temporary<T> e = d->narrow(0, 2, 4);                  // a view of a view
  nn::Temporary<T> f = e->contiguous();
  nn::Temporary<T> f1 = f->add(1.0f);
  nn::Temporary<T> g = f1->relu();
  nn::Temporary<T> s = g->sum();
  const float want = (16.0f * v + 1.0f) * 4 * 16;
  if (s->template item<float>() != want) g_wrong.fetch_add(1, std::memory_order_relaxed);
  nn::Temporary<T> p = a->softmax(1);
  nn::Temporary<T> m = p->argmax(1);
  (void)m->numel();
}

// A policy with no idiom of its own below: the generic form inside what its
// idiom needs open around code (PolicyIdiom::Region).
template <class Policy>
void worker(int, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using T = BasicTensor<Policy, B>;
  for (int64_t i = 0; Clock::now() < end; ++i) {
    [[maybe_unused]] typename PolicyIdiom<Policy>::Region region;
    mixed_ops<T>(i);
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
}

// tensor_ptr: shared handles, also across threads through a mailbox: each
// thread leaves full({8}, id) with its id and takes what another left, whose
// sum must be 8 * that thread's id.
struct Letter {
  int from = 0;
  BasicTensor<tensor_ptr::Policy, B> tensor;
};
std::mutex g_mailbox_mu;
std::optional<Letter> g_mailbox;

template <>
void worker<tensor_ptr::Policy>(int id, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using T = BasicTensor<tensor_ptr::Policy, B>;
  for (int64_t i = 0; Clock::now() < end; ++i) {
    mixed_ops<T>(i);
    T mine = T::full({8}, static_cast<float>(id));
    std::optional<Letter> theirs;
    {
      std::lock_guard<std::mutex> lock(g_mailbox_mu);
      theirs = std::move(g_mailbox);
      g_mailbox = Letter{id, mine};  // shared with whichever thread takes it
    }
    if (theirs.has_value() &&
        theirs->tensor.sum().template item<float>() != 8.0f * static_cast<float>(theirs->from)) {
      g_wrong.fetch_add(1);
    }
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
}

template <>
void worker<dispose::Policy>(int, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using T = BasicTensor<dispose::Policy, B>;
  for (int64_t i = 0; Clock::now() < end; ++i) {
    mixed_ops<T>(i);
    auto x = dispose::disposing(T::ones({4, 4}));  // `using var`
    auto y = dispose::disposing(x.mul(3.0f));
    auto total = dispose::disposing(y.sum());
    if (total.template item<float>() != 48.0f) g_wrong.fetch_add(1);
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
}

template <>
void worker<scope::Policy>(int, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using T = BasicTensor<scope::Policy, B>;
  scope::DisposeScope outer;
  T kept = T::zeros({4});
  int64_t mine = 0;
  for (int64_t i = 0; Clock::now() < end; ++i, ++mine) {
    scope::DisposeScope step;  // everything made in the iteration dies with it
    mixed_ops<T>(i);
    T x = T::ones({4}).mul(2.0f);
    T next = kept.add(x);
    next.move_to_outer_dispose_scope();  // survives this iteration's scope
    kept.dispose();
    kept = next;
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
  T total = kept.sum();
  if (total.template item<float>() != 8.0f * static_cast<float>(mine)) g_wrong.fetch_add(1);
}

template <>
void worker<gc::Policy>(int, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using T = BasicTensor<gc::Policy, B>;
  // At the thread's end, a collection, then what the conservative scan still
  // keeps of this thread's aliases (a stale word may hold one or two past any
  // number of collections) is disposed, so the final balance is exact. That
  // the collector did the rest is checked below: finalizers must have run.
  PolicyIdiom<gc::Policy>::Reap stragglers;
  const int64_t finalized_before = gc::stats().finalized;
  for (int64_t i = 0; Clock::now() < end; ++i) {
    mixed_ops<T>(i);
    {
      // Under ThreadSanitizer the collector never runs (Note [ThreadSanitizer], policies/gc/gc.h): the
      // idiom's Reap gives back what the iteration left instead.
      std::optional<PolicyIdiom<gc::Policy>::Reap> no_collector;
      if (!gc::collector_enabled()) no_collector.emplace();
      T garbage = T::ones({64, 64}).mul(2.0f);  // left to the finalizers
      if (garbage.sum().template item<float>() != 8192.0f) g_wrong.fetch_add(1);
    }
    if (i % 64 == 0) gc::collect();
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
  gc::collect();
  if (gc::collector_enabled() && gc::stats().finalized == finalized_before) {
    std::cout << "gc: no finalizer ran; the garbage was never given back\n";
    g_wrong.fetch_add(1);
  }
}

template <>
void worker<manual::Policy>(int, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using T = BasicTensor<manual::Policy, B>;
  for (int64_t i = 0; Clock::now() < end; ++i) {
    mixed_ops<T>(i);
    T x = T::ones({4, 4});
    T y = manual::retain(x);  // a second reference to the same tensor: two frees
    T z = x.mul(2.0f);
    T total = z.sum();
    if (total.template item<float>() != 32.0f) g_wrong.fetch_add(1);
    custody::release(total);
    custody::release(z);
    custody::release(y);
    custody::release(x);
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
}

// worker<P>(...) for the policy `index` of AllPolicies.
template <class... Ps>
void run_policy(custody::lists::TypeList<Ps...>, size_t index, int id, Clock::time_point end,
                std::atomic<int64_t>* iterations) {
  size_t i = 0;
  ((i++ == index ? worker<Ps>(id, end, &iterations[index]) : void()), ...);
}

int run(int seconds, int threads) {
  constexpr size_t kPolicies = AllPolicies::size;
  const auto names = custody::lists::names_of(AllPolicies{});
  const StatsSnapshot before = B::stats().snapshot();
  const Clock::time_point end = Clock::now() + std::chrono::seconds(seconds);
  std::atomic<int64_t> iterations[kPolicies] = {};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([t, end, &iterations] {
      run_policy(AllPolicies{}, static_cast<size_t>(t) % kPolicies, t, end, iterations);
    });
  }
  for (std::thread& th : pool) th.join();
  g_mailbox.reset();
  custody::lists::for_each_type(AllPolicies{}, []<class P>() { PolicyIdiom<P>::settle(); });
  custody::lists::for_each_type(AllPolicies{}, []<class P>() { PolicyIdiom<P>::settle(); });
  const StatsSnapshot after = B::stats().snapshot();
  for (size_t p = 0; p < kPolicies; ++p) {
    std::cout << names[p] << ": " << iterations[p].load() << " iterations\n";
  }
  std::cout << "wrong values: " << g_wrong.load() << "\n"
            << "left: " << after.live_tensors - before.live_tensors << " tensors, "
            << after.bytes_in_use - before.bytes_in_use << " bytes\n";
  custody::lists::for_each_type(AllPolicies{}, []<class P>() {
    if constexpr (PolicyIdiom<P>::kLosesOnError) {
      std::cout << P::name << " leak report: " << PolicyIdiom<P>::reported_leaks() << " references\n";
    }
  });
  bool every_policy_ran = true;
  for (size_t p = 0; p < kPolicies && p < static_cast<size_t>(threads); ++p) {
    if (iterations[p].load() == 0) {
      std::cout << names[p] << " never completed an iteration\n";
      every_policy_ran = false;
    }
  }
  const bool ok = g_wrong.load() == 0 && every_policy_ran && after.live_tensors == before.live_tensors &&
                  after.bytes_in_use == before.bytes_in_use;
  std::cout << (ok ? "PASS" : "FAIL") << "\n";
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace custody::stress

int main(int argc, char** argv) {
  int seconds = 60, threads = 16;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) seconds = std::atoi(argv[i] + 10);
    else if (std::strncmp(argv[i], "--threads=", 10) == 0) threads = std::atoi(argv[i] + 10);
    else {
      std::cerr << "usage: stress [--seconds=60] [--threads=16]\n";
      return 2;
    }
  }
  return custody::stress::run(seconds, threads);
}
