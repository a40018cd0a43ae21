// Copyright 2026 The custody Authors.
//
// The tensor_ptr maker API (maker_suite.h) on every host backend. The ownership
// contract of the same handles runs in the conformance matrix.

#include "backends/aten/aten.h"
#include "backends/onednn/onednn.h"
#include "policies/tensor_ptr/maker_suite.h"

using MakerHandles =
    ::testing::Types<custody::BasicTensor<custody::tensor_ptr::Policy, custody::Onednn>,
                     custody::BasicTensor<custody::tensor_ptr::Policy, custody::Aten>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Makers, TensorPtrMakerTest, MakerHandles);

// maker_suite.h includes the contract suite for its helpers and fixture; the
// contract cases themselves are instantiated by the conformance matrix.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TensorPtrContractTest);
