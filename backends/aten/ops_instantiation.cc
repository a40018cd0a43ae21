// Copyright 2026 The custody Authors.
//
// The op layer for the Aten backend, compiled once here (see core/ops.h). This
// translation unit includes no torch header: the kernels it calls are declared
// in aten.h and defined in aten.cc.

#include "backends/aten/aten.h"
#include "core/ops_impl.h"

template struct custody::internal::Ops<custody::Aten>;
