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

// A small model: the same code paths as the compare tool's (every piece of the step, dropout
// included) at a size that keeps every policy x backend x pathology fast on a CI machine that runs
// other tests beside this one (docs/decisions.md, "The train workload's pathologies").
TrainConfig test_config(Pathology pathology = Pathology::kNone) {
  TrainConfig c;
  c.vocab = 32;
  c.dim = 32;
  c.hidden_dim = 64;
  c.n_layers = 2;
  c.n_heads = 2;
  c.seq = 16;
  c.batch = 4;
  c.stream_length = 2048;
  c.pathology = pathology;
  return c;
}

std::vector<double> losses(Trainer& t, int64_t steps) {
  std::vector<double> out;
  for (int64_t i = 0; i < steps; ++i) {
    t.step();
    out.push_back(t.metric());
  }
  return out;
}

// Every policy's losses against the peer's, step by step, for `pathology`.
void expect_losses_as_libtorchs(Pathology pathology) {
  const TrainData data = make_data(test_config(pathology));
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

TEST(Train, LossesAreLibtorchsUnderEveryPolicyAndBackend) { expect_losses_as_libtorchs(Pathology::kNone); }

// Every step's graph stays reachable from the running total: its nodes (not
// its saved tensors, given back by each backward) are held until the total
// goes; finish() gives them back (for_each_runner checks no node is left).
TEST(Train, KeepLossHoldsEveryStepsGraphNodesUntilTheTotalGoes) {
  expect_losses_as_libtorchs(Pathology::kKeepLoss);
  const TrainData data = make_data(test_config(Pathology::kKeepLoss));
  testing::for_each_runner<RunnerFor>(data, [&](const std::string& name, Runner& runner) {
    auto& trainer = dynamic_cast<Trainer&>(runner);
    trainer.step();
    const double one = trainer.figures().at(0).value;
    trainer.step();
    trainer.step();
    EXPECT_GT(one, 0) << name;
    EXPECT_EQ(trainer.figures().at(0).value, 3 * one + 2) << name << ": three steps' graphs and two adds";
  });
}

// Double backward through the whole model, as torch computes it; the
// gradients hold their graphs (and so their parameters) between steps, and
// finish() still leaves nothing: the store drops its parameters' gradients.
TEST(Train, CreateGraphGradientPenaltyIsLibtorchsAndLeavesNothing) {
  expect_losses_as_libtorchs(Pathology::kCreateGraph);
}

// Gradients of parameters made outside the micro-batches' regions belong to
// the parameters: they survive each region's end and accumulate, and the step
// after the regions sees all of them (the loss equals torch's accumulation).
TEST(Train, ScopedGradsAccumulateAcrossRegions) { expect_losses_as_libtorchs(Pathology::kScopedGrads); }

TEST(Train, TheModelLearnsTheStream) {
  const TrainData data = make_data(TrainConfig{});  // the compare tool's model, on libtorch alone
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
