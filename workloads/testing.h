// Copyright 2026 The custody Authors.
//
// workloads/testing.h — runs a check on a workload under every policy (gc
// collecting every step) on every host backend, for the workloads' tests:
//
//   testing::for_each_runner<mlp::TensorPtrTrainer, mlp::DisposeTrainer, mlp::ScopeTrainer,
//                            mlp::GcTrainer, mlp::ManualTrainer>(data, [&](const std::string& name,
//                                                                         workloads::Runner& r) {...});
//
// The runner is made, handed to the check, finished; then the backend's live
// tensors and bytes must be back where they were (under gc after a
// collection and after disposing what the conservative stack scan still
// holds).

#ifndef CUSTODY_WORKLOADS_TESTING_H_
#define CUSTODY_WORKLOADS_TESTING_H_

#include <memory>
#include <string>

#include "backends/aten/aten.h"
#include "backends/onednn/onednn.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "workloads/workload.h"

namespace custody::workloads::testing {

template <class R, class B, class Data, class Check>
void run_one(const std::string& name, const Data& data, const RunOptions& options, Check& check) {
  SCOPED_TRACE(name + " on " + B::name);
  const StatsSnapshot before = B::stats().snapshot();
  const uint64_t since = gc::testing::next_serial();
  {
    R runner(data, options);
    check(name + ":" + B::name, static_cast<Runner&>(runner));
    runner.finish();
  }
  gc::collect();
  gc::testing::release_created_on_this_thread_since(since);
  const StatsSnapshot after = B::stats().snapshot();
  EXPECT_EQ(after.live_tensors, before.live_tensors) << "tensors left after finish()";
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use) << "bytes left after finish()";
}

template <template <class> class TensorPtrR, template <class> class DisposeR, template <class> class ScopeR,
          template <class> class GcR, template <class> class ManualR, class Data, class Check>
void for_each_runner(const Data& data, Check&& check) {
  RunOptions gc_options;
  gc_options.gc_mode = GcMode::kCollectEveryStep;
  const auto on = [&]<class B>() {
    run_one<TensorPtrR<B>, B>("tensor_ptr", data, {}, check);
    run_one<DisposeR<B>, B>("dispose", data, {}, check);
    run_one<ScopeR<B>, B>("scope", data, {}, check);
    run_one<GcR<B>, B>("gc", data, gc_options, check);
    run_one<ManualR<B>, B>("manual", data, {}, check);
  };
  on.template operator()<Onednn>();
  on.template operator()<Aten>();
}

}  // namespace custody::workloads::testing

#endif  // CUSTODY_WORKLOADS_TESTING_H_
