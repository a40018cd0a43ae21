// Copyright 2026 The custody Authors.
//
// The op layer for the opaque test backend, compiled once here (see core/ops.h).

#include "backends/opaque/opaque.h"
#include "core/ops_impl.h"

template struct custody::internal::Ops<custody::Opaque>;
