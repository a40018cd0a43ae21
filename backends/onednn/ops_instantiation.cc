// Copyright 2026 The custody Authors.
//
// The op layer for the oneDNN backend, compiled once here (see core/ops.h).

#include "backends/onednn/onednn.h"
#include "core/ops_impl.h"

template struct custody::internal::Ops<custody::Onednn>;
