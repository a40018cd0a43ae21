// Copyright 2026 The custody Authors.
//
// tests/stress — threads in the idioms of every policy of ALL_POLICIES on every host backend of
// ALL_HOST_BACKENDS at once (tools/build_defs/flags.bzl; the test-only ones included): with P
// policies and B backends, thread t runs policy t % P on backend (t / P) % B, so every (policy,
// backend) pair has a thread when --threads >= P * B, and two by default (2 * P * B threads, at
// least 16: threads of one pair share what the idiom shares across threads). For --seconds
// (default 60) each thread runs mixed ops, views, reductions and reads, and beside them code in
// its policy's own idiom (PolicyIdiom<P>::StressThread, core/policy_idiom.h, defined in each
// policy's testing.h). At the end every policy settles and every backend must hold exactly what
// it held before: zero live tensors and bytes left. //tests/stress:stress_test runs it for 3 s in
// the default test run (and under tsan in CI); run it longer under the sanitizers:
//
//   ./bazelw run --config=asan //tests/stress:stress -- --seconds=60
//   ./bazelw run --config=tsan //tests/stress:stress -- --seconds=60
//
// It prints "<policy>: N iterations" per policy and "on <backend>: N iterations" per backend.
// Exit status 0 when nothing was left on any backend, every value read was right and every
// (policy, backend) pair with a thread completed iterations.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "core/nn/temporary.h"
#include "core/policy_idiom.h"
#include "core/stats.h"
#include "core/tensor.h"
#include "custody/lists/all_host_backends.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/type_list.h"

namespace custody::stress {
namespace {

using Clock = std::chrono::steady_clock;
using custody::PolicyIdiom;
using custody::lists::AllHostBackends;
using custody::lists::AllPolicies;
using custody::lists::for_each_type;

constexpr size_t kPolicies = AllPolicies::size;
constexpr size_t kBackends = AllHostBackends::size;

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

// One thread's loop on tensors T: the generic ops inside the policy's idiom, and beside them
// the idiom's own code (PolicyIdiom<P>::StressThread, core/policy_idiom.h).
template <class T>
void worker(int id, Clock::time_point end, std::atomic<int64_t>* iterations) {
  using Thread = typename PolicyIdiom<typename T::policy_type>::template StressThread<T>;
  Thread thread;
  for (int64_t i = 0; Clock::now() < end; ++i) {
    if (!thread.iteration(id, i, [i] { mixed_ops<T>(i); })) g_wrong.fetch_add(1);
    iterations->fetch_add(1, std::memory_order_relaxed);
  }
  if (!thread.ok()) g_wrong.fetch_add(1);
}

// f.template operator()<BasicTensor<P, B>>() for policy `p` of AllPolicies and backend `b` of
// AllHostBackends.
template <class F>
void on_pair(size_t p, size_t b, F&& f) {
  size_t bi = 0;
  for_each_type(AllHostBackends{}, [&]<class B>() {
    size_t pi = 0;
    if (bi++ != b) return;
    for_each_type(AllPolicies{}, [&]<class P>() {
      if (pi++ == p) f.template operator()<BasicTensor<P, B>>();
    });
  });
}

// A snapshot of every backend's stats, in AllHostBackends' order.
std::array<StatsSnapshot, kBackends> snapshots() {
  std::array<StatsSnapshot, kBackends> out;
  size_t b = 0;
  for_each_type(AllHostBackends{}, [&]<class B>() { out[b++] = B::stats().snapshot(); });
  return out;
}

int run(int seconds, int threads) {
  const auto policy_names = custody::lists::names_of(AllPolicies{});
  const auto backend_names = custody::lists::names_of(AllHostBackends{});
  const std::array<StatsSnapshot, kBackends> before = snapshots();
  const Clock::time_point end = Clock::now() + std::chrono::seconds(seconds);
  std::atomic<int64_t> iterations[kPolicies][kBackends] = {};
  bool has_thread[kPolicies][kBackends] = {};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const size_t p = static_cast<size_t>(t) % kPolicies;
    const size_t b = (static_cast<size_t>(t) / kPolicies) % kBackends;
    has_thread[p][b] = true;
    pool.emplace_back([t, p, b, end, &iterations] {
      on_pair(p, b, [&]<class T>() { worker<T>(t, end, &iterations[p][b]); });
    });
  }
  for (std::thread& th : pool) th.join();
  lists::for_each_tensor<AllPolicies, AllHostBackends>([]<class T>() {
    PolicyIdiom<typename T::policy_type>::template StressThread<T>::end_of_run();
  });
  for_each_type(AllPolicies{}, []<class P>() { PolicyIdiom<P>::settle(); });
  for_each_type(AllPolicies{}, []<class P>() { PolicyIdiom<P>::settle(); });
  const std::array<StatsSnapshot, kBackends> after = snapshots();

  for (size_t p = 0; p < kPolicies; ++p) {
    int64_t n = 0;
    for (size_t b = 0; b < kBackends; ++b) n += iterations[p][b].load();
    std::cout << policy_names[p] << ": " << n << " iterations\n";
  }
  for (size_t b = 0; b < kBackends; ++b) {
    int64_t n = 0;
    for (size_t p = 0; p < kPolicies; ++p) n += iterations[p][b].load();
    std::cout << "on " << backend_names[b] << ": " << n << " iterations\n";
  }
  std::cout << "wrong values: " << g_wrong.load() << "\n";
  bool nothing_left = true;
  for (size_t b = 0; b < kBackends; ++b) {
    const int64_t tensors = after[b].live_tensors - before[b].live_tensors;
    const int64_t bytes = after[b].bytes_in_use - before[b].bytes_in_use;
    std::cout << "left on " << backend_names[b] << ": " << tensors << " tensors, " << bytes << " bytes\n";
    if (tensors != 0 || bytes != 0) nothing_left = false;
  }
  for_each_type(AllPolicies{}, []<class P>() {
    if constexpr (PolicyIdiom<P>::kLosesOnError) {
      std::cout << P::name << " leak report: " << PolicyIdiom<P>::reported_leaks() << " references\n";
    }
  });
  bool every_pair_ran = true;
  for (size_t p = 0; p < kPolicies; ++p) {
    for (size_t b = 0; b < kBackends; ++b) {
      if (has_thread[p][b] && iterations[p][b].load() == 0) {
        std::cout << policy_names[p] << " on " << backend_names[b] << " never completed an iteration\n";
        every_pair_ran = false;
      }
    }
  }
  const bool ok = g_wrong.load() == 0 && every_pair_ran && nothing_left;
  std::cout << (ok ? "PASS" : "FAIL") << "\n";
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace custody::stress

int main(int argc, char** argv) {
  constexpr int kPairs = static_cast<int>(custody::stress::kPolicies * custody::stress::kBackends);
  int seconds = 60, threads = std::max(16, 2 * kPairs);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) seconds = std::atoi(argv[i] + 10);
    else if (std::strncmp(argv[i], "--threads=", 10) == 0) threads = std::atoi(argv[i] + 10);
    else {
      std::cerr << "usage: stress [--seconds=60] [--threads=N]  (default N: " << threads
                << ", two per (policy, backend) pair)\n";
      return 2;
    }
  }
  return custody::stress::run(seconds, threads);
}
