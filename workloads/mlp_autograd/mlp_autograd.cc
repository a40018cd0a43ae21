// Copyright 2026 The custody Authors.

#include "workloads/mlp_autograd/mlp_autograd.h"

namespace custody::workloads::mlp_autograd {

MlpData make_data(const MlpConfig& config) { return mlp::make_data(config); }

}  // namespace custody::workloads::mlp_autograd
