// Copyright 2026 The custody Authors.
//
// Instantiates the kernel suites for one backend (kernels_<backend>), under
// the policy //tools/build_defs:matrix.bzl names for the kernel axis: what a
// backend computes does not depend on how handles own the tensors, so these
// suites run once per backend, not once per policy. Nothing here lists
// policies or backends.

#include "tests/conformance/kernel_suites.h"

// From //tools/build_defs:matrix.bzl.
#include CUSTODY_POLICY_TESTING_HEADER
#include CUSTODY_BACKEND_HEADER

using KernelPolicy = CUSTODY_POLICY_TYPE;
using TestBackend = CUSTODY_BACKEND_TYPE;

using KernelCombination = ::testing::Types<custody::BasicTensor<KernelPolicy, TestBackend>>;

namespace custody::testing {
CUSTODY_INSTANTIATE_KERNEL_SUITES(KernelCombination);
}  // namespace custody::testing
