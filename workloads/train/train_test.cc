// Copyright 2026 The custody Authors.
//
// The train workload under every policy on every host backend: the losses of
// the same training on libtorch's autograd and torch::optim::AdamW (same
// weights, batches and dropout masks), step by step; every tensor — graphs
// and optimizer state included — given back at the end. And the model learns.

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "workloads/testing.h"
#include "workloads/train/runners.h"
#include "workloads/train/train.h"

namespace custody::workloads::train {
namespace {

constexpr int64_t kSteps = 6;

std::vector<double> losses(Trainer& t, int64_t steps) {
  std::vector<double> out;
  for (int64_t i = 0; i < steps; ++i) {
    t.step();
    out.push_back(t.metric());
  }
  return out;
}

TEST(Train, LossesAreLibtorchsUnderEveryPolicyAndBackend) {
  const TrainData data = make_data(TrainConfig{});
  std::vector<double> peer;
  {
    std::unique_ptr<Trainer> t = make_libtorch_trainer(data);
    peer = losses(*t, kSteps);
  }
  testing::for_each_runner<RunnerFor>(data, [&](const std::string& name, Runner& runner) {
    auto& trainer = dynamic_cast<Trainer&>(runner);
    for (int64_t i = 0; i < kSteps; ++i) {
      trainer.step();
      ASSERT_NEAR(trainer.metric(), peer[static_cast<size_t>(i)], 1e-4 * peer[static_cast<size_t>(i)])
          << name << ": loss of step " << i;
    }
  });
}

TEST(Train, TheModelLearnsTheStream) {
  const TrainData data = make_data(TrainConfig{});
  std::unique_ptr<Trainer> t = make_libtorch_trainer(data);
  const std::vector<double> l = losses(*t, 40);
  EXPECT_LT(l.back(), 0.7 * l.front()) << "40 AdamW steps lower the loss";
}

TEST(Train, BadConfigsAreRefusedNamingTheField) {
  TrainConfig c;
  c.dim = 66;  // not a multiple of 4 heads
  EXPECT_THROW(make_data(c), InvalidArgument);
  c = TrainConfig{};
  c.dropout = 1.0;
  EXPECT_THROW(make_data(c), InvalidArgument);
  c = TrainConfig{};
  c.stream_length = c.seq;
  EXPECT_THROW(make_data(c), InvalidArgument);
}

}  // namespace
}  // namespace custody::workloads::train
