// Copyright 2026 The custody Authors.
//
// Allocation-failure injection (Note [Allocation-failure injection],
// core/reclaim.cc): each workload of the compare tool (mlp training steps, by
// hand and through the tape,
// llama tokens, an ops round; small configurations, the same code paths) under
// each policy of ALL_POLICIES on every backend a test runs without a GPU
// (//custody/lists:test_backends: onednn, aten, opaque), with its k-th tensor
// allocation failing, for every k the run makes — the allocations of tensor
// data, and, as a second switch, those of tensor metadata (TensorImpls and the
// policies' records of references). Each time: the OutOfMemoryError reaches
// the caller (or, where a reclaimer freed memory for data, the retry succeeded
// and was counted); once the runner is gone nothing is left; and the next run
// succeeds.
//
// "Nothing is left" is exact under tensor_ptr, scope and gc (after a
// collection). Under dispose and manual, a temporary the step had not yet
// disposed or freed when the error passed is lost, as those models define
// (TorchSharp's technique 2 without `using`, TH's golden rule: no owner frees
// it): the test asserts that each such reference is listed by the policy's
// leak_report() -- the model's own diagnostic -- gives it back with the
// policy's testing tool, counts them, and then requires nothing left.

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "core/error.h"
#include "core/reclaim.h"
#include "core/stats.h"
#include "gtest/gtest.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/test_backends.h"
#include "core/policy_idiom.h"
#include "custody/lists/type_list.h"
#include "workloads/llama/llama.h"
#include "workloads/llama/runners.h"
#include "workloads/mlp/mlp.h"
#include "workloads/mlp/runners.h"
#include "workloads/mlp_autograd/runners.h"
#include "workloads/ops/ops.h"
#include "workloads/ops/runners.h"

namespace custody::workloads {
namespace {

using custody::lists::AllPolicies;
using custody::lists::TestBackends;
using custody::PolicyIdiom;

// What a run's failures are injected into (Note [Allocation-failure injection]).
struct Switch {
  const char* name;
  void (*arm)(int64_t k);
  int64_t (*attempts)();
  int64_t (*fired)();
  const char* message;  // in every OutOfMemoryError it causes
  bool retried;         // reclaimers run and a retry may succeed
};
// Tensor data: every allocation through a backend.
constexpr Switch kData{"allocations", &inject_allocation_failure, &allocation_attempts,
                       &injected_failures, "injected allocation failure", true};
// Tensor metadata: every TensorImpl (with the Storage it shares a block with) and every policy
// record of a reference (alias, scope entry, ledger slot).
constexpr Switch kMetadata{"metadata allocations", &inject_metadata_failure, &metadata_attempts,
                           &injected_metadata_failures, "injected metadata allocation failure", false};

struct Outcome {
  int64_t allocations = 0;  // attempts in one clean run
  int64_t thrown = 0;       // runs where the OutOfMemoryError reached the caller
  int64_t recovered = 0;    // runs a reclaimer and the retry carried through
  int64_t leaky_runs = 0;   // runs that lost references (dispose, manual: reported, then given back)
  int64_t leaked = 0;       // references lost in all
};

// What policy P lost on an error path since `since`: the references its leak
// report lists, given back with its testing tool (PolicyIdiom::release_since);
// 0 where the model loses nothing. Every reference given back must have been
// in the leak report.
template <class P>
int64_t give_back_lost(uint64_t since) {
  using Idiom = PolicyIdiom<P>;
  if constexpr (!Idiom::kLosesOnError) {
    return 0;
  } else {
    const int64_t reported = Idiom::reported_leaks();
    const int64_t live = Idiom::live_references();
    Idiom::release_since(since);
    EXPECT_EQ(live - Idiom::live_references(), reported) << "references lost but not in the leak report";
    return reported;
  }
}

// Checks the backend is back at `before` (after the policy's Reap gave back
// what it still held: gc collects, then disposes what the conservative stack
// scan keeps).
template <class P, class B>
void expect_nothing_left(const StatsSnapshot& before, const std::string& what) {
  EXPECT_LE(PolicyIdiom<P>::last_reaped(), PolicyIdiom<P>::kScanKeeps)
      << what << ": references left to the Reap, more than the conservative scan keeps (a leak)";
  const StatsSnapshot after = B::stats().snapshot();
  EXPECT_EQ(after.live_tensors, before.live_tensors) << what << ": tensors left";
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use) << what << ": bytes left";
}

template <class P, class B, class R, class Data>
Outcome fail_every_allocation(const Switch& sw, const std::string& name, const Data& data,
                              const RunOptions& options, int steps) {
  using Reap = typename PolicyIdiom<P>::Reap;
  const auto run = [&] {
    R runner(data, options);
    for (int i = 0; i < steps; ++i) runner.step();
    (void)runner.metric();
    runner.finish();
  };
  Outcome o;
  {
    const StatsSnapshot before = B::stats().snapshot();
    const uint64_t since = PolicyIdiom<P>::next_serial();
    {
      [[maybe_unused]] Reap reap;
      sw.arm(0);  // count only
      run();
      o.allocations = sw.attempts();
    }
    EXPECT_EQ(give_back_lost<P>(since), 0) << name << ": a clean run loses nothing";
    expect_nothing_left<P, B>(before, name + " (clean run)");
  }
  EXPECT_GT(o.allocations, 0) << name;
  const bool failed_before = ::testing::Test::HasFailure();
  for (int64_t k = 1; k <= o.allocations; ++k) {
    const std::string what = name + ", " + sw.name + ": " + std::to_string(k) + " of " +
                             std::to_string(o.allocations) + " failing";
    const StatsSnapshot before = B::stats().snapshot();
    const uint64_t since = PolicyIdiom<P>::next_serial();
    {
      [[maybe_unused]] Reap reap;
      sw.arm(k);
      try {
        run();
        ++o.recovered;
        EXPECT_TRUE(sw.retried) << what << ": the run succeeded although metadata is never retried";
        EXPECT_GT(B::stats().snapshot().num_alloc_retries, before.num_alloc_retries)
            << what << ": the run succeeded, so a reclaimer and a counted retry must have";
      } catch (const OutOfMemoryError& e) {
        ++o.thrown;
        if (std::getenv("FAILURE_INJECTION_VERBOSE") != nullptr) std::cout << what << ": " << e.what() << "\n";
        EXPECT_NE(std::string(e.what()).find(sw.message), std::string::npos) << what << ": " << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": not an OutOfMemoryError: " << e.what();
      }
      EXPECT_EQ(sw.fired(), 1) << what;
      sw.arm(0);
      PolicyIdiom<P>::settle();
      if (const int64_t lost = give_back_lost<P>(since); lost > 0) {
        ++o.leaky_runs;
        o.leaked += lost;
      }
    }
    expect_nothing_left<P, B>(before, what);
    if (!failed_before && ::testing::Test::HasFailure()) break;  // one broken index says enough
  }
  // The next run succeeds.
  sw.arm(0);
  const StatsSnapshot before = B::stats().snapshot();
  {
    [[maybe_unused]] Reap reap;
    EXPECT_NO_THROW(run()) << name << ": after the failures";
  }
  expect_nothing_left<P, B>(before, name + " (after)");
  return o;
}

// Every policy of ALL_POLICIES (tools/build_defs/flags.bzl) on the workload,
// its runners by policy from the workload's runners.h.
template <template <class, class> class RunnerFor, class Data>
void every_policy(const Switch& sw, const std::string& workload, const Data& data, int steps) {
  RunOptions options;
  options.collect_mode = CollectMode::kNeither;  // a collecting policy's garbage stays: the reclaimer has work
  custody::lists::for_each_tensor<AllPolicies, TestBackends>([&]<class T>() {
    using P = typename T::policy_type;
    using B = typename T::backend_type;
    const std::string policy = P::name;
    const Outcome o = fail_every_allocation<P, B, RunnerFor<P, B>>(
        sw, workload + "/" + policy + " on " + B::name, data, options, steps);
    std::cout << workload << " under " << policy << " on " << B::name << ": " << o.allocations << " "
              << sw.name << ", each failed once: " << o.thrown << " OutOfMemoryError, " << o.recovered
              << " recovered by collect-and-retry; " << o.leaky_runs << " runs lost " << o.leaked
              << " references (listed by the leak report)\n";
    if (sw.retried && PolicyIdiom<P>::kCollects) {
      EXPECT_GT(o.recovered, 0) << workload << ": " << policy
                                << " never recovered by collecting and retrying";
    }
  });
}

// Small configurations, the same code paths as the compare tool's.
mlp::MlpData small_mlp() {
  mlp::MlpConfig c;
  c.features = 16;
  c.hidden = 32;
  c.classes = 4;
  c.batch = 16;
  c.train_batches = 2;
  c.eval_size = 32;
  return mlp::make_data(c);
}

llama::LlamaWeights small_llama() {
  llama::LlamaConfig c;
  c.dim = 32;
  c.hidden_dim = 64;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.vocab_size = 64;
  c.seq_len = 16;
  return llama::random_weights(c, /*seed=*/1);
}

ops::OpsData small_ops() {
  ops::OpsConfig c;
  c.rows = 32;
  c.cols = 32;
  return ops::make_data(c);
}

TEST(FailureInjection, Mlp) { every_policy<mlp::RunnerFor>(kData, "mlp", small_mlp(), /*steps=*/3); }
// Forward and backward through the tape: a failure in either leaves no graph behind.
TEST(FailureInjection, MlpAutograd) {
  every_policy<mlp_autograd::RunnerFor>(kData, "mlp_autograd", small_mlp(), /*steps=*/2);
}
TEST(FailureInjection, Llama) { every_policy<llama::RunnerFor>(kData, "llama", small_llama(), /*steps=*/3); }
TEST(FailureInjection, Ops) { every_policy<ops::RunnerFor>(kData, "ops", small_ops(), /*steps=*/2); }

TEST(FailureInjection, MlpMetadata) {
  every_policy<mlp::RunnerFor>(kMetadata, "mlp", small_mlp(), /*steps=*/3);
}
TEST(FailureInjection, MlpAutogradMetadata) {
  every_policy<mlp_autograd::RunnerFor>(kMetadata, "mlp_autograd", small_mlp(), /*steps=*/2);
}
TEST(FailureInjection, LlamaMetadata) {
  every_policy<llama::RunnerFor>(kMetadata, "llama", small_llama(), /*steps=*/3);
}
TEST(FailureInjection, OpsMetadata) {
  every_policy<ops::RunnerFor>(kMetadata, "ops", small_ops(), /*steps=*/2);
}

}  // namespace
}  // namespace custody::workloads
