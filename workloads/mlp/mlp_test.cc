// Copyright 2026 The custody Authors.
//
// The mlp workload under every policy on every host backend: the same losses
// as the same training in plain libtorch, step by step; the accuracy bar
// passed; every tensor given back at the end.

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "workloads/mlp/mlp.h"
#include "workloads/mlp/runners.h"
#include "workloads/testing.h"

namespace custody::workloads::mlp {
namespace {

constexpr int64_t kSteps = 150;

TEST(Mlp, LossesMatchLibtorchAndTheBarIsPassedUnderEveryPolicyAndBackend) {
  const MlpData data = make_data(MlpConfig{});
  std::vector<double> reference;
  double reference_accuracy = 0;
  {
    std::unique_ptr<Trainer> peer = make_libtorch_trainer(data);
    for (int64_t i = 0; i < kSteps; ++i) {
      peer->step();
      reference.push_back(peer->metric());
    }
    reference_accuracy = peer->accuracy();
  }
  ASSERT_GE(reference_accuracy, data.config.accuracy_bar) << "libtorch itself misses the bar";
  testing::for_each_runner<RunnerFor>(
      data, [&](const std::string& name, Runner& runner) {
        auto& trainer = dynamic_cast<Trainer&>(runner);
        for (int64_t i = 0; i < kSteps; ++i) {
          trainer.step();
          ASSERT_NEAR(trainer.metric(), reference[static_cast<size_t>(i)], 1e-4 * (1 + reference[static_cast<size_t>(i)]))
              << name << ": loss of step " << i;
        }
        const double accuracy = trainer.accuracy();
        EXPECT_GE(accuracy, data.config.accuracy_bar) << name;
        EXPECT_NEAR(accuracy, reference_accuracy, 2.0 / static_cast<double>(data.config.eval_size)) << name;
      });
}

}  // namespace
}  // namespace custody::workloads::mlp
