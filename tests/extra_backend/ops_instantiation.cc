// Copyright 2026 The custody Authors.
//
// The op layer (core/ops_impl.h), compiled once for the loops backend.

#include "core/ops_impl.h"
#include "tests/extra_backend/loops.h"

template struct custody::internal::Ops<custody::Loops>;
