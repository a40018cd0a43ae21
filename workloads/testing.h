// Copyright 2026 The custody Authors.
//
// workloads/testing.h — runs a check on a workload under every policy of
// ALL_POLICIES (tools/build_defs/flags.bzl; gc collecting every step) on
// every host backend, for the workloads' tests:
//
//   testing::for_each_runner<mlp::RunnerFor>(data, [&](const std::string& name, workloads::Runner& r) {
//     ...
//   });
//
// The runner is made, handed to the check, finished; then the backend's live
// tensors and bytes must be back where they were (after the policy's Reap:
// under gc a collection, and disposing what the conservative scan still holds
// of what the run made on any thread), and no graph node may be left
// (autograd::live_nodes).

#ifndef CUSTODY_WORKLOADS_TESTING_H_
#define CUSTODY_WORKLOADS_TESTING_H_

#include <string>

#include "gtest/gtest.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/all_host_backends.h"
#include "core/policy_idiom.h"
#include "core/tensor.h"
#include "custody/lists/type_list.h"
#include "workloads/workload.h"

namespace custody::workloads::testing {

template <class P, class R, class B, class Data, class Check>
void run_one(const std::string& name, const Data& data, const RunOptions& options, Check& check) {
  SCOPED_TRACE(name + " on " + B::name);
  const StatsSnapshot before = B::stats().snapshot();
  const int64_t nodes_before = custody::autograd::live_nodes();
  {
    // On any thread: a runner's threads (serve's workers) have ended with its finish().
    [[maybe_unused]] typename custody::PolicyIdiom<P>::Reap reap(custody::kAllThreads);
    R runner(data, options);
    check(name + ":" + B::name, static_cast<Runner&>(runner));
    runner.finish();
  }
  using Idiom = custody::PolicyIdiom<P>;
  EXPECT_LE(Idiom::last_reaped(), Idiom::kScanKeeps)
      << "references the run left to its Reap: more than the conservative scan keeps (a leak)";
  const StatsSnapshot after = B::stats().snapshot();
  EXPECT_EQ(after.live_tensors, before.live_tensors) << "tensors left after finish()";
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use) << "bytes left after finish()";
  EXPECT_EQ(custody::autograd::live_nodes(), nodes_before) << "graph nodes left after finish()";
}

// RunnerFor<P, B>: the workload's runners.h.
template <template <class, class> class RunnerFor, class Data, class Check>
void for_each_runner(const Data& data, Check&& check) {
  RunOptions options;
  options.collect_mode = CollectMode::kCollectEveryStep;  // for the policies that collect
  custody::lists::for_each_type(custody::lists::AllHostBackends{}, [&]<class B>() {
    custody::lists::for_each_type(custody::lists::AllPolicies{}, [&]<class P>() {
      run_one<P, RunnerFor<P, B>, B>(P::name, data, options, check);
    });
  });
}

}  // namespace custody::workloads::testing

#endif  // CUSTODY_WORKLOADS_TESTING_H_
