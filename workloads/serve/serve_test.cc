// Copyright 2026 The custody Authors.
//
// The serve workload under every policy on every host backend: every answer
// as libtorch's same server gives it; on 4 workers exactly the answers of 1
// worker (the thread schedule changes nothing); every tensor given back once
// the server finishes, though each was made on one thread and released on
// another.

#include <map>
#include <string>
#include <vector>

#include "backends/onednn/onednn.h"
#include "gtest/gtest.h"
#include "policies/gc/gc.h"
#include "custody/lists/all_policies.h"
#include "core/policy_idiom.h"
#include "custody/lists/type_list.h"
#include "workloads/serve/runners.h"
#include "workloads/serve/serve.h"
#include "workloads/testing.h"

namespace custody::workloads::serve {
namespace {

constexpr int kSteps = 3;

std::vector<Answer> serve_with(Server& server) {
  for (int i = 0; i < kSteps; ++i) server.step();
  return server.answers();
}

TEST(Serve, AnswersAreLibtorchsOnAnyNumberOfWorkersUnderEveryPolicyAndBackend) {
  ServeConfig config;
  config.workers = 1;
  const ServeData one = make_data(config);
  config.workers = 4;
  const ServeData four = make_data(config);
  std::vector<Answer> reference;
  {
    std::unique_ptr<Server> peer = make_libtorch_server(four);
    reference = serve_with(*peer);
    peer->finish();
  }
  ASSERT_EQ(reference.size(), static_cast<size_t>(kSteps * four.config.requests_per_step));
  std::map<std::string, std::vector<Answer>> on_one_worker;
  {
  SCOPED_TRACE("one worker");
  testing::for_each_runner<RunnerFor>(one, [&](const std::string& name, Runner& runner) {
    on_one_worker[name] = serve_with(dynamic_cast<Server&>(runner));
  });
  }
  SCOPED_TRACE("four workers");
  testing::for_each_runner<RunnerFor>(four, [&](const std::string& name, Runner& runner) {
    auto& server = dynamic_cast<Server&>(runner);
    const std::vector<Answer> answers = serve_with(server);
    ASSERT_EQ(answers.size(), reference.size()) << name;
    EXPECT_TRUE(answers == on_one_worker[name]) << name << ": 4 workers answered otherwise than 1";
    for (size_t id = 0; id < answers.size(); ++id) {
      EXPECT_EQ(answers[id].classes, reference[id].classes) << name << ": request " << id;
      ASSERT_EQ(answers[id].probabilities.size(), reference[id].probabilities.size());
      for (size_t k = 0; k < answers[id].probabilities.size(); ++k) {
        ASSERT_NEAR(answers[id].probabilities[k], reference[id].probabilities[k], 1e-5)
            << name << ": request " << id << ", value " << k;
      }
    }
    const std::vector<Figure> f = server.figures();
    ASSERT_EQ(f.size(), 4u);
    EXPECT_EQ(f[0].value, 4) << "workers";
    EXPECT_GT(f[1].value, 0) << "requests_per_s";
    EXPECT_LE(f[2].value, f[3].value) << "p50 <= p99";
  });
}

// The threads themselves, for ThreadSanitizer and AddressSanitizer (CI's tsan
// run takes the tests named *Thread*): every policy's server on 4 workers and
// on 1, under the gc pressure trigger at 1 MiB so that collections stop
// workers mid-request; the same answers, nothing left. onednn only: libtorch
// is not built with the sanitizers. Under ThreadSanitizer the collector never
// runs (Note [ThreadSanitizer], policies/gc/gc.h): the Reap gives back what
// gc's server left instead of the finalizers.
TEST(ServeThreads, FourWorkersAnswerAsOneAndLeaveNothingUnderEveryPolicy) {
  using custody::PolicyIdiom;
  ServeConfig config;
  config.requests_per_step = 16;
  config.workers = 1;
  const ServeData one = make_data(config);
  config.workers = 4;
  const ServeData four = make_data(config);
  RunOptions options;
  options.collect_mode = CollectMode::kPressureTrigger;
  options.trigger_bytes = int64_t{1} << 20;
  custody::lists::for_each_type(custody::lists::AllPolicies{}, [&]<class P>() {
    SCOPED_TRACE(P::name);
    using R = RunnerFor<P, Onednn>;
    const StatsSnapshot before = Onednn::stats().snapshot();
    std::vector<Answer> answers[2];
    {
      typename PolicyIdiom<P>::Reap reap(custody::kAllThreads);
      for (int k = 0; k < 2; ++k) {
        R server(k == 0 ? one : four, options);
        answers[k] = serve_with(server);
        server.finish();
      }
    }
    EXPECT_TRUE(answers[0] == answers[1]) << "several workers answered otherwise than 1";
    if (!PolicyIdiom<P>::kCollects || gc::collector_enabled()) {
      EXPECT_LE(PolicyIdiom<P>::last_reaped(), PolicyIdiom<P>::kScanKeeps);
    }
    const StatsSnapshot after = Onednn::stats().snapshot();
    EXPECT_EQ(after.live_tensors, before.live_tensors);
    EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  });
}

}  // namespace
}  // namespace custody::workloads::serve
