// Copyright 2026 The custody Authors.
//
// core/ops_impl.h — definitions of internal::Ops<Backend> (declared in
// core/ops.h). Include this only in the one .cc per backend that explicitly
// instantiates `template struct custody::internal::Ops<ThatBackend>;`.
//
// The definitions are in one header per kind of op, all included here:
//   core/ops_impl_factories.h    allocation with retry, the factories, resize
//   core/ops_impl_copy.h         copies, conversions, reshapes, indexing, cat
//   core/ops_impl_elementwise.h  binary and unary ops, in-place forms, where
//   core/ops_impl_reduce.h       reductions, softmax, matmul

#ifndef CUSTODY_CORE_OPS_IMPL_H_
#define CUSTODY_CORE_OPS_IMPL_H_

#include "core/ops_impl_copy.h"
#include "core/ops_impl_elementwise.h"
#include "core/ops_impl_factories.h"
#include "core/ops_impl_reduce.h"

#endif  // CUSTODY_CORE_OPS_IMPL_H_
