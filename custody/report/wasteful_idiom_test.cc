// Copyright 2026 The custody Authors.
//
// The held-dead report on a real idiom: mlp's dispose step, as written and in
// its deliberately wasteful variant (RunOptions::wasteful keeps the hidden
// activation `a = h.relu()` to the end of the step). The report must name
// the relu call in DisposeTrainer::step as the site and give its bytes ×
// steps exactly, as counted here from the history by a direct reading of the
// definition.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "backends/onednn/onednn.h"
#include "core/stats.h"
#include "gtest/gtest.h"
#include "custody/report/held_dead.h"
#include "workloads/mlp/dispose.h"
#include "workloads/mlp/mlp.h"

namespace {

using custody::MemoryEvent;
using custody::MemoryEventKind;
using custody::Onednn;
using custody::report::HeldDead;
using custody::report::SiteHeld;
namespace mlp = custody::workloads::mlp;

constexpr int kSteps = 5;

std::vector<MemoryEvent> record(const mlp::MlpData& data, bool wasteful) {
  custody::workloads::RunOptions options;
  options.wasteful = wasteful;
  mlp::DisposeTrainer<Onednn> trainer(data, options);
  trainer.step();  // warm-up
  custody::MemoryStats& stats = Onednn::stats();
  stats.record_history(true, /*with_sites=*/true);
  stats.mark();
  for (int i = 0; i < kSteps; ++i) {
    trainer.step();
    stats.mark();
  }
  stats.record_history(false);
  std::vector<MemoryEvent> history = stats.history();
  stats.clear_history();
  trainer.finish();
  return history;
}

// The activation `a = h.relu()`: the step's one unary op with a [batch, hidden]
// result (BasicTensor::relu itself may be inlined, as under ASan's -O1).
// (A frame reads "custody::internal::Ops<custody::Onednn>::unary(...)", or
// "Ops<>::unary()" where only the ELF symbol's abbreviated name is known.)
constexpr const char* kUnary = ">::unary(";
bool is_activation(const MemoryEvent& e, int64_t bytes) {
  return e.kind == MemoryEventKind::kAlloc && e.bytes == bytes &&
         absl::StrContains(e.site.to_string(), kUnary);
}

// Held dead of the activations, read off the history by the definition: per
// step, bytes × (kernels after the one that last used it, up to its free) /
// (kernels in the step), a kernel being a run of consecutive kUse events.
double activation_held_dead(const std::vector<MemoryEvent>& h, int64_t bytes) {
  double total = 0;
  size_t step_start = 0;
  for (size_t m = 1; m < h.size(); ++m) {
    if (h[m].kind != MemoryEventKind::kMark) continue;
    if (h[step_start].kind == MemoryEventKind::kMark) {
      std::vector<std::pair<size_t, size_t>> kernels;  // each run of kUse in this step: first, last
      for (size_t i = step_start + 1; i < m; ++i) {
        if (h[i].kind != MemoryEventKind::kUse) continue;
        if (h[i - 1].kind != MemoryEventKind::kUse) kernels.emplace_back(i, i);
        kernels.back().second = i;
      }
      for (size_t i = step_start + 1; i < m; ++i) {
        if (!is_activation(h[i], bytes)) continue;
        size_t last_use = i, freed = m;
        for (size_t j = i + 1; j < m; ++j) {
          if (h[j].address != h[i].address) continue;
          if (h[j].kind == MemoryEventKind::kUse) last_use = j;
          if (h[j].kind == MemoryEventKind::kFree) {
            freed = j;
            break;
          }
        }
        // Kernels that began after the one that last used it and ended before the free.
        int64_t after = 0;
        for (const auto& [first, last] : kernels) after += (first > last_use && last < freed) ? 1 : 0;
        total += static_cast<double>(h[i].bytes) * static_cast<double>(after) /
                 static_cast<double>(kernels.size());
      }
    }
    step_start = m;
  }
  return total;
}

const SiteHeld* activation_site(const HeldDead& r, int64_t bytes) {
  for (const SiteHeld& s : r.sites) {
    if (s.bytes == kSteps * bytes && s.allocations == kSteps && absl::StrContains(s.stack, kUnary)) return &s;
  }
  return nullptr;
}

TEST(WastefulIdiomTest, TheReportFindsTheActivationKeptToTheStepsEnd) {
  const mlp::MlpData data = mlp::make_data(mlp::MlpConfig{});
  const int64_t bytes = data.config.batch * data.config.hidden * static_cast<int64_t>(sizeof(float));
  const std::vector<MemoryEvent> careful_history = record(data, false);
  const std::vector<MemoryEvent> wasteful_history = record(data, true);
  const HeldDead careful = custody::report::held_dead(careful_history);
  const HeldDead wasteful = custody::report::held_dead(wasteful_history);
  ASSERT_FALSE(wasteful.sites.empty());

  // The wasteful variant's worst site is the activation, made in DisposeTrainer::step by relu.
  const SiteHeld& top = wasteful.sites[0];
  EXPECT_TRUE(absl::StrContains(top.frame, "DisposeTrainer")) << top.frame;
  EXPECT_TRUE(absl::StrContains(top.stack, kUnary)) << top.stack;
  EXPECT_EQ(top.allocations, kSteps);
  EXPECT_EQ(top.bytes, kSteps * bytes);
  const double expected = activation_held_dead(wasteful_history, bytes);
  EXPECT_GT(expected, 0.2 * kSteps * bytes);  // held for a good part of each step
  EXPECT_NEAR(top.held_dead_byte_steps, expected, 1e-9 * expected);

  // As written, the activation goes as soon as the call that last reads it
  // returns (linear_backward: its last kernels do not read it), and nothing
  // is held long.
  const SiteHeld* a = activation_site(careful, bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->held_dead_byte_steps, activation_held_dead(careful_history, bytes), 1e-9 * expected);
  EXPECT_LT(a->held_dead_byte_steps, 0.2 * a->byte_steps);
  EXPECT_GT(top.held_dead_byte_steps, 3 * a->held_dead_byte_steps);
  EXPECT_LT(careful.held_dead_share(), 0.1);
  // The waste is that one site: the rest of the step is unchanged.
  EXPECT_NEAR(wasteful.held_dead_byte_steps - careful.held_dead_byte_steps,
              top.held_dead_byte_steps - a->held_dead_byte_steps, 0.01 * top.held_dead_byte_steps);
}

}  // namespace
