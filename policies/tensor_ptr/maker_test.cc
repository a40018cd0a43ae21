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

namespace {

// clone_tensor_ptr_to<To>: a copy on another backend, here between the two host backends (to and
// from a device backend it is the same code: the source's copy_to_host, the target's copy_from_host).
TEST(CloneTensorPtrTo, CopiesBetweenBackendsWithSizesDtypeAndValues) {
  using custody::Aten;
  using custody::Onednn;
  using custody::tensor_ptr::TensorPtrOn;
  namespace tp = custody::tensor_ptr;
  TensorPtrOn<Onednn> a = tp::make_tensor_ptr<Onednn>({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorPtrOn<Aten> b = tp::clone_tensor_ptr_to<Aten>(a.transpose(0, 1));
  EXPECT_EQ(b.scalar_type(), custody::ScalarType::Int);
  EXPECT_EQ(std::vector<int64_t>(b.sizes().begin(), b.sizes().end()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  TensorPtrOn<Onednn> c = tp::clone_tensor_ptr_to<Onednn>(b);
  EXPECT_EQ(c.to_vector<int32_t>(), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_NE(c->const_data_ptr(), a->const_data_ptr()) << "a copy, not a view";
  TensorPtrOn<Onednn> null;
  EXPECT_THROW(tp::clone_tensor_ptr_to<Aten>(null), custody::LifetimeError);
}

}  // namespace
