// Copyright 2026 The custody Authors.
//
// tools/bench/mlp_step_aten.h — the MLP training step of mlp_step.h in plain
// libtorch (at:: ops, at::Tensor temporaries freed by their destructors): the
// libtorch peer of the MLP benchmark, and the reference mlp_step_test.cc checks
// custody against. No torch header here: the at:: code is in mlp_step_aten.cc.
//
//   AtenMlp net(make_mlp_data());
//   float loss = net.step(0.1f);
//   MlpWeights w = net.weights();

#ifndef CUSTODY_TOOLS_BENCH_MLP_STEP_ATEN_H_
#define CUSTODY_TOOLS_BENCH_MLP_STEP_ATEN_H_

#include <memory>

#include "tools/bench/mlp_step.h"

namespace custody::bench {

class AtenMlp {
 public:
  // Copies the batch and the initial parameters into at::Tensors.
  explicit AtenMlp(const MlpData& data);
  ~AtenMlp();
  AtenMlp(const AtenMlp&) = delete;
  AtenMlp& operator=(const AtenMlp&) = delete;

  // One forward + backward + SGD step (as custody::bench::mlp_step); returns
  // the loss before the update.
  float step(float lr);
  // The current parameters, copied to host vectors.
  MlpWeights weights() const;

 private:
  struct Tensors;
  std::unique_ptr<Tensors> t_;
};

}  // namespace custody::bench

#endif  // CUSTODY_TOOLS_BENCH_MLP_STEP_ATEN_H_
