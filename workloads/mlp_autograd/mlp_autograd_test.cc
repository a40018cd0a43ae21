// Copyright 2026 The custody Authors.
//
// The mlp_autograd workload under every policy on every host backend: the
// losses of mlp's hand-written training (its libtorch peer), step by step, and
// of the same training on libtorch's autograd; the accuracy bar passed; every
// tensor — the graphs' included — given back at the end.

#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "workloads/mlp/mlp.h"
#include "workloads/mlp_autograd/mlp_autograd.h"
#include "workloads/mlp_autograd/runners.h"
#include "workloads/testing.h"

namespace custody::workloads::mlp_autograd {
namespace {

constexpr int64_t kSteps = 60;

std::vector<double> losses(Trainer& t, int64_t steps) {
  std::vector<double> out;
  for (int64_t i = 0; i < steps; ++i) {
    t.step();
    out.push_back(t.metric());
  }
  return out;
}

TEST(MlpAutograd, LossesAreTheHandWrittenOnesUnderEveryPolicyAndBackend) {
  const MlpData data = mlp_autograd::make_data(MlpConfig{});
  std::vector<double> hand_written, tape;
  {
    std::unique_ptr<Trainer> peer = mlp::make_libtorch_trainer(data);
    hand_written = losses(*peer, kSteps);
  }
  {
    std::unique_ptr<Trainer> peer = mlp_autograd::make_libtorch_trainer(data);
    tape = losses(*peer, kSteps);
  }
  for (int64_t i = 0; i < kSteps; ++i) {
    ASSERT_NEAR(tape[static_cast<size_t>(i)], hand_written[static_cast<size_t>(i)],
                1e-4 * (1 + hand_written[static_cast<size_t>(i)]))
        << "libtorch's autograd against the hand-written gradients, step " << i;
  }
  testing::for_each_runner<RunnerFor>(data, [&](const std::string& name, Runner& runner) {
    auto& trainer = dynamic_cast<Trainer&>(runner);
    for (int64_t i = 0; i < kSteps; ++i) {
      trainer.step();
      ASSERT_NEAR(trainer.metric(), hand_written[static_cast<size_t>(i)],
                  1e-4 * (1 + hand_written[static_cast<size_t>(i)]))
          << name << ": loss of step " << i;
    }
    EXPECT_GE(trainer.accuracy(), 0.5) << name << ": " << kSteps << " steps learn something";
  });
}

}  // namespace
}  // namespace custody::workloads::mlp_autograd
