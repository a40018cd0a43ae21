// Copyright 2026 The custody Authors.
//
// The op layer for the CUDA backend, compiled once here (see core/ops.h).

#include "backends/cuda/cuda.h"
#include "core/ops_impl.h"

template struct custody::internal::Ops<custody::Cuda>;
