// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/maker_suite.h — the tensor_ptr maker API
// (policies/tensor_ptr/make.h, after ExecuTorch's tensor_ptr.h and
// tensor_ptr_maker.h): what each maker builds (dtype, sizes, strides, dim
// order, dynamism, values), what it refuses and with which error, typed on the
// handle `BasicTensor<tensor_ptr::Policy, B>`. Who owns what, and when memory
// and deleters go, is the ownership contract (contract_suite.h), run by the
// conformance matrix; these run in //policies/tensor_ptr:maker_test on every
// host backend. Helpers (Buffer, vals, item, ...) and the fixture's G6 check
// are the contract suite's.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_MAKER_SUITE_H_
#define CUSTODY_POLICIES_TENSOR_PTR_MAKER_SUITE_H_

#include "policies/tensor_ptr/contract_suite.h"

template <class T>
class TensorPtrMakerTest : public ::custody::testing::ConformanceTest<T> {};

TYPED_TEST_SUITE_P(TensorPtrMakerTest);

// CUSTODY_TP_PRELUDE (the shorthands of each test body) is contract_suite.h's.

TYPED_TEST_P(TensorPtrMakerTest, ScalarMakerDeducesFloat64FromDouble) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>(3.14);
  EXPECT_EQ(t.scalar_type(), ScalarType::Double);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_TRUE(t.sizes().empty());
  EXPECT_EQ(item<double>(t), 3.14);
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::STATIC) << "0-dim tensors are STATIC";
}

TYPED_TEST_P(TensorPtrMakerTest, ScalarMakerWithTypeCastsTheValue) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>(42, ScalarType::Float);
  EXPECT_EQ(t.scalar_type(), ScalarType::Float);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(item<float>(t), 42.0f);
  TP i = make_tensor_ptr<B>(int64_t{7});
  EXPECT_EQ(i.scalar_type(), ScalarType::Long);
  EXPECT_EQ(item<int64_t>(i), 7);
}

TYPED_TEST_P(TensorPtrMakerTest, ScalarMakerRefusesLossyCasts) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>(1.5, ScalarType::Int), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>(1, ScalarType::Bool), DTypeError);
  TP b = make_tensor_ptr<B>(true, ScalarType::Int);  // bool -> int is allowed
  EXPECT_EQ(item<int32_t>(b), 1);
}

TYPED_TEST_P(TensorPtrMakerTest, EmptySizesOrAZeroSizeMakeScalarOrEmptyTensors) {
  CUSTODY_TP_PRELUDE;
  TP s = make_tensor_ptr<B>(std::vector<SizesType>{}, std::vector<float>{5.f});
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(item<float>(s), 5.f);
  TP z = make_tensor_ptr<B>(std::vector<SizesType>{0, 3}, std::vector<float>{});
  EXPECT_EQ(z.dim(), 2);
  EXPECT_EQ(z.numel(), 0);
  EXPECT_TRUE(vals<float>(z).empty());
}

TYPED_TEST_P(TensorPtrMakerTest, SizesAndVectorOwnsACopyOfTheData) {
  CUSTODY_TP_PRELUDE;
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  TP t = make_tensor_ptr<B>({2, 3}, data);
  data[0] = 100.f;
  data.clear();
  data.shrink_to_fit();
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
}

TYPED_TEST_P(TensorPtrMakerTest, SizesAndVectorDefaultsDtypeStridesDimOrderAndDynamism) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  EXPECT_EQ(t.scalar_type(), ScalarType::Float) << "dtype is deduced from the data";
  EXPECT_EQ(vec(t.strides()), (I64s{3, 1}));
  EXPECT_EQ(vec(t.dim_order()), (I64s{0, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND);
  TP d = make_tensor_ptr<B>({3}, std::vector<double>{1, 2, 3});
  EXPECT_EQ(d.scalar_type(), ScalarType::Double);
}

TYPED_TEST_P(TensorPtrMakerTest, SizesAndVectorAcceptsExplicitRowMajorStrides) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {0, 1}, {3, 1});
  EXPECT_EQ(vec(t.strides()), (I64s{3, 1}));
  EXPECT_EQ(vals<int32_t>(t), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TYPED_TEST_P(TensorPtrMakerTest, DimOrderOneZeroGivesColumnMajorStridesOverTheVector) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {1, 0});
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vec(t.dim_order()), (I64s{1, 0}));
  EXPECT_FALSE(t.is_contiguous());
  // Element [i][j] is data[i * 1 + j * 2].
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrMakerTest, ExplicitPermutedStridesReadTheVectorInMemoryOrder) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<int64_t>{1, 2, 3, 4, 5, 6}, {}, {1, 2});
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vec(t.dim_order()), (I64s{1, 0}));
  EXPECT_EQ(vals<int64_t>(t), (std::vector<int64_t>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrMakerTest, StridesInconsistentWithDimOrderAreAShapeError) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {1, 0}, {3, 1}),
               ShapeError);
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {0}), ShapeError)
      << "dim_order of the wrong rank";
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {0, 0}), ShapeError)
      << "dim_order that is not a permutation";
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {}, {1}), ShapeError)
      << "strides of the wrong rank";
}

TYPED_TEST_P(TensorPtrMakerTest, StridesThatDoNotCoverTheVectorDenselyAreAShapeError) {
  CUSTODY_TP_PRELUDE;
  // Gaps or overlaps would read past, or leave unread, the elements the vector supplies.
  EXPECT_THROW(make_tensor_ptr<B>({2, 2}, std::vector<float>{1, 2, 3, 4}, {}, {3, 1}), ShapeError);
  EXPECT_THROW(make_tensor_ptr<B>({2, 2}, std::vector<float>{1, 2, 3, 4}, {}, {0, 1}), ShapeError);
}

TYPED_TEST_P(TensorPtrMakerTest, DataSizeMismatchIsInvalidArgument) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5}), InvalidArgument);
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6, 7}), InvalidArgument);
}

TYPED_TEST_P(TensorPtrMakerTest, VectorWithDtypeCastsIntToDouble) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({1, 2, 3, 4, 5, 6}, ScalarType::Double);  // ExecuTorch's guide: ints cast to double
  EXPECT_EQ(t.scalar_type(), ScalarType::Double);
  EXPECT_EQ(vec(t.sizes()), (I64s{6})) << "without sizes the tensor is 1-D";
  EXPECT_EQ(vals<double>(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  TP f = make_tensor_ptr<B>(std::vector<int64_t>{-2, 7}, ScalarType::Float);
  EXPECT_EQ(vals<float>(f), (std::vector<float>{-2, 7}));
  TP s = make_tensor_ptr<B>({2, 2}, std::vector<int32_t>{1, 2, 3, 4}, {}, {}, ScalarType::Double);
  EXPECT_EQ(vec(s.sizes()), (I64s{2, 2}));
  EXPECT_EQ(vals<double>(s), (std::vector<double>{1, 2, 3, 4}));
}

TYPED_TEST_P(TensorPtrMakerTest, VectorWithDtypeRefusesFloatingToIntegral) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<float>{1.5f, 2.f}, ScalarType::Int), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<double>{1.0}, ScalarType::Long), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>({2}, std::vector<float>{1, 2}, {}, {}, ScalarType::Byte),
               DTypeError);
}

TYPED_TEST_P(TensorPtrMakerTest, VectorWithDtypeRefusesNonBoolToBool) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<int32_t>{0, 1}, ScalarType::Bool), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<float>{0, 1}, ScalarType::Bool), DTypeError);
}

TYPED_TEST_P(TensorPtrMakerTest, VectorWithDtypeAllowsBoolToIntegralAndFloating) {
  CUSTODY_TP_PRELUDE;
  TP i = make_tensor_ptr<B>(std::vector<bool>{true, false, true}, ScalarType::Int);
  EXPECT_EQ(i.scalar_type(), ScalarType::Int);
  EXPECT_EQ(vals<int32_t>(i), (std::vector<int32_t>{1, 0, 1}));
  TP f = make_tensor_ptr<B>(std::vector<bool>{false, true}, ScalarType::Float);
  EXPECT_EQ(vals<float>(f), (std::vector<float>{0, 1}));
  TP b = make_tensor_ptr<B>(std::vector<bool>{false, true});
  EXPECT_EQ(b.scalar_type(), ScalarType::Bool);
  EXPECT_EQ(vals<bool>(b), (std::vector<bool>{false, true}));
}

TYPED_TEST_P(TensorPtrMakerTest, RawBytesAreReinterpretedAsTheDtype) {
  CUSTODY_TP_PRELUDE;
  const std::vector<int32_t> ints{1, -2, 3, -4, 5, -6};
  std::vector<uint8_t> bytes(ints.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), ints.data(), bytes.size());
  TP t = make_tensor_ptr<B>({2, 3}, std::move(bytes), ScalarType::Int);
  EXPECT_EQ(t.scalar_type(), ScalarType::Int);
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
  EXPECT_EQ(vals<int32_t>(t), ints);
}

TYPED_TEST_P(TensorPtrMakerTest, RawBytesMustMatchTheSizeExactly) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<uint8_t>(23), ScalarType::Int),
               InvalidArgument);
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<uint8_t>(25), ScalarType::Int),
               InvalidArgument);
  TP ok = make_tensor_ptr<B>({2, 3}, std::vector<uint8_t>(48), ScalarType::Double);
  EXPECT_EQ(vals<double>(ok), std::vector<double>(6, 0.0));
}

TYPED_TEST_P(TensorPtrMakerTest, NonOwningPointerSharesTheBufferBothWays) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<float>{1, 2, 3, 4, 5, 6});
  {
    TP t = make_tensor_ptr<B>({2, 3}, buf.get(), ScalarType::Float);
    EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    t.add_(10.f);
    EXPECT_EQ(buf.template read<float>(), (std::vector<float>{11, 12, 13, 14, 15, 16}))
        << "writes through the tensor land in the caller's buffer";
    buf.write(std::vector<float>{-1, -2, -3, -4, -5, -6});
    EXPECT_EQ(vals<float>(t), (std::vector<float>{-1, -2, -3, -4, -5, -6}))
        << "writes to the buffer are seen by the tensor";
  }
  EXPECT_FALSE(buf.freed());
  EXPECT_EQ(buf.template read<float>(), (std::vector<float>{-1, -2, -3, -4, -5, -6}))
      << "a non-owning TensorPtr leaves the buffer alone when it goes";
}

TYPED_TEST_P(TensorPtrMakerTest, NonOwningPointerNeitherAllocatesNorCopies) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<int32_t>{1, 2, 3});
  const StatsSnapshot before = this->stats();
  TP t = make_tensor_ptr<B>({3}, buf.get(), ScalarType::Int);
  const StatsSnapshot now = this->stats();
  EXPECT_EQ(now.num_allocs, before.num_allocs);
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(now.live_tensors - before.live_tensors, 1);
  EXPECT_EQ(t.template const_data_ptr<int32_t>(), buf.get());
}

TYPED_TEST_P(TensorPtrMakerTest, NonOwningPointerWithDimOrderOrStridesReadsTheBufferLayout) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<float>{1, 2, 3, 4, 5, 6});
  TP t = make_tensor_ptr<B>({2, 3}, buf.get(), {1, 0}, {}, ScalarType::Float);
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  TP s = make_tensor_ptr<B>({3, 2}, buf.get(), {}, {1, 3}, ScalarType::Float);
  EXPECT_EQ(vals<float>(s), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, buf.get(), {1, 0}, {3, 1}, ScalarType::Float),
               ShapeError);
}

// As ExecuTorch's makers, a null pointer makes a tensor without data (bound
// later with set_data); an op that reads its elements is an InvalidArgument
// naming the shape, never a dereference.
TYPED_TEST_P(TensorPtrMakerTest, NullPointerMakesATensorWithoutDataThatOpsRefuse) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, nullptr, ScalarType::Float);
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
  EXPECT_EQ(t->const_data_ptr(), nullptr);
  TP f = from_blob<B>(nullptr, {3});
  EXPECT_EQ(f->numel(), 3);
  for (TP* x : {&t, &f}) {
    try {
      (void)x->mul(2.0);
      ADD_FAILURE() << "no exception";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("no data"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)vals<float>(f), InvalidArgument);
}

TYPED_TEST_P(TensorPtrMakerTest, CloneKeepsADenseLayoutAndMakesOtherViewsContiguous) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TP v = t.transpose(0, 1);  // dense, column-major: the clone keeps it (ExecuTorch keeps the dim order)
  ASSERT_FALSE(v.is_contiguous());
  TP c = clone_tensor_ptr(v);
  EXPECT_EQ(vec(c.sizes()), (I64s{3, 2}));
  EXPECT_EQ(vec(c.strides()), (I64s{1, 3}));
  EXPECT_NE(c->const_data_ptr(), v->const_data_ptr());
  EXPECT_EQ(vals<float>(c), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  TP n = t.narrow(1, 0, 2);  // not dense: the clone is contiguous
  TP cn = clone_tensor_ptr(n);
  EXPECT_TRUE(cn.is_contiguous());
  EXPECT_EQ(vec(cn.strides()), (I64s{2, 1}));
  EXPECT_EQ(vals<float>(cn), (std::vector<float>{1, 2, 4, 5}));
}

TYPED_TEST_P(TensorPtrMakerTest, ResizeDynamicBoundFollowsTheSeedSequence) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1, 2, 3, 4, 5, 6}, {}, {}, ScalarType::Int,
                            TensorShapeDynamism::DYNAMIC_BOUND);
  const std::vector<std::vector<SizesType>> steps{{2, 2}, {1, 3}, {3, 2}, {6, 1}};
  for (const auto& s : steps) {
    const absl::Status st = resize_tensor_ptr(t, s);
    EXPECT_TRUE(st.ok()) << shape_str(s) << ": " << st;
    EXPECT_EQ(vec(t.sizes()), I64s(s.begin(), s.end()));
    EXPECT_EQ(t.numel(), s[0] * s[1]);
  }
  const absl::Status st = resize_tensor_ptr(t, {4, 2});
  EXPECT_FALSE(st.ok()) << "8 elements > the 6 it was created with";
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented) << "ExecuTorch's NotSupported: " << st;
  EXPECT_EQ(vec(t.sizes()), (I64s{6, 1})) << "a refused resize changes nothing";
  EXPECT_EQ(vals<int32_t>(t), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TYPED_TEST_P(TensorPtrMakerTest, ResizeWithinCapacityKeepsTheData) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  const int64_t bytes = this->stats().bytes_in_use;
  ASSERT_TRUE(resize_tensor_ptr(t, {1, 3}).ok());
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3}));
  ASSERT_TRUE(resize_tensor_ptr(t, {2, 3}).ok()) << "growing back up to the bound is allowed";
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(this->stats().bytes_in_use, bytes) << "no reallocation within the bound";
}

TYPED_TEST_P(TensorPtrMakerTest, ResizeStaticRefusesAnyChangeButAcceptsTheSameSizes) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {}, {}, ScalarType::Float,
                            TensorShapeDynamism::STATIC);
  EXPECT_FALSE(resize_tensor_ptr(t, {2, 2}).ok());
  EXPECT_FALSE(resize_tensor_ptr(t, {3, 2}).ok()) << "even with the same element count";
  EXPECT_TRUE(resize_tensor_ptr(t, {2, 3}).ok());
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
}

TYPED_TEST_P(TensorPtrMakerTest, ResizeDynamicUnboundGrowsAndKeepsTheOldValues) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 2}, {1.f, 2.f, 3.f, 4.f}, {}, {}, ScalarType::Float,
                            TensorShapeDynamism::DYNAMIC_UNBOUND);
  TP copy = t;
  const absl::Status st = resize_tensor_ptr(t, {3, 3});
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(vec(t.sizes()), (I64s{3, 3}));
  EXPECT_EQ(t.numel(), 9);
  const std::vector<float> v = vals<float>(t);
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(vec(copy.sizes()), (I64s{3, 3})) << "every copy shares the resized tensor";
  ASSERT_TRUE(resize_tensor_ptr(t, {1, 2}).ok());
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2}));
}

TYPED_TEST_P(TensorPtrMakerTest, ResizeCannotChangeTheRank) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {}, {}, ScalarType::Float,
                            TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_FALSE(resize_tensor_ptr(t, {6}).ok());
  EXPECT_FALSE(resize_tensor_ptr(t, {1, 2, 3}).ok());
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
}

TYPED_TEST_P(TensorPtrMakerTest, ResizeOfANullTensorPtrIsAnErrorStatusNotAThrow) {
  CUSTODY_TP_PRELUDE;
  TP null;
  absl::Status st;
  EXPECT_NO_THROW(st = resize_tensor_ptr(null, {2}));
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("resize_tensor_ptr"), std::string::npos) << st;
}

TYPED_TEST_P(TensorPtrMakerTest, FromBlobWrapsTheBufferWithoutCopying) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<float>{1, 2, 3});
  const int64_t allocs = this->stats().num_allocs;
  TP t = from_blob<B>(buf.get(), {3}, ScalarType::Float);
  EXPECT_EQ(this->stats().num_allocs, allocs);
  EXPECT_EQ(t.scalar_type(), ScalarType::Float);
  EXPECT_EQ(vec(t.strides()), (I64s{1}));
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3}));
  t.mul_(2.f);
  EXPECT_EQ(buf.template read<float>(), (std::vector<float>{2, 4, 6}));
  TP d = from_blob<B>(buf.get(), {3});
  EXPECT_EQ(d.scalar_type(), ScalarType::Float) << "from_blob defaults to Float";
}

TYPED_TEST_P(TensorPtrMakerTest, FromBlobWithStridesReadsTheBufferLayout) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  TP t = from_blob<B>(buf.get(), {2, 3}, std::vector<StridesType>{1, 2}, ScalarType::Long);
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vals<int64_t>(t), (std::vector<int64_t>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrMakerTest, ForBlobFluentBuilderSetsStridesAndDynamism) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<double>{1, 2, 3, 4, 5, 6});
  TP t = for_blob<B>(buf.get(), {2, 3}, ScalarType::Double)
             .strides({3, 1})
             .dynamism(TensorShapeDynamism::STATIC)
             .make_tensor_ptr();
  EXPECT_EQ(t.scalar_type(), ScalarType::Double);
  EXPECT_EQ(vec(t.strides()), (I64s{3, 1}));
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_FALSE(resize_tensor_ptr(t, {1, 3}).ok());
  EXPECT_EQ(vals<double>(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  TP col = for_blob<B>(buf.get(), {2, 3}, ScalarType::Double).strides({1, 2});
  EXPECT_EQ(vals<double>(col), (std::vector<double>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrMakerTest, ForBlobWithDeleterAndDimOrder) {
  CUSTODY_TP_PRELUDE;
  std::atomic<int> calls{0};
  Buffer<B> buf(std::vector<float>{1, 2, 3, 4, 5, 6});
  TP t = for_blob<B>(buf.get(), {2, 3}, ScalarType::Float)
             .dim_order({1, 0})
             .deleter(buf.counting_deleter(&calls))
             .make_tensor_ptr();
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::DYNAMIC_BOUND) << "the default dynamism";
  TP copy = t;
  t.reset();
  EXPECT_EQ(calls.load(), 0);
  copy.reset();
  EXPECT_EQ(calls.load(), 1);
}

TYPED_TEST_P(TensorPtrMakerTest, ScalarTensorDefaultsToFloat) {
  CUSTODY_TP_PRELUDE;
  TP f = scalar_tensor<B>(3.14);
  EXPECT_EQ(f.scalar_type(), ScalarType::Float);
  EXPECT_EQ(f.dim(), 0);
  EXPECT_FLOAT_EQ(item<float>(f), 3.14f);
  TP i = scalar_tensor<B>(7);
  EXPECT_EQ(i.scalar_type(), ScalarType::Float);
  TP l = scalar_tensor<B>(7, ScalarType::Long);
  EXPECT_EQ(l.scalar_type(), ScalarType::Long);
  EXPECT_EQ(item<int64_t>(l), 7);
  TP b = scalar_tensor<B>(true, ScalarType::Bool);
  EXPECT_TRUE(item<bool>(b));
}

TYPED_TEST_P(TensorPtrMakerTest, EmptyHasTheSizesDtypeAndStridesAsked) {
  CUSTODY_TP_PRELUDE;
  TP e = empty<B>({2, 3});
  EXPECT_EQ(vec(e.sizes()), (I64s{2, 3}));
  EXPECT_EQ(e.scalar_type(), ScalarType::Float);
  EXPECT_EQ(vec(e.strides()), (I64s{3, 1}));
  TP ei = empty<B>({4}, ScalarType::Int);
  EXPECT_EQ(ei.scalar_type(), ScalarType::Int);
  TP es = empty_strided<B>({2, 3}, {1, 2});
  EXPECT_EQ(vec(es.strides()), (I64s{1, 2}));
  TP d = make_tensor_ptr<B>({3, 1}, std::vector<double>{1, 2, 3});
  TP like = empty_like(d);
  EXPECT_EQ(vec(like.sizes()), (I64s{3, 1}));
  EXPECT_EQ(like.scalar_type(), ScalarType::Double);
  EXPECT_FALSE(like.is_same_storage(d));
  TP like_int = empty_like(d, ScalarType::Int);
  EXPECT_EQ(like_int.scalar_type(), ScalarType::Int);
  EXPECT_EQ(vec(like_int.sizes()), (I64s{3, 1}));
}

TYPED_TEST_P(TensorPtrMakerTest, FullFillsEveryElement) {
  CUSTODY_TP_PRELUDE;
  TP f = full<B>({2, 3}, 42.0f);
  EXPECT_EQ(f.scalar_type(), ScalarType::Float);
  EXPECT_EQ(vals<float>(f), std::vector<float>(6, 42.f));
  TP i = full<B>({3}, 7, ScalarType::Int);
  EXPECT_EQ(vals<int32_t>(i), std::vector<int32_t>(3, 7));
  TP like = full_like(i, 5);
  EXPECT_EQ(like.scalar_type(), ScalarType::Int);
  EXPECT_EQ(vals<int32_t>(like), std::vector<int32_t>(3, 5));
  TP like_d = full_like(i, 2.5, ScalarType::Double);
  EXPECT_EQ(vals<double>(like_d), std::vector<double>(3, 2.5));
  TP s = full_strided<B>({2, 3}, {1, 2}, 9.0f);
  EXPECT_EQ(vec(s.strides()), (I64s{1, 2}));
  EXPECT_EQ(vals<float>(s), std::vector<float>(6, 9.f));
}

TYPED_TEST_P(TensorPtrMakerTest, ZerosAndOnesWithLikeAndStrided) {
  CUSTODY_TP_PRELUDE;
  TP z = zeros<B>({2, 3});
  EXPECT_EQ(z.scalar_type(), ScalarType::Float);
  EXPECT_EQ(vals<float>(z), std::vector<float>(6, 0.f));
  TP o = ones<B>({3, 4});
  EXPECT_EQ(vec(o.sizes()), (I64s{3, 4}));
  EXPECT_EQ(vals<float>(o), std::vector<float>(12, 1.f));
  TP ol = ones<B>({2}, ScalarType::Long);
  EXPECT_EQ(vals<int64_t>(ol), std::vector<int64_t>(2, 1));
  TP zl = zeros_like(o);
  EXPECT_EQ(vec(zl.sizes()), (I64s{3, 4}));
  EXPECT_EQ(vals<float>(zl), std::vector<float>(12, 0.f));
  TP ozl = ones_like(o, ScalarType::Double);
  EXPECT_EQ(ozl.scalar_type(), ScalarType::Double);
  EXPECT_EQ(vals<double>(ozl), std::vector<double>(12, 1.0));
  TP zs = zeros_strided<B>({2, 3}, {1, 2});
  EXPECT_EQ(vec(zs.strides()), (I64s{1, 2}));
  EXPECT_EQ(vals<float>(zs), std::vector<float>(6, 0.f));
  TP os = ones_strided<B>({2, 3}, {1, 2}, ScalarType::Int);
  EXPECT_EQ(vec(os.strides()), (I64s{1, 2}));
  EXPECT_EQ(vals<int32_t>(os), std::vector<int32_t>(6, 1));
}

TYPED_TEST_P(TensorPtrMakerTest, RandIsUniformInTheUnitInterval) {
  CUSTODY_TP_PRELUDE;
  TP r = rand<B>({2, 3});
  EXPECT_EQ(r.scalar_type(), ScalarType::Float);
  EXPECT_EQ(vec(r.sizes()), (I64s{2, 3}));
  TP big = rand<B>({10000}, ScalarType::Double);
  const std::vector<double> v = vals<double>(big);
  double sum = 0, lo = 1, hi = 0;
  for (double x : v) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_NEAR(sum / v.size(), 0.5, 0.02);
  EXPECT_LT(lo, 0.01);
  EXPECT_GT(hi, 0.99);
  // ExecuTorch's integer rand: float samples truncated, so zeros; no unsigned dtypes.
  EXPECT_EQ(vals<int32_t>(rand<B>({4}, ScalarType::Int)), (std::vector<int32_t>{0, 0, 0, 0}));
  EXPECT_THROW(rand<B>({2}, ScalarType::UInt32), DTypeError);
}

TYPED_TEST_P(TensorPtrMakerTest, RandnIsStandardNormal) {
  CUSTODY_TP_PRELUDE;
  TP r = randn<B>({2, 3});
  EXPECT_EQ(r.scalar_type(), ScalarType::Float);
  const std::vector<float> v = vals<float>(randn<B>({10000}));
  double sum = 0, sq = 0;
  for (float x : v) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sq += double(x) * x;
  }
  const double mean = sum / v.size();
  const double var = sq / v.size() - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.1);
}

TYPED_TEST_P(TensorPtrMakerTest, RandintIsInRangeAndDefaultsToInt32) {
  CUSTODY_TP_PRELUDE;
  TP r = randint<B>(0, 10, {2, 3});
  EXPECT_EQ(r.scalar_type(), ScalarType::Int) << "ExecuTorch's randint defaults to int32";
  EXPECT_EQ(vec(r.sizes()), (I64s{2, 3}));
  const std::vector<int32_t> v = vals<int32_t>(randint<B>(0, 10, {2000}));
  std::vector<int> seen(10, 0);
  for (int32_t x : v) {
    ASSERT_GE(x, 0);
    ASSERT_LT(x, 10);
    ++seen[x];
  }
  for (int k = 0; k < 10; ++k) EXPECT_GT(seen[k], 0) << "value " << k << " never drawn";
  const std::vector<int64_t> w = vals<int64_t>(randint<B>(-5, -3, {500}, ScalarType::Long));
  for (int64_t x : w) {
    ASSERT_GE(x, -5);
    ASSERT_LT(x, -3);
  }
  EXPECT_THROW(randint<B>(3, 3, {2}), InvalidArgument);
}

TYPED_TEST_P(TensorPtrMakerTest, RandomStridedMakersHonourTheStrides) {
  CUSTODY_TP_PRELUDE;
  TP r = rand_strided<B>({2, 3}, {1, 2});
  EXPECT_EQ(vec(r.strides()), (I64s{1, 2}));
  for (float x : vals<float>(r)) {
    EXPECT_GE(x, 0.f);
    EXPECT_LT(x, 1.f);
  }
  TP n = randn_strided<B>({2, 3}, {1, 2}, ScalarType::Double);
  EXPECT_EQ(vec(n.strides()), (I64s{1, 2}));
  EXPECT_EQ(n.scalar_type(), ScalarType::Double);
  TP i = randint_strided<B>(0, 4, {2, 3}, {1, 2});
  EXPECT_EQ(vec(i.strides()), (I64s{1, 2}));
  EXPECT_EQ(i.scalar_type(), ScalarType::Int);
  for (int32_t x : vals<int32_t>(i)) {
    EXPECT_GE(x, 0);
    EXPECT_LT(x, 4);
  }
}

TYPED_TEST_P(TensorPtrMakerTest, RandomLikeMakersCopySizesAndDtypeUnlessOverridden) {
  CUSTODY_TP_PRELUDE;
  TP d = make_tensor_ptr<B>({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  TP r = rand_like(d);
  EXPECT_EQ(vec(r.sizes()), (I64s{2, 3}));
  EXPECT_EQ(r.scalar_type(), ScalarType::Double);
  EXPECT_FALSE(r.is_same_storage(d));
  EXPECT_EQ(rand_like(d, ScalarType::Float).scalar_type(), ScalarType::Float);
  TP n = randn_like(d);
  EXPECT_EQ(vec(n.sizes()), (I64s{2, 3}));
  EXPECT_EQ(n.scalar_type(), ScalarType::Double);
  TP i = make_tensor_ptr<B>({4}, std::vector<int32_t>{0, 0, 0, 0});
  TP ri = randint_like(i, 0, 5);
  EXPECT_EQ(ri.scalar_type(), ScalarType::Int);
  EXPECT_EQ(vec(ri.sizes()), (I64s{4}));
  for (int32_t x : vals<int32_t>(ri)) {
    EXPECT_GE(x, 0);
    EXPECT_LT(x, 5);
  }
  EXPECT_EQ(randint_like(i, 0, 5, ScalarType::Long).scalar_type(), ScalarType::Long);
  EXPECT_EQ(vals<double>(d), (std::vector<double>{1, 2, 3, 4, 5, 6})) << "the input is untouched";
}

TYPED_TEST_P(TensorPtrMakerTest, SameSeedGivesTheSameValues) {
  CUSTODY_TP_PRELUDE;
  custody::manual_seed(1234);
  const std::vector<float> a1 = vals<float>(rand<B>({64}));
  const std::vector<float> b1 = vals<float>(randn<B>({64}));
  const std::vector<int32_t> c1 = vals<int32_t>(randint<B>(0, 1000, {64}));
  custody::manual_seed(1234);
  EXPECT_EQ(vals<float>(rand<B>({64})), a1);
  EXPECT_EQ(vals<float>(randn<B>({64})), b1);
  EXPECT_EQ(vals<int32_t>(randint<B>(0, 1000, {64})), c1);
  EXPECT_NE(vals<float>(rand<B>({64})), a1) << "the next call draws a fresh stream";
  custody::manual_seed(4321);
  EXPECT_NE(vals<float>(rand<B>({64})), a1) << "another seed, other values";
}

#undef CUSTODY_TP_PRELUDE

REGISTER_TYPED_TEST_SUITE_P(
    TensorPtrMakerTest,
    ScalarMakerDeducesFloat64FromDouble, ScalarMakerWithTypeCastsTheValue,
    ScalarMakerRefusesLossyCasts, EmptySizesOrAZeroSizeMakeScalarOrEmptyTensors,
    SizesAndVectorOwnsACopyOfTheData, SizesAndVectorDefaultsDtypeStridesDimOrderAndDynamism,
    SizesAndVectorAcceptsExplicitRowMajorStrides,
    DimOrderOneZeroGivesColumnMajorStridesOverTheVector,
    ExplicitPermutedStridesReadTheVectorInMemoryOrder,
    StridesInconsistentWithDimOrderAreAShapeError,
    StridesThatDoNotCoverTheVectorDenselyAreAShapeError, DataSizeMismatchIsInvalidArgument,
    VectorWithDtypeCastsIntToDouble, VectorWithDtypeRefusesFloatingToIntegral,
    VectorWithDtypeRefusesNonBoolToBool, VectorWithDtypeAllowsBoolToIntegralAndFloating,
    RawBytesAreReinterpretedAsTheDtype, RawBytesMustMatchTheSizeExactly,
    NonOwningPointerSharesTheBufferBothWays, NonOwningPointerNeitherAllocatesNorCopies,
    NonOwningPointerWithDimOrderOrStridesReadsTheBufferLayout,
    NullPointerMakesATensorWithoutDataThatOpsRefuse,
    CloneKeepsADenseLayoutAndMakesOtherViewsContiguous,
    ResizeDynamicBoundFollowsTheSeedSequence, ResizeWithinCapacityKeepsTheData,
    ResizeStaticRefusesAnyChangeButAcceptsTheSameSizes,
    ResizeDynamicUnboundGrowsAndKeepsTheOldValues, ResizeCannotChangeTheRank,
    ResizeOfANullTensorPtrIsAnErrorStatusNotAThrow, FromBlobWrapsTheBufferWithoutCopying,
    FromBlobWithStridesReadsTheBufferLayout, ForBlobFluentBuilderSetsStridesAndDynamism,
    ForBlobWithDeleterAndDimOrder, ScalarTensorDefaultsToFloat,
    EmptyHasTheSizesDtypeAndStridesAsked, FullFillsEveryElement, ZerosAndOnesWithLikeAndStrided,
    RandIsUniformInTheUnitInterval, RandnIsStandardNormal, RandintIsInRangeAndDefaultsToInt32,
    RandomStridedMakersHonourTheStrides, RandomLikeMakersCopySizesAndDtypeUnlessOverridden,
    SameSeedGivesTheSameValues);

#endif  // CUSTODY_POLICIES_TENSOR_PTR_MAKER_SUITE_H_
