// Copyright 2026 The custody Authors.
//
// ExecuTorch's extension/tensor behaviour, asserted through the compatibility
// header (policies/tensor_ptr/executorch.h) in ExecuTorch's own spelling: these
// bodies are written as ExecuTorch's tensor_ptr tests are (namespaces, types,
// calls), with the behaviour its tests and headers document. Where ExecuTorch
// aborts (ET_EXPECT_DEATH), custody throws a typed custody::Error
// (EXECUTORCH.md, difference 1); those cases say which.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "core/random.h"
#include "custody/tensor_ptr.h"
#include "gtest/gtest.h"

using namespace ::executorch::extension;
using ::executorch::aten::ScalarType;
using ::executorch::aten::TensorShapeDynamism;
using ::executorch::runtime::Error;

namespace {

// A TensorPtr over `n` heap floats 1, 2, ..., whose deleter frees them and sets *freed.
TensorPtr owned_by_deleter(int n, bool* freed) {
  auto* data = new float[n];
  for (int i = 0; i < n; ++i) data[i] = static_cast<float>(i + 1);
  return make_tensor_ptr({n}, data, ScalarType::Float, TensorShapeDynamism::DYNAMIC_BOUND,
                         [freed](void* p) {
                           *freed = true;
                           delete[] static_cast<float*>(p);
                         });
}

TEST(ExecuTorchTensorPtrTest, ScalarTensorCreation) {
  float scalar_data = 3.14f;
  auto tensor = make_tensor_ptr({}, &scalar_data);
  EXPECT_EQ(tensor->numel(), 1);
  EXPECT_EQ(tensor->dim(), 0);
  EXPECT_EQ(tensor->sizes().size(), 0);
  EXPECT_EQ(tensor->strides().size(), 0);
  EXPECT_EQ(tensor->const_data_ptr<float>(), &scalar_data);
  EXPECT_EQ(tensor->const_data_ptr<float>()[0], 3.14f);
}

TEST(ExecuTorchTensorPtrTest, ScalarTensorSingleValueCreation) {
  auto tensor_float = make_tensor_ptr(3.14f);
  EXPECT_EQ(tensor_float->dim(), 0);
  EXPECT_EQ(tensor_float->numel(), 1);
  EXPECT_EQ(tensor_float->const_data_ptr<float>()[0], 3.14f);
  EXPECT_EQ(tensor_float->scalar_type(), ScalarType::Float);

  auto tensor_int32 = make_tensor_ptr(42);
  EXPECT_EQ(tensor_int32->const_data_ptr<int32_t>()[0], 42);
  EXPECT_EQ(tensor_int32->scalar_type(), ScalarType::Int);

  auto tensor_double = make_tensor_ptr(2.718);
  EXPECT_EQ(tensor_double->const_data_ptr<double>()[0], 2.718);
  EXPECT_EQ(tensor_double->scalar_type(), ScalarType::Double);

  auto tensor_int64 = make_tensor_ptr(static_cast<int64_t>(10000000000));
  EXPECT_EQ(tensor_int64->const_data_ptr<int64_t>()[0], 10000000000);
  EXPECT_EQ(tensor_int64->scalar_type(), ScalarType::Long);
}

TEST(ExecuTorchTensorPtrTest, TensorSharingImpl) {
  float data[20] = {2};
  auto tensor1 = make_tensor_ptr({4, 5}, data);
  auto tensor2 = tensor1;
  EXPECT_EQ(tensor1.get(), tensor2.get());
  EXPECT_EQ(tensor1->unsafeGetTensorImpl(), tensor2->unsafeGetTensorImpl());
}

TEST(ExecuTorchTensorPtrTest, TensorResize) {
  float data[20] = {2};
  auto tensor = make_tensor_ptr({4, 5}, data, {}, {}, ScalarType::Float,
                                TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(resize_tensor_ptr(tensor, {5, 4}), Error::Ok);
  EXPECT_EQ(tensor->size(0), 5);
  EXPECT_EQ(tensor->size(1), 4);
}

TEST(ExecuTorchTensorPtrTest, TensorOwningData) {
  auto tensor = make_tensor_ptr({2, 5}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 10.f}, {1, 0},
                                {1, 2});
  EXPECT_EQ(tensor->size(0), 2);
  EXPECT_EQ(tensor->size(1), 5);
  EXPECT_EQ(tensor->strides()[0], 1);
  EXPECT_EQ(tensor->strides()[1], 2);
  EXPECT_EQ(tensor->const_data_ptr<float>()[0], 1);
  EXPECT_EQ(tensor->const_data_ptr<float>()[9], 10);
}

TEST(ExecuTorchTensorPtrTest, TensorDataOnlyUint8Type) {
  std::vector<uint8_t> data = {10, 20, 30, 40};
  auto tensor = make_tensor_ptr(std::move(data));
  EXPECT_EQ(tensor->dim(), 1);
  EXPECT_EQ(tensor->size(0), 4);
  EXPECT_EQ(tensor->scalar_type(), ScalarType::Byte);
  EXPECT_EQ(tensor->const_data_ptr<uint8_t>()[3], 40);
}

TEST(ExecuTorchTensorPtrTest, TensorSharingImplResizingAffectsBothVector) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  auto tensor1 = make_tensor_ptr({3, 4}, std::move(data));
  auto tensor2 = tensor1;
  EXPECT_EQ(resize_tensor_ptr(tensor1, {2, 6}), Error::Ok);
  EXPECT_EQ(tensor2->size(0), 2);
  EXPECT_EQ(tensor2->size(1), 6);
  EXPECT_EQ(resize_tensor_ptr(tensor2, {4, 3}), Error::Ok);
  EXPECT_EQ(tensor1->size(0), 4);
  EXPECT_EQ(tensor1->size(1), 3);
}

TEST(ExecuTorchTensorPtrTest, MakeTensorPtrFromExistingTensorInt32) {
  std::vector<int32_t> data = {1, 2, 3, 4};
  auto tensor = make_tensor_ptr({2, 2}, data);
  auto new_tensor = make_tensor_ptr(*tensor);
  EXPECT_EQ(new_tensor->dim(), tensor->dim());
  EXPECT_EQ(new_tensor->size(0), tensor->size(0));
  EXPECT_EQ(new_tensor->size(1), tensor->size(1));
  EXPECT_EQ(new_tensor->const_data_ptr<int32_t>(), tensor->const_data_ptr<int32_t>());
  EXPECT_EQ(new_tensor->scalar_type(), ScalarType::Int);
}

TEST(ExecuTorchTensorPtrTest, MakeViewOverrideSizesRankIncrease) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  auto tensor = make_tensor_ptr({2, 3}, std::move(data));
  auto view = make_tensor_ptr(tensor, {1, 2, 3});
  EXPECT_EQ(view->dim(), 3);
  EXPECT_EQ(view->size(0), 1);
  EXPECT_EQ(view->size(1), 2);
  EXPECT_EQ(view->size(2), 3);
  EXPECT_EQ(view->strides()[0], 6);
  EXPECT_EQ(view->strides()[1], 3);
  EXPECT_EQ(view->strides()[2], 1);
  EXPECT_EQ(view->const_data_ptr<float>(), tensor->const_data_ptr<float>());
}

TEST(ExecuTorchTensorPtrTest, MakeViewOverrideSizesSameRankRecomputesStrides) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data);
  auto view = make_tensor_ptr(tensor, {4, 3});
  EXPECT_EQ(view->strides()[0], 3);
  EXPECT_EQ(view->strides()[1], 1);
}

TEST(ExecuTorchTensorPtrTest, MakeViewOverrideDimOrderOnly) {
  float data[6] = {0};
  auto tensor = make_tensor_ptr({2, 3}, data);
  auto view = make_tensor_ptr(tensor, {}, {1, 0}, {});
  EXPECT_EQ(view->size(0), 2);
  EXPECT_EQ(view->size(1), 3);
  EXPECT_EQ(view->strides()[0], 1);
  EXPECT_EQ(view->strides()[1], 2);
}

TEST(ExecuTorchTensorPtrTest, MakeViewOverrideStridesOnlyInfersDimOrder) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data);
  auto view = make_tensor_ptr(tensor, {}, {}, {1, 3});
  EXPECT_EQ(view->size(0), 3);
  EXPECT_EQ(view->size(1), 4);
  EXPECT_EQ(view->strides()[0], 1);
  EXPECT_EQ(view->strides()[1], 3);
}

TEST(ExecuTorchTensorPtrTest, MakeViewReuseMetadataWhenShapeSame) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data, {1, 0}, {1, 3});
  auto view = make_tensor_ptr(tensor, {3, 4});
  EXPECT_EQ(view->strides()[0], 1);
  EXPECT_EQ(view->strides()[1], 3);
}

TEST(ExecuTorchTensorPtrTest, MakeViewShapeChangeWithExplicitOldStridesIsAnError) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data);
  // ExecuTorch aborts; custody throws (strides {4, 1} do not fit sizes {2, 6}).
  EXPECT_THROW(make_tensor_ptr(tensor, {2, 6}, {}, {4, 1}), ::custody::Error);
}

TEST(ExecuTorchTensorPtrTest, MakeViewInvalidDimOrderIsAnError) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data);
  EXPECT_THROW(make_tensor_ptr(tensor, {3, 4}, {2, 1}, {1, 4}), ::custody::ShapeError);
}

TEST(ExecuTorchTensorPtrTest, MakeViewRankDecreaseFlatten) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  auto tensor = make_tensor_ptr({2, 3}, data, {}, {}, ScalarType::Float,
                                TensorShapeDynamism::DYNAMIC_UNBOUND);
  auto view = make_tensor_ptr(tensor, {6});
  EXPECT_EQ(view->dim(), 1);
  EXPECT_EQ(view->size(0), 6);
  EXPECT_EQ(view->strides()[0], 1);
  EXPECT_NE(tensor->unsafeGetTensorImpl(), view->unsafeGetTensorImpl());
  EXPECT_EQ(resize_tensor_ptr(view, {3, 2}), Error::NotSupported);
  EXPECT_EQ(view->dim(), 1);
  EXPECT_EQ(view->size(0), 6);
}

TEST(ExecuTorchTensorPtrTest, MakeViewFromScalarAliasAnd1D) {
  float scalar_value = 7.f;
  auto tensor = make_tensor_ptr({}, &scalar_value);
  auto alias = make_tensor_ptr(tensor);
  EXPECT_EQ(alias->dim(), 0);
  EXPECT_EQ(alias->numel(), 1);
  auto reshaped = make_tensor_ptr(tensor, {1});
  EXPECT_EQ(reshaped->dim(), 1);
  EXPECT_EQ(reshaped->size(0), 1);
  EXPECT_EQ(reshaped->strides()[0], 1);
  EXPECT_THROW(make_tensor_ptr(tensor, {}, {0}, {}), ::custody::ShapeError);
  EXPECT_THROW(make_tensor_ptr(tensor, {}, {}, {1}), ::custody::ShapeError);
}

TEST(ExecuTorchTensorPtrTest, MakeViewExplicitDimOrderAndStridesShapeChange) {
  float data[6] = {0};
  auto tensor = make_tensor_ptr({2, 3}, data);
  auto view = make_tensor_ptr(tensor, {3, 2}, {1, 0}, {1, 3});
  EXPECT_EQ(view->size(0), 3);
  EXPECT_EQ(view->size(1), 2);
  EXPECT_EQ(view->strides()[0], 1);
  EXPECT_EQ(view->strides()[1], 3);
}

TEST(ExecuTorchTensorPtrTest, MakeView3DDimOrderOnly) {
  float data[24] = {0};
  auto tensor = make_tensor_ptr({2, 3, 4}, data);
  auto view = make_tensor_ptr(tensor, {}, {2, 0, 1}, {});
  EXPECT_EQ(view->strides()[0], 3);
  EXPECT_EQ(view->strides()[1], 1);
  EXPECT_EQ(view->strides()[2], 6);
}

TEST(ExecuTorchTensorPtrTest, MakeViewDynamismPropagationResizeAlias) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data, {}, {}, ScalarType::Float,
                                TensorShapeDynamism::DYNAMIC_UNBOUND);
  auto alias = make_tensor_ptr(tensor);
  EXPECT_EQ(resize_tensor_ptr(alias, {2, 6}), Error::Ok);
  EXPECT_EQ(alias->size(0), 2);
  EXPECT_EQ(alias->size(1), 6);
  EXPECT_EQ(tensor->size(0), 3);
  EXPECT_EQ(tensor->size(1), 4);
}

TEST(ExecuTorchTensorPtrTest, MakeViewSameRankShapeChangeCopiesDimOrder) {
  float data[24] = {0};
  auto tensor = make_tensor_ptr({2, 3, 4}, data, {2, 0, 1}, {3, 1, 6});
  auto view = make_tensor_ptr(tensor, {4, 2, 3});
  EXPECT_EQ(view->strides()[0], 2);
  EXPECT_EQ(view->strides()[1], 1);
  EXPECT_EQ(view->strides()[2], 8);
}

TEST(ExecuTorchTensorPtrTest, MakeViewLargerThanTheSourceIsAnError) {
  float data[6] = {0};
  auto tensor = make_tensor_ptr({2, 3}, data);
  EXPECT_THROW(make_tensor_ptr(tensor, {2, 4}), ::custody::ShapeError);
}

TEST(ExecuTorchTensorPtrTest, CloneTensorPtrFromExistingTensorInt32) {
  std::vector<int32_t> data = {1, 2, 3, 4};
  auto tensor = make_tensor_ptr({2, 2}, data);
  auto cloned_tensor = clone_tensor_ptr(*tensor);
  EXPECT_EQ(cloned_tensor->dim(), tensor->dim());
  EXPECT_NE(cloned_tensor->const_data_ptr<int32_t>(), tensor->const_data_ptr<int32_t>());
  EXPECT_EQ(cloned_tensor->const_data_ptr<int32_t>()[3], 4);
  EXPECT_EQ(cloned_tensor->scalar_type(), ScalarType::Int);
}

TEST(ExecuTorchTensorPtrTest, CloneTensorPtrCastInt32ToFloat) {
  auto tensor = make_tensor_ptr({2, 2}, std::vector<int32_t>{1, 2, 3, 4});
  auto cloned_tensor = clone_tensor_ptr(*tensor, ScalarType::Float);
  EXPECT_EQ(cloned_tensor->size(0), 2);
  EXPECT_EQ(cloned_tensor->scalar_type(), ScalarType::Float);
  auto ptr = cloned_tensor->const_data_ptr<float>();
  EXPECT_FLOAT_EQ(ptr[0], 1.0f);
  EXPECT_FLOAT_EQ(ptr[3], 4.0f);
}

TEST(ExecuTorchTensorPtrTest, CloneTensorPtrCastFloatToBFloat16) {
  auto tensor = make_tensor_ptr(std::vector<float>{1.0f, 2.0f, 3.5f});
  auto cloned_tensor = clone_tensor_ptr(tensor, ScalarType::BFloat16);
  EXPECT_EQ(cloned_tensor->scalar_type(), ScalarType::BFloat16);
  auto ptr = cloned_tensor->const_data_ptr<executorch::aten::BFloat16>();
  EXPECT_NEAR(static_cast<float>(ptr[0]), 1.0f, 0.01f);
  EXPECT_NEAR(static_cast<float>(ptr[2]), 3.5f, 0.01f);
}

TEST(ExecuTorchTensorPtrTest, CloneTensorPtrCastKeepsMetadata) {
  std::vector<uint8_t> data(6 * sizeof(float));
  auto tensor = make_tensor_ptr({2, 3}, std::move(data));
  auto cloned = clone_tensor_ptr(*tensor, ScalarType::Float);
  EXPECT_EQ(cloned->size(0), 2);
  EXPECT_EQ(cloned->size(1), 3);
  EXPECT_EQ(cloned->strides()[0], 3);
  EXPECT_EQ(cloned->strides()[1], 1);
  EXPECT_EQ(cloned->scalar_type(), ScalarType::Float);
}

TEST(ExecuTorchTensorPtrTest, CloneKeepsTheDimOrderOfADenseTensor) {
  auto tensor = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {1, 0});
  auto cloned = clone_tensor_ptr(tensor, ScalarType::Double);
  EXPECT_EQ(cloned->strides()[0], 1);
  EXPECT_EQ(cloned->strides()[1], 2);
  EXPECT_EQ(cloned->dim_order()[0], 1);
  EXPECT_EQ(cloned->const_data_ptr<double>()[1], 2.0) << "memory order is kept";
}

TEST(ExecuTorchTensorPtrTest, CloneTensorPtrCastInvalidIsAnError) {
  auto tensor = make_tensor_ptr({2}, {1.f, 2.f});
  EXPECT_THROW(clone_tensor_ptr(*tensor, ScalarType::Int), ::custody::DTypeError);
  EXPECT_THROW(convert_tensor_ptr(tensor, ScalarType::Bool), ::custody::DTypeError);
}

TEST(ExecuTorchTensorPtrTest, TensorDataCastingFromIntToDouble) {
  std::vector<int32_t> int_data = {1, 2, 3};
  auto tensor = make_tensor_ptr(std::move(int_data), ScalarType::Double);
  EXPECT_EQ(tensor->dim(), 1);
  EXPECT_EQ(tensor->size(0), 3);
  EXPECT_EQ(tensor->scalar_type(), ScalarType::Double);
  EXPECT_EQ(tensor->const_data_ptr<double>()[2], 3.0);
}

TEST(ExecuTorchTensorPtrTest, TensorDataCastingFromFloatToHalf) {
  auto tensor = make_tensor_ptr(std::vector<float>{1.0f, 2.0f, 3.0f}, ScalarType::Half);
  EXPECT_EQ(tensor->scalar_type(), ScalarType::Half);
  EXPECT_EQ(static_cast<float>(tensor->const_data_ptr<executorch::aten::Half>()[2]), 3.0f);
}

TEST(ExecuTorchTensorPtrTest, InitializerListDoubleToHalf) {
  auto tensor = make_tensor_ptr<double>({1.5, 2.7, 3.14}, ScalarType::Half);
  EXPECT_EQ(tensor->scalar_type(), ScalarType::Half);
  EXPECT_EQ(tensor->size(0), 3);
  auto ptr = tensor->const_data_ptr<executorch::aten::Half>();
  EXPECT_NEAR(static_cast<float>(ptr[0]), 1.5f, 0.01f);
  EXPECT_NEAR(static_cast<float>(ptr[2]), 3.14f, 0.01f);
}

TEST(ExecuTorchTensorPtrTest, TensorInferredDimOrderCustomStrides) {
  float data[12] = {0};
  auto tensor = make_tensor_ptr({3, 4}, data, {}, {1, 3});
  EXPECT_EQ(tensor->strides()[0], 1);
  EXPECT_EQ(tensor->strides()[1], 3);
  EXPECT_EQ(tensor->const_data_ptr<float>(), data);
}

TEST(ExecuTorchTensorPtrTest, TensorMismatchStridesAndDimOrderIsAnError) {
  float data[12] = {0};
  EXPECT_THROW(make_tensor_ptr({3, 4}, data, {1, 0}, {1, 4}), ::custody::ShapeError);
}

TEST(ExecuTorchTensorPtrTest, TensorUint8dataWithFloatScalarType) {
  std::vector<uint8_t> data(4 * sizeof(float));
  const float values[] = {1.f, 2.f, 3.f, 4.f};
  std::memcpy(data.data(), values, sizeof(values));
  auto tensor = make_tensor_ptr({2, 2}, std::move(data));
  EXPECT_EQ(tensor->scalar_type(), ScalarType::Float) << "raw bytes are float32 unless a type is given";
  EXPECT_EQ(tensor->strides()[0], 2);
  EXPECT_EQ(tensor->const_data_ptr<float>()[3], 4.f);
}

TEST(ExecuTorchTensorPtrTest, TensorUint8dataSizeMismatchIsAnError) {
  EXPECT_THROW(make_tensor_ptr({2, 2}, std::vector<uint8_t>(2 * sizeof(float))), ::custody::InvalidArgument);
  EXPECT_THROW(make_tensor_ptr({2, 2}, std::vector<uint8_t>(5 * sizeof(float))), ::custody::InvalidArgument);
}

TEST(ExecuTorchTensorPtrTest, MakeViewFromTensorPtrKeepsSourceAlive) {
  bool freed = false;
  auto tensor = owned_by_deleter(6, &freed);
  auto view = make_tensor_ptr(tensor);
  tensor.reset();
  EXPECT_FALSE(freed);
  EXPECT_EQ(view->const_data_ptr<float>()[0], 1);
  view->mutable_data_ptr<float>()[0] = 42;
  EXPECT_EQ(view->const_data_ptr<float>()[0], 42);
  view.reset();
  EXPECT_TRUE(freed);
}

TEST(ExecuTorchTensorPtrTest, MakeViewFromTensorWithDeleterKeepsAlive) {
  bool freed = false;
  auto tensor = owned_by_deleter(3, &freed);
  bool view_deleter_ran = false;
  auto view = make_tensor_ptr(*tensor, {}, {}, {}, [tensor, &view_deleter_ran](void*) { view_deleter_ran = true; });
  tensor.reset();
  EXPECT_FALSE(freed);
  EXPECT_EQ(view->const_data_ptr<float>()[2], 3);
  view.reset();
  EXPECT_TRUE(view_deleter_ran);
  EXPECT_TRUE(freed);
}

// custody difference (EXECUTORCH.md): a view of a plain Tensor keeps its memory alive too.
TEST(ExecuTorchTensorPtrTest, MakeViewFromTensorKeepsTheMemoryAliveInCustody) {
  bool freed = false;
  auto tensor = owned_by_deleter(3, &freed);
  auto view = make_tensor_ptr(*tensor);
  tensor.reset();
  EXPECT_FALSE(freed);
  EXPECT_EQ(view->const_data_ptr<float>()[1], 2);
  view.reset();
  EXPECT_TRUE(freed);
}

TEST(ExecuTorchTensorPtrTest, UntypedDataPointersAndDevice) {
  auto tensor = make_tensor_ptr({2}, {1.f, 2.f});
  const void* c = tensor->const_data_ptr();
  void* m = tensor->mutable_data_ptr();
  EXPECT_EQ(c, m);
  EXPECT_EQ(c, tensor->const_data_ptr<float>());
  EXPECT_EQ(tensor->device().type(), executorch::aten::DeviceType::CPU);
  EXPECT_EQ(tensor->device().index(), 0);
}

TEST(ExecuTorchTensorPtrTest, DeviceFormsOnTheHost) {
  float data[4] = {1, 2, 3, 4};
  auto a = make_tensor_ptr({2, 2}, data, ScalarType::Float, executorch::aten::DeviceType::CPU);
  EXPECT_EQ(a->const_data_ptr<float>(), data);
  auto b = for_blob(data, {4}).device(executorch::aten::Device(executorch::aten::DeviceType::CPU, 0)).make_tensor_ptr();
  EXPECT_EQ(b->size(0), 4);
  auto c = clone_tensor_ptr(a, executorch::aten::Device(executorch::aten::DeviceType::CPU, 0));
  EXPECT_NE(c->const_data_ptr<float>(), data);
  EXPECT_EQ(c->const_data_ptr<float>()[3], 4);
}

TEST(ExecuTorchTensorPtrTest, ADeviceTheTensorPtrTypeCannotHoldIsADeviceError) {
  float data[4] = {1, 2, 3, 4};
  EXPECT_THROW(make_tensor_ptr({4}, data, ScalarType::Float, executorch::aten::DeviceType::CUDA),
               ::custody::DeviceError);
  EXPECT_THROW(for_blob(data, {4}).device(executorch::aten::DeviceType::CUDA).make_tensor_ptr(),
               ::custody::DeviceError);
  auto a = make_tensor_ptr({4}, data);
  try {
    clone_tensor_ptr(a, executorch::aten::Device(executorch::aten::DeviceType::CUDA, 0));
    ADD_FAILURE() << "no DeviceError";
  } catch (const ::custody::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("clone_tensor_ptr_to"), std::string::npos) << e.what();
  }
}

TEST(ExecuTorchTensorPtrTest, ResizeViolationsAreNotSupported) {
  auto st = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {}, {}, ScalarType::Float,
                            TensorShapeDynamism::STATIC);
  EXPECT_EQ(resize_tensor_ptr(st, {3, 2}), Error::NotSupported);
  EXPECT_EQ(resize_tensor_ptr(st, {2, 3}), Error::Ok);
  auto bound = make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  EXPECT_EQ(resize_tensor_ptr(bound, {2, 4}), Error::NotSupported);
  EXPECT_EQ(resize_tensor_ptr(bound, {6}), Error::NotSupported) << "the rank is immutable";
  EXPECT_EQ(resize_tensor_ptr(bound, {1, 6}), Error::Ok);
}

TEST(ExecuTorchTensorPtrTest, NamedMakerSettersWork) {
  float data[6] = {0};
  auto maker = for_blob(data, {2, 3});
  maker.strides({3, 1});
  maker.type(ScalarType::Float);
  auto tensor = std::move(maker).make_tensor_ptr();
  EXPECT_EQ(tensor->strides()[0], 3);
}

// custody difference 7 (EXECUTORCH.md): full() converts as torch.full does; out of range is refused.
TEST(ExecuTorchTensorPtrTest, FullConvertsAsATenAndRefusesOutOfRange) {
  auto t = full({2}, 1.5, ScalarType::Int);
  EXPECT_EQ(t->const_data_ptr<int32_t>()[0], 1);
  EXPECT_THROW(full({2}, 300, ScalarType::Byte), ::custody::Error);
}

TEST(ExecuTorchTensorPtrTest, RuntimeHelpers) {
  using executorch::runtime::canCast;
  EXPECT_TRUE(canCast(ScalarType::Int, ScalarType::Float));
  EXPECT_FALSE(canCast(ScalarType::Float, ScalarType::Int));
  EXPECT_FALSE(canCast(ScalarType::Int, ScalarType::Bool));
  EXPECT_TRUE(canCast(ScalarType::Bool, ScalarType::Long));
  EXPECT_EQ(executorch::runtime::elementSize(ScalarType::Double), 8u);
  EXPECT_EQ(executorch::runtime::CppTypeToScalarType<int64_t>::value, ScalarType::Long);
}

// ---- the dtypes ExecuTorch adds to custody's first eight -------------------------

TEST(ExecuTorchTensorPtrTest, Int8AndInt16FromVectorsAndScalars) {
  auto c = make_tensor_ptr(std::vector<int8_t>{-128, 0, 127});
  EXPECT_EQ(c->scalar_type(), ScalarType::Char);
  EXPECT_EQ(c->element_size(), 1u);
  EXPECT_EQ(c->const_data_ptr<int8_t>()[0], -128);
  auto s = make_tensor_ptr({2, 2}, std::vector<int16_t>{-32768, 1, 2, 32767});
  EXPECT_EQ(s->scalar_type(), ScalarType::Short);
  EXPECT_EQ(s->strides()[0], 2);
  EXPECT_EQ(s->const_data_ptr<int16_t>()[3], 32767);
  auto one = make_tensor_ptr(int8_t{-5});
  EXPECT_EQ(one->scalar_type(), ScalarType::Char);
  EXPECT_EQ(one->const_data_ptr<int8_t>()[0], -5);
  // The element type as the first template argument, as ExecuTorch spells it.
  auto typed = make_tensor_ptr<int16_t>({3}, {1, -2, 3});
  EXPECT_EQ(typed->scalar_type(), ScalarType::Short);
  EXPECT_EQ(typed->const_data_ptr<int16_t>()[1], -2);
  // int8 widens to int16 and to float; nothing floating narrows to either.
  auto wide = make_tensor_ptr(std::vector<int8_t>{-1, 100}, ScalarType::Short);
  EXPECT_EQ(wide->const_data_ptr<int16_t>()[0], -1);
  EXPECT_THROW(make_tensor_ptr(std::vector<float>{1.5f}, ScalarType::Char), ::custody::DTypeError);
}

TEST(ExecuTorchTensorPtrTest, UnsignedVectorsKeepTheirType) {
  auto a = make_tensor_ptr(std::vector<uint16_t>{0, 65535, 9});
  EXPECT_EQ(a->scalar_type(), ScalarType::UInt16);
  EXPECT_EQ(a->const_data_ptr<uint16_t>()[1], 65535u);
  auto b = make_tensor_ptr({1, 3}, std::vector<uint32_t>{7u, 4000000000u, 0u});
  EXPECT_EQ(b->scalar_type(), ScalarType::UInt32);
  EXPECT_EQ(b->strides()[0], 3);
  EXPECT_EQ(b->const_data_ptr<uint32_t>()[1], 4000000000u);
  auto c = make_tensor_ptr(std::vector<uint64_t>{18000000000000000000ull, 2ull});
  EXPECT_EQ(c->scalar_type(), ScalarType::UInt64);
  EXPECT_EQ(c->element_size(), 8u);
  EXPECT_EQ(c->const_data_ptr<uint64_t>()[0], 18000000000000000000ull);
}

TEST(ExecuTorchTensorPtrTest, RawBytesAsAnUnsignedType) {
  const std::vector<uint64_t> values{5ull, 9000000000000000001ull};
  std::vector<uint8_t> raw(values.size() * sizeof(uint64_t));
  std::memcpy(raw.data(), values.data(), raw.size());
  auto t = make_tensor_ptr({2}, std::move(raw), ScalarType::UInt64);
  EXPECT_EQ(t->scalar_type(), ScalarType::UInt64);
  EXPECT_EQ(t->const_data_ptr<uint64_t>()[1], 9000000000000000001ull);
  // 11 bytes are not three uint32 values (ExecuTorch aborts; custody throws).
  EXPECT_THROW(make_tensor_ptr({3}, std::vector<uint8_t>(11), ScalarType::UInt32),
               ::custody::InvalidArgument);
}

// canCast as ExecuTorch has it: the unsigned types are not "integral", so
// floating data may be cast to them; data of any type casts to them modularly.
TEST(ExecuTorchTensorPtrTest, CastsIntoAndOutOfTheUnsignedTypes) {
  auto from_int = make_tensor_ptr(std::vector<int32_t>{-1, 65536, 70000}, ScalarType::UInt16);
  EXPECT_EQ(from_int->const_data_ptr<uint16_t>()[0], static_cast<uint16_t>(-1));
  EXPECT_EQ(from_int->const_data_ptr<uint16_t>()[1], 0u);
  EXPECT_EQ(from_int->const_data_ptr<uint16_t>()[2], static_cast<uint16_t>(70000));
  auto from_float = make_tensor_ptr(std::vector<float>{3.0f, 12.75f}, ScalarType::UInt32);
  EXPECT_EQ(from_float->const_data_ptr<uint32_t>()[1], 12u);
  auto to_float = make_tensor_ptr(std::vector<uint32_t>{4000000000u}, ScalarType::Float);
  EXPECT_FLOAT_EQ(to_float->const_data_ptr<float>()[0], 4e9f);
  EXPECT_THROW(make_tensor_ptr(std::vector<uint32_t>{1u}, ScalarType::Bool), ::custody::DTypeError);
  auto clone = clone_tensor_ptr(to_float, ScalarType::UInt64);
  EXPECT_EQ(clone->const_data_ptr<uint64_t>()[0], 4000000000ull);
  using executorch::runtime::canCast;
  EXPECT_TRUE(canCast(ScalarType::Float, ScalarType::UInt32));
  EXPECT_TRUE(canCast(ScalarType::Bool, ScalarType::UInt64));
  EXPECT_FALSE(canCast(ScalarType::UInt16, ScalarType::Bool));
  EXPECT_FALSE(canCast(ScalarType::Double, ScalarType::Char));
  EXPECT_FALSE(executorch::runtime::isIntegralType(ScalarType::UInt16, true));
  EXPECT_TRUE(executorch::runtime::isIntegralType(ScalarType::Short, false));
  EXPECT_TRUE(executorch::runtime::isBarebonesUnsignedType(ScalarType::UInt64));
  EXPECT_EQ(executorch::runtime::elementSize(ScalarType::UInt32), 4u);
  EXPECT_EQ(executorch::runtime::CppTypeToScalarType<int8_t>::value, ScalarType::Char);
}

TEST(ExecuTorchTensorPtrTest, UnsignedAliasesAndClones) {
  auto t = make_tensor_ptr({2, 2}, std::vector<uint32_t>{10u, 20u, 30u, 40u});
  auto alias = make_tensor_ptr(t);
  EXPECT_EQ(alias->scalar_type(), ScalarType::UInt32);
  EXPECT_EQ(alias->const_data_ptr<uint32_t>(), t->const_data_ptr<uint32_t>());
  auto cloned = clone_tensor_ptr(t);
  EXPECT_NE(cloned->const_data_ptr<uint32_t>(), t->const_data_ptr<uint32_t>());
  EXPECT_EQ(cloned->const_data_ptr<uint32_t>()[3], 40u);
  auto col = make_tensor_ptr(t, {2, 2}, {1, 0});  // a column-major view of the same bytes
  EXPECT_EQ(col->strides()[0], 1);
  EXPECT_EQ(clone_tensor_ptr(col)->const_data_ptr<uint32_t>()[1], 20u);
}

// ExecuTorch's newest maker: a typed pointer names the dtype; a void* keeps float32.
TEST(ExecuTorchTensorPtrTest, TypedPointerDeducesItsOwnScalarType) {
  std::vector<int8_t> data{1, 2, 3, 4};
  int8_t* p = data.data();
  auto a = for_blob(p, {2, 2}).make_tensor_ptr();
  EXPECT_EQ(a->scalar_type(), ScalarType::Char);
  EXPECT_EQ(a->nbytes(), 4u);
  auto b = from_blob(p, {2, 2});
  EXPECT_EQ(b->scalar_type(), ScalarType::Char);
  auto c = from_blob(p, {2, 2}, {2, 1});
  EXPECT_EQ(c->scalar_type(), ScalarType::Char);
  EXPECT_EQ(c->const_data_ptr<int8_t>(), p);
  std::vector<float> f(4);
  EXPECT_EQ(from_blob(static_cast<void*>(f.data()), {4})->scalar_type(), ScalarType::Float);
  EXPECT_EQ(from_blob(p, {1}, ScalarType::Float)->scalar_type(), ScalarType::Float);
  EXPECT_EQ(for_blob(p, {1}).type(ScalarType::Float).make_tensor_ptr()->scalar_type(),
            ScalarType::Float);
  std::vector<uint32_t> u{7u, 8u};
  EXPECT_EQ(from_blob(u.data(), {2})->const_data_ptr<uint32_t>()[1], 8u);
  bool freed = false;
  auto* owned = new int16_t[3]{1, 2, 3};
  {
    auto d = for_blob(owned, {3})
                 .deleter([&freed](void* q) {
                   freed = true;
                   delete[] static_cast<int16_t*>(q);
                 })
                 .make_tensor_ptr();
    EXPECT_EQ(d->scalar_type(), ScalarType::Short);
    EXPECT_EQ(d->nbytes(), 6u);
  }
  EXPECT_TRUE(freed);
}

// ---- exec_aten.h and scalar_type_util.h names ----------------------------------------

TEST(ExecuTorchNamesTest, ElementSizeIsInTheAtenNamespaceAsInExecuTorch) {
  std::vector<uint8_t> bytes(4 * executorch::aten::elementSize(ScalarType::Float));
  const float values[4] = {1, 2, 3, 4};
  std::memcpy(bytes.data(), values, bytes.size());
  auto t = make_tensor_ptr({2, 2}, std::move(bytes));
  EXPECT_EQ(t->const_data_ptr<float>()[3], 4.f);
  EXPECT_EQ(exec_aten::elementSize(ScalarType::Short), 2u);
  EXPECT_EQ(executorch::aten::elementSize(ScalarType::UInt64), 8u);
}

TEST(ExecuTorchNamesTest, ExecAtenTypesNameWhatTheTensorGives) {
  using namespace executorch::aten;  // NOLINT: as ExecuTorch's kernels spell it
  executorch::runtime::runtime_init();
  auto t = make_tensor_ptr({2, 3}, std::vector<float>(6, 1.f));
  IntArrayRef sizes = t->sizes();
  ArrayRef<StridesType> strides = t->strides();
  EXPECT_EQ(sizes.size(), 2u);
  EXPECT_EQ(strides[0], 3);
  EXPECT_EQ(compute_numel(sizes.data(), static_cast<ssize_t>(sizes.size())), 6);
  const SizesType negative[2] = {2, -1};
  EXPECT_THROW(compute_numel(negative, 2), ::custody::ShapeError);
  optional<int64_t> none = nullopt;
  EXPECT_FALSE(none.has_value());
  OptionalIntArrayRef maybe = sizes;
  EXPECT_EQ((*maybe)[1], 3);
  string_view name = executorch::runtime::toString(ScalarType::BFloat16);
  EXPECT_EQ(name, "BFloat16");
  EXPECT_EQ(std::string_view(executorch::runtime::toString(ScalarType::Char)), "Char");
  EXPECT_TRUE(executorch::runtime::isValid(ScalarType::UInt16));
  EXPECT_EQ(executorch::runtime::promoteTypes(ScalarType::Int, ScalarType::Float), ScalarType::Float);
  EXPECT_EQ(executorch::runtime::promoteTypes(ScalarType::Half, ScalarType::Half), ScalarType::Half);
  EXPECT_EQ(executorch::runtime::promoteTypes(ScalarType::Half, ScalarType::Half, true), ScalarType::Float);
  static_assert(std::is_same_v<executorch::runtime::ScalarTypeToCppType<ScalarType::Short>::type, int16_t>);
  static_assert(std::is_same_v<Tensor, TensorImpl>);
  static_assert(std::is_same_v<TensorList, ArrayRef<Tensor>>);
  static_assert(std::is_same_v<complex<float>, std::complex<float>>);
  static_assert(sizeof(qint8) == 1 && sizeof(qint32) == 4);
  EXPECT_EQ(static_cast<int>(Layout::Strided), 0);
  EXPECT_NE(MemoryFormat::Contiguous, MemoryFormat::Preserve);
  EXPECT_FALSE(executorch::runtime::isComplexType(ScalarType::Float));
}

// ---- rand / randn / randint with every dtype ExecuTorch's makers take --------------

// ExecuTorch converts float samples with static_cast: integers truncate, so
// rand gives zeros (its CreateRandTensorWithIntType), and randn gives the
// truncated normal samples.
TEST(ExecuTorchRandomTest, IntegerAndBoolDtypesConvertFloatSamples) {
  for (ScalarType type : {ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::Int,
                          ScalarType::Long}) {
    SCOPED_TRACE(executorch::runtime::toString(type));
    auto t = rand({4, 5}, type);
    EXPECT_EQ(t->scalar_type(), type);
    auto as_long = clone_tensor_ptr(t, ScalarType::Long);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(as_long->const_data_ptr<int64_t>()[i], 0);
  }
  ::custody::manual_seed(11);
  auto f = randn({1000});
  ::custody::manual_seed(11);
  auto i = randn({1000}, ScalarType::Int);
  ::custody::manual_seed(11);
  auto b = randn({1000}, ScalarType::Bool);
  ::custody::manual_seed(11);
  auto u = rand({1000}, ScalarType::Bool);
  int nonzero = 0;
  for (int k = 0; k < 1000; ++k) {
    const float x = f->const_data_ptr<float>()[k];
    EXPECT_EQ(i->const_data_ptr<int32_t>()[k], static_cast<int32_t>(x)) << k;
    EXPECT_EQ(b->const_data_ptr<bool>()[k], x != 0.f) << k;
    nonzero += i->const_data_ptr<int32_t>()[k] != 0;
    EXPECT_TRUE(u->const_data_ptr<bool>()[k]);  // uniform samples are never exactly 0 here
  }
  EXPECT_GT(nonzero, 200);  // |x| >= 1 for about 32% of normal samples
}

// Half and BFloat16 (ExecuTorch's CreateRandTensorWithHalfType/BFloatType):
// every sample below 1 after rounding, which needs the bound lowered by half an
// epsilon (about 24 of 100,000 float samples would round up to 1 in float16, 195 in bfloat16).
TEST(ExecuTorchRandomTest, HalfAndBFloat16StayBelowOne) {
  auto h = rand({100000}, ScalarType::Half);
  auto bf = rand({100000}, ScalarType::BFloat16);
  EXPECT_EQ(h->scalar_type(), ScalarType::Half);
  EXPECT_EQ(bf->scalar_type(), ScalarType::BFloat16);
  float hmax = 0, bmax = 0;
  for (int k = 0; k < 100000; ++k) {
    const executorch::aten::Half hv = h->const_data_ptr<executorch::aten::Half>()[k];
    const executorch::aten::BFloat16 bv = bf->const_data_ptr<executorch::aten::BFloat16>()[k];
    EXPECT_GE(hv, 0.0);
    EXPECT_GE(bv, 0.0);
    hmax = std::max(hmax, static_cast<float>(hv));
    bmax = std::max(bmax, static_cast<float>(bv));
  }
  EXPECT_LT(hmax, 1.f);
  EXPECT_LT(bmax, 1.f);
  EXPECT_GT(hmax, 0.99f);
  ::custody::manual_seed(3);
  auto n = randn({256});
  ::custody::manual_seed(3);
  auto nh = randn({256}, ScalarType::Half);
  for (int k = 0; k < 256; ++k) {
    const float x = n->const_data_ptr<float>()[k];
    EXPECT_EQ(static_cast<float>(nh->const_data_ptr<executorch::aten::Half>()[k]),
              static_cast<float>(executorch::aten::Half(x)));
  }
}

TEST(ExecuTorchRandomTest, RandintWithHalfAndTheLikeMakers) {
  ::custody::manual_seed(5);
  auto l = randint(-50, 50, {64}, ScalarType::Long);
  ::custody::manual_seed(5);
  auto h = randint(-50, 50, {64}, ScalarType::Half);
  EXPECT_EQ(h->scalar_type(), ScalarType::Half);
  for (int k = 0; k < 64; ++k) {
    EXPECT_EQ(static_cast<float>(h->const_data_ptr<executorch::aten::Half>()[k]),
              static_cast<float>(l->const_data_ptr<int64_t>()[k]));
  }
  auto src = make_tensor_ptr({2, 3}, std::vector<int32_t>(6, 7), {}, {}, ScalarType::Int,
                             TensorShapeDynamism::DYNAMIC_UNBOUND);
  auto r = rand_like(src);
  EXPECT_EQ(r->scalar_type(), ScalarType::Int);
  EXPECT_EQ(r->const_data_ptr<int32_t>()[5], 0);
  auto rb = randn_like(src, ScalarType::BFloat16);
  EXPECT_EQ(rb->scalar_type(), ScalarType::BFloat16);
  EXPECT_EQ(rb->size(1), 3);
  auto ri = randint_like(src, 10, 20, ScalarType::Half);
  for (int k = 0; k < 6; ++k) {
    const float v = ri->const_data_ptr<executorch::aten::Half>()[k];
    EXPECT_TRUE(v >= 10 && v < 20 && v == std::floor(v)) << v;
  }
  // Beyond ExecuTorch's set (its switch aborts), a typed error naming the dtype.
  EXPECT_THROW(rand({2}, ScalarType::UInt32), ::custody::DTypeError);
  EXPECT_THROW(randn({2}, ScalarType::UInt16), ::custody::DTypeError);
  // A range the dtype cannot hold is refused, as ATen's randint (ExecuTorch wraps).
  EXPECT_THROW(randint(0, 300, {2}, ScalarType::Char), ::custody::InvalidArgument);
}

// ---- null data and zero-element tensors ------------------------------------------------

// ExecuTorch lets a tensor have no data (to bind it later): every maker over a
// pointer takes nullptr, metadata works, aliases and clones have none either.
// custody adds what ExecuTorch leaves undefined: an op that reads or writes
// the elements is an InvalidArgument, until TensorImpl::set_data binds memory.
TEST(ExecuTorchNullDataTest, ATensorWithoutDataIsValidUntilAnOpReadsIt) {
  auto t = make_tensor_ptr({2, 2}, nullptr);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dim(), 2);
  EXPECT_EQ(t->numel(), 4);
  EXPECT_EQ(t->const_data_ptr(), nullptr);
  EXPECT_EQ(make_tensor_ptr(t)->const_data_ptr(), nullptr);  // ExecuTorch's MakeTensorPtrFromTensorPtrNull
  auto clone = clone_tensor_ptr(t);                            // CloneTensorPtrFromTensorPtrNull
  EXPECT_EQ(clone->const_data_ptr(), nullptr);
  EXPECT_EQ(clone->size(1), 2);
  auto cast = clone_tensor_ptr(*t, ScalarType::Int);  // CloneTensorPtrCastNullData: no canCast check
  EXPECT_EQ(cast->scalar_type(), ScalarType::Int);
  EXPECT_EQ(cast->const_data_ptr(), nullptr);
  EXPECT_EQ(from_blob(nullptr, {3})->numel(), 3);
  EXPECT_EQ(for_blob(nullptr, {1, 3}).strides({3, 1}).make_tensor_ptr()->const_data_ptr(), nullptr);
  auto reads = [&](const std::function<void()>& f) {
    try {
      f();
      ADD_FAILURE() << "expected an InvalidArgument";
    } catch (const ::custody::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("no data"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[2, 2]"), std::string::npos) << e.what();
    }
  };
  reads([&] { (void)t.add(1.0); });
  reads([&] { (void)t.matmul(t); });
  reads([&] { (void)t.to_vector<float>(); });
  reads([&] { (void)t.contiguous().sum(); });
  reads([&] { t.fill_(2.0); });
  EXPECT_EQ((make_tensor_accessor<float, 2>(*t).error()), Error::InvalidArgument);
  // Bound later, as ExecuTorch's TensorImpl::set_data: the tensor now reads `data`.
  float data[4] = {1, 2, 3, 4};
  t->unsafeGetTensorImpl()->set_data(data);
  EXPECT_EQ(t->const_data_ptr<float>(), data);
  EXPECT_EQ(t.add(1.0).to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(clone->const_data_ptr(), nullptr);  // the clone keeps its own (absent) data
  alignas(8) char odd[20];
  EXPECT_THROW(t->unsafeGetTensorImpl()->set_data(odd + 1), ::custody::InvalidArgument);
}

// ExecuTorch's TensorOwningEmptyData: no elements, no data, strides as for the sizes.
TEST(ExecuTorchNullDataTest, ZeroElementTensorsHaveNoData) {
  auto t = make_tensor_ptr({0, 5}, std::vector<float>());
  EXPECT_EQ(t->const_data_ptr<float>(), nullptr);
  EXPECT_EQ(t->strides()[0], 5);
  EXPECT_EQ(t->strides()[1], 1);
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ(make_tensor_ptr({2, 0}, std::vector<uint8_t>())->const_data_ptr(), nullptr);
  EXPECT_EQ(clone_tensor_ptr(t)->const_data_ptr(), nullptr);
  EXPECT_EQ(rand({0, 3}, ScalarType::Half)->const_data_ptr(), nullptr);
  // Ops on it work (nothing to read) and give empty results.
  EXPECT_EQ(t.add(1.0)->numel(), 0);
  EXPECT_EQ(t.sum().item<float>(), 0.f);
}

// ---- tensor_accessor.h ----------------------------------------------------------------

TEST(ExecuTorchTensorAccessorTest, IndexesInPlaceAndRefusesWhatDoesNotFit) {
  auto t = make_tensor_ptr({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  auto acc = make_tensor_accessor<float, 2>(*t);
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ(acc->size(0), 2);
  EXPECT_EQ(acc->stride(0), 3);
  EXPECT_EQ((*acc)[1][2], 6.f);
  (*acc)[0][1] = 20.f;
  EXPECT_EQ(t->const_data_ptr<float>()[1], 20.f);
  auto ro = make_tensor_accessor<const float, 2>(*t);
  EXPECT_EQ(ro.get()[0][1], 20.f);
  auto view = make_tensor_ptr(t, {3, 2});
  EXPECT_EQ((make_tensor_accessor<float, 2>(*view).get()[2][1]), 6.f);
  EXPECT_EQ((make_tensor_accessor<float, 3>(*t).error()), Error::InvalidArgument);
  EXPECT_EQ((make_tensor_accessor<double, 2>(*t).error()), Error::InvalidArgument);
  auto col = make_tensor_ptr(t, {2, 3}, {1, 0});  // column-major: a dim order ExecuTorch refuses
  EXPECT_EQ((make_tensor_accessor<float, 2>(*col).error()), Error::NotSupported);
  EXPECT_THROW(acc->size(2), ::custody::InvalidArgument);
  EXPECT_THROW((make_tensor_accessor<float, 3>(*t).get()), ::custody::InvalidArgument);
}

}  // namespace
