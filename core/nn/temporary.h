// Copyright 2026 The custody Authors.
//
// core/nn/temporary.h — `nn::Temporary<T>`, the name core/nn's code uses for
// custody::Temporary (core/temporary.h).

#ifndef CUSTODY_CORE_NN_TEMPORARY_H_
#define CUSTODY_CORE_NN_TEMPORARY_H_

#include "core/temporary.h"
#include "core/tensor.h"

namespace custody::nn {
using custody::Temporary;
}  // namespace custody::nn

#endif  // CUSTODY_CORE_NN_TEMPORARY_H_
