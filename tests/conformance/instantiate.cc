// Copyright 2026 The custody Authors.
//
// Instantiates every conformance suite for one (policy, backend) combination.
// //tools/build_defs:matrix.bzl compiles this file once per combination with
// CUSTODY_POLICY_<P> and CUSTODY_BACKEND_<B> defined.

#include "tests/conformance/suites.h"

#if defined(CUSTODY_POLICY_TENSOR_PTR)
#include "policies/tensor_ptr/contract_suite.h"
using TestPolicy = custody::tensor_ptr::Policy;
#define CUSTODY_POLICY_CONTRACT_SUITE TensorPtrContractTest
#elif defined(CUSTODY_POLICY_DISPOSE)
#include "policies/dispose/contract_suite.h"
using TestPolicy = custody::dispose::Policy;
#define CUSTODY_POLICY_CONTRACT_SUITE DisposeContractTest
#elif defined(CUSTODY_POLICY_SCOPE)
#include "policies/scope/contract_suite.h"
using TestPolicy = custody::scope::Policy;
#define CUSTODY_POLICY_CONTRACT_SUITE ScopeContractTest
#elif defined(CUSTODY_POLICY_GC)
#include "policies/gc/contract_suite.h"
using TestPolicy = custody::gc::Policy;
#define CUSTODY_POLICY_CONTRACT_SUITE GcContractTest
#elif defined(CUSTODY_POLICY_MANUAL)
#include "policies/manual/contract_suite.h"
using TestPolicy = custody::manual::Policy;
#define CUSTODY_POLICY_CONTRACT_SUITE ManualContractTest
#else
#error "define one CUSTODY_POLICY_<name>"
#endif

#if defined(CUSTODY_BACKEND_ONEDNN)
#include "backends/onednn/onednn.h"
using TestBackend = custody::Onednn;
#elif defined(CUSTODY_BACKEND_CUDA)
#include "backends/cuda/cuda.h"
using TestBackend = custody::Cuda;
#elif defined(CUSTODY_BACKEND_ATEN)
#include "backends/aten/aten.h"
using TestBackend = custody::Aten;
#else
#error "define one CUSTODY_BACKEND_<name>"
#endif

using Combination = ::testing::Types<custody::BasicTensor<TestPolicy, TestBackend>>;

// Suites live in namespace custody::testing (their contract suites too).
namespace custody::testing {
CUSTODY_INSTANTIATE_GENERIC_SUITES(Combination);
INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, CUSTODY_POLICY_CONTRACT_SUITE, Combination);
}  // namespace custody::testing
