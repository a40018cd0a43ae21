// Copyright 2026 The custody Authors.
//
// examples/mlp — trains the `mlp` workload's 2-layer MLP (workloads/mlp) on
// its seeded synthetic classification set until the held-out accuracy passes
// the bar, under the policy and backend chosen by the flags, written in that
// policy's idiom (workloads/mlp/<policy>.h, or the generic body it runs:
// tensor_ptr.h, collecting.h):
//
//   ./bazelw run //examples/mlp
//   ./bazelw run --//policies:policy=gc --//backends:backend=aten //examples/mlp
//   ./bazelw run //examples/mlp -- --max_steps=2000
//
// Exits with 1 when the bar is not passed within --max_steps.

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/flags/flags.h"
#include "workloads/mlp/selected.h"

ABSL_FLAG(int64_t, max_steps, 1000, "training steps at most, if the bar is not reached first (at least 1)");

int main(int argc, char** argv) {
  namespace mlp = custody::workloads::mlp;
  custody::flags::parse(argc, argv,
                        "trains the mlp workload to its accuracy bar under the policy and backend chosen "
                        "at build time");
  const int64_t max_steps = custody::flags::at_least("max_steps", absl::GetFlag(FLAGS_max_steps), 1);
  const mlp::MlpData data = mlp::make_data(mlp::MlpConfig{});
  const mlp::MlpConfig& c = data.config;
  const int64_t live_before = custody::SelectedBackend::stats().snapshot().live_tensors;
  std::cout << absl::StrFormat("mlp: policy %s, backend %s; %d-%d-%d, batch %d, lr %g, bar %.2f\n",
                               custody::SelectedPolicy::name, custody::SelectedBackend::name,
                               c.features, c.hidden, c.classes, c.batch, c.lr, c.accuracy_bar);
  mlp::SelectedTrainer trainer(data);
  int64_t steps = 0;
  double accuracy = trainer.accuracy();
  std::cout << absl::StrFormat("step %4d  held-out accuracy %.3f\n", steps, accuracy);
  constexpr int64_t kEvery = 25;
  while (accuracy < c.accuracy_bar && steps < max_steps) {
    trainer.train(kEvery);
    steps += kEvery;
    accuracy = trainer.accuracy();
    std::cout << absl::StrFormat("step %4d  loss %.4f  held-out accuracy %.3f\n", steps, trainer.metric(), accuracy);
  }
  trainer.finish();
  const int64_t left = custody::SelectedBackend::stats().snapshot().live_tensors - live_before;
  if (accuracy < c.accuracy_bar) {
    std::cout << absl::StrFormat("did not pass the accuracy bar %.2f in %d steps\n", c.accuracy_bar, steps);
    return 1;
  }
  std::cout << absl::StrFormat("passed the accuracy bar %.2f after %d steps (accuracy %.3f)\n",
                               c.accuracy_bar, steps, accuracy);
  std::cout << "live tensors after finish: " << left;
  if (left > 0 && std::string_view(custody::SelectedPolicy::name) == "gc") {
    std::cout << " (gc: the conservative collector still sees a pointer-like word to them)";
  }
  std::cout << "\n";
  return 0;
}
