// Copyright 2026 The custody Authors.
//
// The ops workload under every policy on every host backend: each round's
// checksum as the same rounds in plain libtorch; every tensor given back.

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "workloads/ops/ops.h"
#include "workloads/ops/runners.h"
#include "workloads/testing.h"

namespace custody::workloads::ops {
namespace {

TEST(Ops, ChecksumsMatchLibtorchUnderEveryPolicyAndBackend) {
  OpsConfig c;
  c.rows = 256;
  c.cols = 192;
  const OpsData data = make_data(c);
  constexpr int kRounds = 6;
  std::vector<double> reference;
  {
    std::unique_ptr<Mixer> peer = make_libtorch_mixer(data);
    for (int i = 0; i < kRounds; ++i) {
      peer->step();
      reference.push_back(peer->metric());
    }
  }
  testing::for_each_runner<RunnerFor>(
      data, [&](const std::string& name, Runner& mixer) {
        for (int i = 0; i < kRounds; ++i) {
          mixer.step();
          EXPECT_NEAR(mixer.metric(), reference[i], 1e-4 * (1 + std::fabs(reference[i]))) << name << ", round " << i;
        }
      });
}

}  // namespace
}  // namespace custody::workloads::ops
