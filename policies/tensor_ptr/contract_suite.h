// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/contract_suite.h — the `tensor_ptr` policy's own contract
// (docs/design.md §5.1–5.2 and ExecuTorch's "Managing Tensor Memory in C++" guide),
// typed on the handle `BasicTensor<tensor_ptr::Policy, B>` and instantiated for
// every backend B by //tests/conformance:instantiate.cc.
//
// Everything is written against the backend: buffers handed to from_blob and the
// pointer makers come from `B::allocate` and are filled/read with
// `B::copy_from_host` / `B::copy_to_host` (they may be device memory); tensor
// values are read only with `to_vector<E>()` / `item<E>()`. The fixture checks
// G6 (live tensors, storages and bytes back at baseline) after every test.

#ifndef CUSTODY_POLICIES_TENSOR_PTR_CONTRACT_SUITE_H_
#define CUSTODY_POLICIES_TENSOR_PTR_CONTRACT_SUITE_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/random.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/tensor_ptr/make.h"
#include "policies/tensor_ptr/testing.h"
#include "policies/tensor_ptr/tensor_ptr.h"
#include "tests/conformance/harness.h"

namespace custody::testing {
namespace tensor_ptr_contract {

using custody::ScalarType;
using custody::TensorShapeDynamism;
using I64s = std::vector<int64_t>;

// Backend memory for the borrowed-data makers. Freed at most once: by a deleter
// that calls free(), or by the destructor (declare it before the tensors).
template <class B>
class Buffer {
 public:
  template <class E>
  explicit Buffer(const std::vector<E>& host) : nbytes_(host.size() * sizeof(E)) {
    p_ = ValueOrThrow(B::allocate(nbytes_));
    ThrowIfError(B::copy_from_host(p_, host.data(), nbytes_));
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { free(); }

  void* get() const { return p_; }
  bool freed() const { return p_ == nullptr; }
  void free() {
    if (p_ != nullptr) B::deallocate(std::exchange(p_, nullptr), nbytes_);
  }
  template <class E>
  std::vector<E> read() const {
    std::vector<E> v(nbytes_ / sizeof(E));
    ThrowIfError(B::copy_to_host(v.data(), p_, nbytes_));
    return v;
  }
  template <class E>
  void write(const std::vector<E>& v) {
    ThrowIfError(B::copy_from_host(p_, v.data(), v.size() * sizeof(E)));
  }
  // A deleter that counts its calls, checks it gets this buffer and frees it.
  std::function<void(void*)> counting_deleter(std::atomic<int>* calls) {
    void* expected = p_;
    return [this, calls, expected](void* data) {
      calls->fetch_add(1);
      EXPECT_EQ(data, expected) << "the deleter must receive the pointer it was given with";
      free();
    };
  }

 private:
  void* p_ = nullptr;
  size_t nbytes_;
};

template <class E, class T>
std::vector<E> vals(const T& t) {
  return t.template to_vector<E>();
}
template <class E, class T>
E item(const T& t) {
  return t.template item<E>();
}
inline I64s vec(IntSpan s) { return I64s(s.begin(), s.end()); }
inline I64s vec(const Dims& d) { return I64s(d.begin(), d.end()); }

// The message of the LifetimeError `f` throws ("<...>" when it throws nothing or
// something else).
template <class F>
std::string lifetime_message(F&& f) {
  try {
    f();
  } catch (const LifetimeError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a LifetimeError: ") + e.what() + ">";
  }
  return "<no exception>";
}

}  // namespace tensor_ptr_contract
}  // namespace custody::testing

// At global scope: instantiate.cc names the suite unqualified.
template <class T>
class TensorPtrContractTest : public ::custody::testing::ConformanceTest<T> {};

TYPED_TEST_SUITE_P(TensorPtrContractTest);

// Shorthands inside each test body.
#define CUSTODY_TP_PRELUDE                              \
  using TP = TypeParam;                                 \
  using B = typename TP::backend_type;                  \
  using namespace ::custody::tensor_ptr;                \
  using namespace ::custody;                            \
  using namespace ::custody::testing::tensor_ptr_contract; \
  (void)sizeof(B)

// ---- scalars ------------------------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, ScalarMakerDeducesFloat64FromDouble) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>(3.14);
  EXPECT_EQ(t.scalar_type(), ScalarType::Double);
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_TRUE(t.sizes().empty());
  EXPECT_EQ(item<double>(t), 3.14);
  EXPECT_EQ(t.shape_dynamism(), TensorShapeDynamism::STATIC) << "0-dim tensors are STATIC";
}

TYPED_TEST_P(TensorPtrContractTest, ScalarMakerWithTypeCastsTheValue) {
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

TYPED_TEST_P(TensorPtrContractTest, ScalarMakerRefusesLossyCasts) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>(1.5, ScalarType::Int), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>(1, ScalarType::Bool), DTypeError);
  TP b = make_tensor_ptr<B>(true, ScalarType::Int);  // bool -> int is allowed
  EXPECT_EQ(item<int32_t>(b), 1);
}

TYPED_TEST_P(TensorPtrContractTest, EmptySizesOrAZeroSizeMakeScalarOrEmptyTensors) {
  CUSTODY_TP_PRELUDE;
  TP s = make_tensor_ptr<B>(std::vector<SizesType>{}, std::vector<float>{5.f});
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(item<float>(s), 5.f);
  TP z = make_tensor_ptr<B>(std::vector<SizesType>{0, 3}, std::vector<float>{});
  EXPECT_EQ(z.dim(), 2);
  EXPECT_EQ(z.numel(), 0);
  EXPECT_TRUE(vals<float>(z).empty());
}

// ---- owned data from vectors ----------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, SizesAndVectorOwnsACopyOfTheData) {
  CUSTODY_TP_PRELUDE;
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  TP t = make_tensor_ptr<B>({2, 3}, data);
  data[0] = 100.f;
  data.clear();
  data.shrink_to_fit();
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
}

TYPED_TEST_P(TensorPtrContractTest, SizesAndVectorDefaultsDtypeStridesDimOrderAndDynamism) {
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

TYPED_TEST_P(TensorPtrContractTest, SizesAndVectorAcceptsExplicitRowMajorStrides) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {0, 1}, {3, 1});
  EXPECT_EQ(vec(t.strides()), (I64s{3, 1}));
  EXPECT_EQ(vals<int32_t>(t), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

// ExecuTorch: the vector *is* the tensor's memory, laid out by dim_order/strides.
TYPED_TEST_P(TensorPtrContractTest, DimOrderOneZeroGivesColumnMajorStridesOverTheVector) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}, {1, 0});
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vec(t.dim_order()), (I64s{1, 0}));
  EXPECT_FALSE(t.is_contiguous());
  // Element [i][j] is data[i * 1 + j * 2].
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrContractTest, ExplicitPermutedStridesReadTheVectorInMemoryOrder) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<int64_t>{1, 2, 3, 4, 5, 6}, {}, {1, 2});
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vec(t.dim_order()), (I64s{1, 0}));
  EXPECT_EQ(vals<int64_t>(t), (std::vector<int64_t>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrContractTest, StridesInconsistentWithDimOrderAreAShapeError) {
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

TYPED_TEST_P(TensorPtrContractTest, StridesThatDoNotCoverTheVectorDenselyAreAShapeError) {
  CUSTODY_TP_PRELUDE;
  // Gaps or overlaps would read past, or leave unread, the elements the vector supplies.
  EXPECT_THROW(make_tensor_ptr<B>({2, 2}, std::vector<float>{1, 2, 3, 4}, {}, {3, 1}), ShapeError);
  EXPECT_THROW(make_tensor_ptr<B>({2, 2}, std::vector<float>{1, 2, 3, 4}, {}, {0, 1}), ShapeError);
}

TYPED_TEST_P(TensorPtrContractTest, DataSizeMismatchIsInvalidArgument) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5}), InvalidArgument);
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6, 7}), InvalidArgument);
}

TYPED_TEST_P(TensorPtrContractTest, VectorWithDtypeCastsIntToDouble) {
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

TYPED_TEST_P(TensorPtrContractTest, VectorWithDtypeRefusesFloatingToIntegral) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<float>{1.5f, 2.f}, ScalarType::Int), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<double>{1.0}, ScalarType::Long), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>({2}, std::vector<float>{1, 2}, {}, {}, ScalarType::Byte),
               DTypeError);
}

TYPED_TEST_P(TensorPtrContractTest, VectorWithDtypeRefusesNonBoolToBool) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<int32_t>{0, 1}, ScalarType::Bool), DTypeError);
  EXPECT_THROW(make_tensor_ptr<B>(std::vector<float>{0, 1}, ScalarType::Bool), DTypeError);
}

TYPED_TEST_P(TensorPtrContractTest, VectorWithDtypeAllowsBoolToIntegralAndFloating) {
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

TYPED_TEST_P(TensorPtrContractTest, RawBytesAreReinterpretedAsTheDtype) {
  CUSTODY_TP_PRELUDE;
  const std::vector<int32_t> ints{1, -2, 3, -4, 5, -6};
  std::vector<uint8_t> bytes(ints.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), ints.data(), bytes.size());
  TP t = make_tensor_ptr<B>({2, 3}, std::move(bytes), ScalarType::Int);
  EXPECT_EQ(t.scalar_type(), ScalarType::Int);
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
  EXPECT_EQ(vals<int32_t>(t), ints);
}

TYPED_TEST_P(TensorPtrContractTest, RawBytesMustMatchTheSizeExactly) {
  CUSTODY_TP_PRELUDE;
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<uint8_t>(23), ScalarType::Int),
               InvalidArgument);
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, std::vector<uint8_t>(25), ScalarType::Int),
               InvalidArgument);
  TP ok = make_tensor_ptr<B>({2, 3}, std::vector<uint8_t>(48), ScalarType::Double);
  EXPECT_EQ(vals<double>(ok), std::vector<double>(6, 0.0));
}

TYPED_TEST_P(TensorPtrContractTest, OwnedTensorIsOneBackendAllocationAndFreedByTheLastTensorPtr) {
  CUSTODY_TP_PRELUDE;
  const StatsSnapshot before = this->stats();
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  StatsSnapshot now = this->stats();
  EXPECT_EQ(now.num_allocs - before.num_allocs, 1) << "only the data comes from the backend";
  EXPECT_EQ(now.live_tensors - before.live_tensors, 1);
  EXPECT_EQ(now.live_storages - before.live_storages, 1);
  EXPECT_GE(now.bytes_in_use - before.bytes_in_use, 24) << "at least the 6 floats";
  TP u = t;
  t.reset();
  EXPECT_EQ(this->stats().bytes_in_use, now.bytes_in_use) << "u still owns it";
  u.reset();
  now = this->stats();
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(now.live_tensors, before.live_tensors);
  EXPECT_EQ(now.live_storages, before.live_storages);
}

// ---- borrowed data from pointers ----------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, NonOwningPointerSharesTheBufferBothWays) {
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

TYPED_TEST_P(TensorPtrContractTest, NonOwningPointerNeitherAllocatesNorCopies) {
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

TYPED_TEST_P(TensorPtrContractTest, NonOwningPointerWithDimOrderOrStridesReadsTheBufferLayout) {
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

TYPED_TEST_P(TensorPtrContractTest, DeleterRunsExactlyOnceAfterTheLastTensorPtr) {
  CUSTODY_TP_PRELUDE;
  std::atomic<int> calls{0};
  Buffer<B> buf(std::vector<double>{1, 2, 3, 4, 5, 6});
  TP t = make_tensor_ptr<B>({2, 3}, buf.get(), ScalarType::Double,
                            TensorShapeDynamism::DYNAMIC_BOUND, buf.counting_deleter(&calls));
  EXPECT_EQ(vals<double>(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  TP u = t;
  t.reset();
  EXPECT_EQ(calls.load(), 0) << "a copy still shares the tensor";
  EXPECT_EQ(vals<double>(u), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  u.reset();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_TRUE(buf.freed());
  u.reset();
  EXPECT_EQ(calls.load(), 1) << "resetting a null TensorPtr runs nothing";
}

TYPED_TEST_P(TensorPtrContractTest, DeleterWaitsForTheLastViewAndAlias) {
  CUSTODY_TP_PRELUDE;
  std::atomic<int> calls{0};
  Buffer<B> buf(std::vector<float>{1, 2, 3, 4, 5, 6});
  TP t = make_tensor_ptr<B>({2, 3}, buf.get(), ScalarType::Float,
                            TensorShapeDynamism::DYNAMIC_BOUND, buf.counting_deleter(&calls));
  TP transposed = t.transpose(0, 1);
  TP reinterpreted = make_tensor_ptr<B>(t, {3, 2});
  TP alias = t.alias();
  t.reset();
  EXPECT_EQ(calls.load(), 0);
  transposed.reset();
  EXPECT_EQ(calls.load(), 0);
  alias.reset();
  EXPECT_EQ(calls.load(), 0) << "a view made by make_tensor_ptr(other) keeps the data alive";
  EXPECT_EQ(vals<float>(reinterpreted), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  reinterpreted.reset();
  EXPECT_EQ(calls.load(), 1);
}

TYPED_TEST_P(TensorPtrContractTest, DeleterNeverRunsWhenTheMakerThrows) {
  CUSTODY_TP_PRELUDE;
  std::atomic<int> calls{0};
  Buffer<B> buf(std::vector<float>{1, 2, 3, 4, 5, 6});
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, nullptr, ScalarType::Float,
                                  TensorShapeDynamism::DYNAMIC_BOUND, buf.counting_deleter(&calls)),
               InvalidArgument);
  EXPECT_THROW(from_blob<B>(nullptr, {3}, ScalarType::Float, buf.counting_deleter(&calls)),
               InvalidArgument);
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, buf.get(), {1, 0}, {3, 1}, ScalarType::Float,
                                  TensorShapeDynamism::DYNAMIC_BOUND, buf.counting_deleter(&calls)),
               ShapeError);
  EXPECT_THROW(for_blob<B>(buf.get(), {2, 3}, ScalarType::Float)
                   .dim_order({0})
                   .deleter(buf.counting_deleter(&calls))
                   .make_tensor_ptr(),
               ShapeError);
  EXPECT_EQ(calls.load(), 0) << "a maker that throws has not taken ownership";
  EXPECT_FALSE(buf.freed());
}

TYPED_TEST_P(TensorPtrContractTest, NullPointerIsInvalidArgumentNamingTheMaker) {
  CUSTODY_TP_PRELUDE;
  try {
    (void)make_tensor_ptr<B>({2, 3}, nullptr, ScalarType::Float);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("make_tensor_ptr"), std::string::npos) << e.what();
  }
  try {
    (void)from_blob<B>(nullptr, {3});
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("from_blob"), std::string::npos) << e.what();
  }
}

// ---- sharing: the std::shared_ptr face ------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, CopySharesTheTensor) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  EXPECT_EQ(t.use_count(), 1);
  TP copy = t;
  EXPECT_EQ(t.use_count(), 2);
  EXPECT_EQ(copy.use_count(), 2);
  EXPECT_EQ(copy.get(), t.get());
  EXPECT_TRUE(copy == t);
  copy.fill_(9.f);
  EXPECT_EQ(vals<float>(t), std::vector<float>(6, 9.f)) << "same data and metadata";
  TP assigned;
  assigned = t;
  EXPECT_EQ(t.use_count(), 3);
}

TYPED_TEST_P(TensorPtrContractTest, ResetGivesThisReferenceBack) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2}, {1.f, 2.f});
  TP u = t;
  u.reset();
  EXPECT_EQ(t.use_count(), 1);
  EXPECT_EQ(u.use_count(), 0);
  EXPECT_TRUE(u == nullptr);
  EXPECT_FALSE(static_cast<bool>(u));
  EXPECT_EQ(u.get(), nullptr);
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2}));
}

TYPED_TEST_P(TensorPtrContractTest, MoveTransfersTheReferenceAndLeavesTheSourceNull) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2}, {1.f, 2.f});
  TensorImpl* impl = t.get();
  TP u = std::move(t);
  EXPECT_TRUE(t == nullptr);  // NOLINT(bugprone-use-after-move): moved-from is null, by contract
  EXPECT_EQ(u.get(), impl);
  EXPECT_EQ(u.use_count(), 1);
  TP w;
  w = std::move(u);
  EXPECT_TRUE(u == nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(w.use_count(), 1);
  EXPECT_THROW((void)t.numel(), LifetimeError);  // NOLINT(bugprone-use-after-move)
}

TYPED_TEST_P(TensorPtrContractTest, SwapExchangesTheTensors) {
  CUSTODY_TP_PRELUDE;
  TP a = make_tensor_ptr<B>({1}, {1.f});
  TP b = make_tensor_ptr<B>({2}, {2.f, 3.f});
  TP b2 = b;
  TensorImpl* pa = a.get();
  TensorImpl* pb = b.get();
  a.swap(b);
  EXPECT_EQ(a.get(), pb);
  EXPECT_EQ(b.get(), pa);
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(b.use_count(), 1);
  EXPECT_EQ(vals<float>(a), (std::vector<float>{2, 3}));
  TP null;
  null.swap(b);
  EXPECT_TRUE(b == nullptr);
  EXPECT_EQ(vals<float>(null), (std::vector<float>{1}));
}

TYPED_TEST_P(TensorPtrContractTest, DefaultTensorPtrIsNullAndComparesWithNullptr) {
  CUSTODY_TP_PRELUDE;
  TP d;
  TP n = nullptr;
  EXPECT_TRUE(d == nullptr);
  EXPECT_TRUE(nullptr == d);
  EXPECT_FALSE(d != nullptr);
  EXPECT_TRUE(n == nullptr);
  EXPECT_FALSE(static_cast<bool>(d));
  EXPECT_EQ(d.get(), nullptr);
  EXPECT_EQ(d.use_count(), 0);
  EXPECT_TRUE(d == n) << "two null TensorPtrs compare equal";
  TP t = make_tensor_ptr<B>(1.f);
  EXPECT_TRUE(t != nullptr);
  EXPECT_TRUE(nullptr != t);
  EXPECT_TRUE(static_cast<bool>(t));
  EXPECT_FALSE(t == d);
}

TYPED_TEST_P(TensorPtrContractTest, ArrowAndStarReachTheTensor) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  EXPECT_EQ(vec(t->sizes()), (I64s{2, 3}));
  EXPECT_EQ(t->dim(), 2);
  EXPECT_EQ(t->scalar_type(), ScalarType::Float);
  EXPECT_EQ((*t).numel(), 6);
  EXPECT_EQ(&*t, t.get());
}

TYPED_TEST_P(TensorPtrContractTest, UsingANullTensorPtrThrowsLifetimeErrorNamingTheOp) {
  CUSTODY_TP_PRELUDE;
  TP null;
  TP t = make_tensor_ptr<B>({2}, {1.f, 2.f});
  // Messages read "<op>: this TensorPtr is null ...".
  const auto names = [](const std::string& msg, const std::string& op) {
    return msg.find(op + ":") != std::string::npos;
  };
  std::string m = lifetime_message([&] { (void)null.dim(); });
  EXPECT_TRUE(names(m, "dim")) << m;
  m = lifetime_message([&] { (void)null->sizes(); });
  EXPECT_TRUE(names(m, "operator->")) << m;
  m = lifetime_message([&] { (void)*null; });
  EXPECT_TRUE(names(m, "operator*")) << m;
  m = lifetime_message([&] { (void)null.add(t); });
  EXPECT_TRUE(names(m, "add")) << m;
  m = lifetime_message([&] { (void)t.add(null); });
  EXPECT_TRUE(names(m, "add")) << m << " (a null argument is checked too)";
  m = lifetime_message([&] { (void)null.template to_vector<float>(); });
  EXPECT_TRUE(names(m, "to_vector")) << m;
  m = lifetime_message([&] { (void)clone_tensor_ptr(null); });
  EXPECT_TRUE(names(m, "clone")) << m;
  m = lifetime_message([&] { (void)make_tensor_ptr<B>(null); });
  EXPECT_TRUE(names(m, "make_tensor_ptr")) << m;
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2})) << "the valid input is untouched";
}

TYPED_TEST_P(TensorPtrContractTest, ReleaseGivesTheReferenceBackAndTwiceIsANoOp) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2}, {1.f, 2.f});
  TP keep = t;
  custody::release(t);
  EXPECT_TRUE(t == nullptr);
  EXPECT_EQ(keep.use_count(), 1);
  EXPECT_NO_THROW(custody::release(t));
  EXPECT_EQ(keep.use_count(), 1) << "a second release must not drop someone else's reference";
  EXPECT_THROW((void)t.numel(), LifetimeError);
  EXPECT_EQ(vals<float>(keep), (std::vector<float>{1, 2}));
}

// ---- every op returns a fresh TensorPtr ------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, EveryOpReturnsAFreshTensorPtrAndLeavesInputsAlone) {
  CUSTODY_TP_PRELUDE;
  TP a = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TP b = make_tensor_ptr<B>({2, 3}, {1.f, 1.f, 1.f, 1.f, 1.f, 1.f});
  TP sum = a.add(b);
  EXPECT_EQ(sum.use_count(), 1);
  EXPECT_NE(sum.get(), a.get());
  EXPECT_NE(sum.get(), b.get());
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(b.use_count(), 1);
  EXPECT_EQ(vals<float>(sum), (std::vector<float>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(vals<float>(a), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  TP view = a.transpose(0, 1);
  EXPECT_EQ(view.use_count(), 1);
  EXPECT_NE(view.get(), a.get());
  EXPECT_EQ(a.use_count(), 1) << "a view shares the storage, not the TensorPtr";
  TP mean = a.mean();
  EXPECT_EQ(mean.use_count(), 1);
  EXPECT_FLOAT_EQ(item<float>(mean), 3.5f);
  EXPECT_EQ(a.use_count(), 1);
}

TYPED_TEST_P(TensorPtrContractTest, AliasIsAFreshTensorPtrToTheSameTensor) {
  CUSTODY_TP_PRELUDE;
  TP a = make_tensor_ptr<B>({2}, {1.f, 2.f});
  TP alias = a.alias();
  EXPECT_EQ(alias.get(), a.get());
  EXPECT_EQ(a.use_count(), 2);
  alias.reset();
  EXPECT_EQ(a.use_count(), 1);
}

TYPED_TEST_P(TensorPtrContractTest, InPlaceOpReturnsATensorPtrToTheSameTensor) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({3}, {1.f, 2.f, 3.f});
  TP other = make_tensor_ptr<B>({3}, {10.f, 20.f, 30.f});
  TP r = t.add_(other);
  EXPECT_EQ(r.get(), t.get());
  EXPECT_EQ(t.use_count(), 2);
  EXPECT_EQ(r.use_count(), 2);
  EXPECT_EQ(other.use_count(), 1);
  EXPECT_EQ(vals<float>(t), (std::vector<float>{11, 22, 33}));
  r.reset();
  EXPECT_EQ(t.use_count(), 1);
  t.mul_(2.f);  // result discarded: the reference is given straight back
  EXPECT_EQ(t.use_count(), 1);
  EXPECT_EQ(vals<float>(t), (std::vector<float>{22, 44, 66}));
}

// ---- views of an existing TensorPtr ----------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, ViewHasNewMetadataOverTheSameData) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  const StatsSnapshot before = this->stats();
  TP v = make_tensor_ptr<B>(t);
  EXPECT_EQ(this->stats().bytes_in_use, before.bytes_in_use) << "a view copies no data";
  EXPECT_NE(v.get(), t.get()) << "its own metadata";
  EXPECT_TRUE(v.is_same_storage(t));
  EXPECT_EQ(v.use_count(), 1);
  EXPECT_EQ(t.use_count(), 1);
  EXPECT_EQ(vec(v.sizes()), (I64s{2, 3}));
  EXPECT_EQ(vec(v.strides()), (I64s{3, 1}));
  EXPECT_EQ(v.scalar_type(), ScalarType::Float);
  v.add_(1.f);
  EXPECT_EQ(vals<float>(t), (std::vector<float>{2, 3, 4, 5, 6, 7})) << "writes are shared";
  t.fill_(0.f);
  EXPECT_EQ(vals<float>(v), std::vector<float>(6, 0.f));
}

TYPED_TEST_P(TensorPtrContractTest, ViewKeepsTheDataAliveAfterTheOriginalIsReset) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TP v = make_tensor_ptr<B>(t);
  const int64_t bytes = this->stats().bytes_in_use;
  t.reset();
  EXPECT_EQ(this->stats().bytes_in_use, bytes) << "the data outlives the original TensorPtr";
  EXPECT_EQ(vals<float>(v), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TYPED_TEST_P(TensorPtrContractTest, ViewWithNewSizesReinterpretsTheData) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TP v = make_tensor_ptr<B>(t, {3, 2});
  EXPECT_EQ(vec(v.sizes()), (I64s{3, 2}));
  EXPECT_EQ(vec(v.strides()), (I64s{2, 1}));
  EXPECT_EQ(vals<float>(v), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3})) << "the original's metadata is its own";
  TP flat = make_tensor_ptr<B>(t, {6});
  EXPECT_EQ(vec(flat.sizes()), (I64s{6}));
  TP smaller = make_tensor_ptr<B>(t, {2, 2});
  EXPECT_EQ(vals<float>(smaller), (std::vector<float>{1, 2, 3, 4}));
  TP col = make_tensor_ptr<B>(t, {3, 2}, {1, 0});
  EXPECT_EQ(vec(col.strides()), (I64s{1, 3}));
  EXPECT_EQ(vals<float>(col), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TYPED_TEST_P(TensorPtrContractTest, ViewLargerThanTheStorageIsAShapeError) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  EXPECT_THROW(make_tensor_ptr<B>(t, {4, 2}), ShapeError);
  EXPECT_THROW(make_tensor_ptr<B>(t, {7}), ShapeError);
  EXPECT_THROW(make_tensor_ptr<B>(t, {3, 2}, {}, {3, 1}), ShapeError);
  EXPECT_EQ(t.use_count(), 1);
}

TYPED_TEST_P(TensorPtrContractTest, ViewInheritsDtypeAndShapeDynamism) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 2}, std::vector<int32_t>{1, 2, 3, 4}, {}, {}, ScalarType::Int,
                            TensorShapeDynamism::STATIC);
  TP v = make_tensor_ptr<B>(t);
  EXPECT_EQ(v.scalar_type(), ScalarType::Int);
  EXPECT_EQ(v.shape_dynamism(), TensorShapeDynamism::STATIC);
  EXPECT_FALSE(resize_tensor_ptr(v, {1, 2}).ok());
}

// ---- clone_tensor_ptr ----------------------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, CloneOwnsAnIndependentCopy) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6}, {}, {},
                            ScalarType::Double, TensorShapeDynamism::DYNAMIC_UNBOUND);
  TP c = clone_tensor_ptr(t);
  EXPECT_NE(c.get(), t.get());
  EXPECT_FALSE(c.is_same_storage(t));
  EXPECT_EQ(c.use_count(), 1);
  EXPECT_EQ(t.use_count(), 1);
  EXPECT_EQ(vec(c.sizes()), (I64s{2, 3}));
  EXPECT_EQ(c.scalar_type(), ScalarType::Double);
  EXPECT_EQ(c.shape_dynamism(), TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_EQ(vals<double>(c), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  c.fill_(0.0);
  EXPECT_EQ(vals<double>(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  t.add_(1.0);
  EXPECT_EQ(vals<double>(c), std::vector<double>(6, 0.0));
}

TYPED_TEST_P(TensorPtrContractTest, CloneOfNonOwnedDataOwnsACopy) {
  CUSTODY_TP_PRELUDE;
  std::atomic<int> calls{0};
  Buffer<B> buf(std::vector<int32_t>{7, 8, 9});
  TP t = from_blob<B>(buf.get(), {3}, ScalarType::Int, buf.counting_deleter(&calls));
  const int64_t bytes = this->stats().bytes_in_use;
  TP c = clone_tensor_ptr(t);
  EXPECT_GE(this->stats().bytes_in_use - bytes, 12) << "the clone allocates its own data";
  t.reset();
  EXPECT_EQ(calls.load(), 1) << "the clone does not keep the borrowed buffer alive";
  EXPECT_EQ(vals<int32_t>(c), (std::vector<int32_t>{7, 8, 9}));
}

TYPED_TEST_P(TensorPtrContractTest, CloneOfANonContiguousViewIsContiguousWithTheSameValues) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TP v = t.transpose(0, 1);
  ASSERT_FALSE(v.is_contiguous());
  TP c = clone_tensor_ptr(v);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(vec(c.sizes()), (I64s{3, 2}));
  EXPECT_EQ(vec(c.strides()), (I64s{2, 1}));
  EXPECT_EQ(vals<float>(c), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vals<float>(c), vals<float>(v));
}

// ---- resize_tensor_ptr ----------------------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, ResizeDynamicBoundFollowsTheSeedSequence) {
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
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_EQ(vec(t.sizes()), (I64s{6, 1})) << "a refused resize changes nothing";
  EXPECT_EQ(vals<int32_t>(t), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TYPED_TEST_P(TensorPtrContractTest, ResizeWithinCapacityKeepsTheData) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  const int64_t bytes = this->stats().bytes_in_use;
  ASSERT_TRUE(resize_tensor_ptr(t, {1, 3}).ok());
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3}));
  ASSERT_TRUE(resize_tensor_ptr(t, {2, 3}).ok()) << "growing back up to the bound is allowed";
  EXPECT_EQ(vals<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(this->stats().bytes_in_use, bytes) << "no reallocation within the bound";
}

TYPED_TEST_P(TensorPtrContractTest, ResizeStaticRefusesAnyChangeButAcceptsTheSameSizes) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {}, {}, ScalarType::Float,
                            TensorShapeDynamism::STATIC);
  EXPECT_FALSE(resize_tensor_ptr(t, {2, 2}).ok());
  EXPECT_FALSE(resize_tensor_ptr(t, {3, 2}).ok()) << "even with the same element count";
  EXPECT_TRUE(resize_tensor_ptr(t, {2, 3}).ok());
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
}

TYPED_TEST_P(TensorPtrContractTest, ResizeDynamicUnboundGrowsAndKeepsTheOldValues) {
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

TYPED_TEST_P(TensorPtrContractTest, ResizeCannotChangeTheRank) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {}, {}, ScalarType::Float,
                            TensorShapeDynamism::DYNAMIC_UNBOUND);
  EXPECT_FALSE(resize_tensor_ptr(t, {6}).ok());
  EXPECT_FALSE(resize_tensor_ptr(t, {1, 2, 3}).ok());
  EXPECT_EQ(vec(t.sizes()), (I64s{2, 3}));
}

TYPED_TEST_P(TensorPtrContractTest, ResizeOfANullTensorPtrIsAnErrorStatusNotAThrow) {
  CUSTODY_TP_PRELUDE;
  TP null;
  absl::Status st;
  EXPECT_NO_THROW(st = resize_tensor_ptr(null, {2}));
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("resize_tensor_ptr"), std::string::npos) << st;
}

TYPED_TEST_P(TensorPtrContractTest, ResizeIsSeenByEveryCopyButNotByViews) {
  CUSTODY_TP_PRELUDE;
  TP t = make_tensor_ptr<B>({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  TP copy = t;
  TP view = make_tensor_ptr<B>(t);
  ASSERT_TRUE(resize_tensor_ptr(copy, {3, 2}).ok());
  EXPECT_EQ(vec(t.sizes()), (I64s{3, 2})) << "copies share one TensorImpl";
  EXPECT_EQ(vec(view.sizes()), (I64s{2, 3})) << "a view has its own metadata";
}

// ---- from_blob / for_blob ----------------------------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, FromBlobWrapsTheBufferWithoutCopying) {
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

TYPED_TEST_P(TensorPtrContractTest, FromBlobWithStridesReadsTheBufferLayout) {
  CUSTODY_TP_PRELUDE;
  Buffer<B> buf(std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  TP t = from_blob<B>(buf.get(), {2, 3}, std::vector<StridesType>{1, 2}, ScalarType::Long);
  EXPECT_EQ(vec(t.strides()), (I64s{1, 2}));
  EXPECT_EQ(vals<int64_t>(t), (std::vector<int64_t>{1, 3, 5, 2, 4, 6}));
}

TYPED_TEST_P(TensorPtrContractTest, FromBlobWithDeleterRunsItOnceWhenTheLastReferenceGoes) {
  CUSTODY_TP_PRELUDE;
  std::atomic<int> calls{0};
  Buffer<B> buf(std::vector<int32_t>{1, 2, 3});
  TP t = from_blob<B>(buf.get(), {3}, ScalarType::Int, buf.counting_deleter(&calls));
  EXPECT_EQ(vals<int32_t>(t), (std::vector<int32_t>{1, 2, 3}));
  TP narrowed = t.narrow(0, 1, 2);
  t.reset();
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(vals<int32_t>(narrowed), (std::vector<int32_t>{2, 3}));
  narrowed.reset();
  EXPECT_EQ(calls.load(), 1);
}

TYPED_TEST_P(TensorPtrContractTest, ForBlobFluentBuilderSetsStridesAndDynamism) {
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

TYPED_TEST_P(TensorPtrContractTest, ForBlobWithDeleterAndDimOrder) {
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

// ---- scalar_tensor and the filled/random makers ----------------------------------------------------

TYPED_TEST_P(TensorPtrContractTest, ScalarTensorDefaultsToFloat) {
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

TYPED_TEST_P(TensorPtrContractTest, EmptyHasTheSizesDtypeAndStridesAsked) {
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

TYPED_TEST_P(TensorPtrContractTest, FullFillsEveryElement) {
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

TYPED_TEST_P(TensorPtrContractTest, ZerosAndOnesWithLikeAndStrided) {
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

TYPED_TEST_P(TensorPtrContractTest, RandIsUniformInTheUnitInterval) {
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
  EXPECT_THROW(rand<B>({2}, ScalarType::Int), DTypeError);
}

TYPED_TEST_P(TensorPtrContractTest, RandnIsStandardNormal) {
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

TYPED_TEST_P(TensorPtrContractTest, RandintIsInRangeAndDefaultsToInt32) {
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

TYPED_TEST_P(TensorPtrContractTest, RandomStridedMakersHonourTheStrides) {
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

TYPED_TEST_P(TensorPtrContractTest, RandomLikeMakersCopySizesAndDtypeUnlessOverridden) {
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

TYPED_TEST_P(TensorPtrContractTest, SameSeedGivesTheSameValues) {
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
    TensorPtrContractTest,
    // scalars
    ScalarMakerDeducesFloat64FromDouble, ScalarMakerWithTypeCastsTheValue,
    ScalarMakerRefusesLossyCasts, EmptySizesOrAZeroSizeMakeScalarOrEmptyTensors,
    // owned data
    SizesAndVectorOwnsACopyOfTheData, SizesAndVectorDefaultsDtypeStridesDimOrderAndDynamism,
    SizesAndVectorAcceptsExplicitRowMajorStrides,
    DimOrderOneZeroGivesColumnMajorStridesOverTheVector,
    ExplicitPermutedStridesReadTheVectorInMemoryOrder,
    StridesInconsistentWithDimOrderAreAShapeError,
    StridesThatDoNotCoverTheVectorDenselyAreAShapeError, DataSizeMismatchIsInvalidArgument,
    VectorWithDtypeCastsIntToDouble, VectorWithDtypeRefusesFloatingToIntegral,
    VectorWithDtypeRefusesNonBoolToBool, VectorWithDtypeAllowsBoolToIntegralAndFloating,
    RawBytesAreReinterpretedAsTheDtype, RawBytesMustMatchTheSizeExactly,
    OwnedTensorIsOneBackendAllocationAndFreedByTheLastTensorPtr,
    // borrowed data
    NonOwningPointerSharesTheBufferBothWays, NonOwningPointerNeitherAllocatesNorCopies,
    NonOwningPointerWithDimOrderOrStridesReadsTheBufferLayout,
    DeleterRunsExactlyOnceAfterTheLastTensorPtr, DeleterWaitsForTheLastViewAndAlias,
    DeleterNeverRunsWhenTheMakerThrows, NullPointerIsInvalidArgumentNamingTheMaker,
    // sharing
    CopySharesTheTensor, ResetGivesThisReferenceBack,
    MoveTransfersTheReferenceAndLeavesTheSourceNull, SwapExchangesTheTensors,
    DefaultTensorPtrIsNullAndComparesWithNullptr, ArrowAndStarReachTheTensor,
    UsingANullTensorPtrThrowsLifetimeErrorNamingTheOp,
    ReleaseGivesTheReferenceBackAndTwiceIsANoOp,
    // fresh handles
    EveryOpReturnsAFreshTensorPtrAndLeavesInputsAlone, AliasIsAFreshTensorPtrToTheSameTensor,
    InPlaceOpReturnsATensorPtrToTheSameTensor,
    // views
    ViewHasNewMetadataOverTheSameData, ViewKeepsTheDataAliveAfterTheOriginalIsReset,
    ViewWithNewSizesReinterpretsTheData, ViewLargerThanTheStorageIsAShapeError,
    ViewInheritsDtypeAndShapeDynamism,
    // clone
    CloneOwnsAnIndependentCopy, CloneOfNonOwnedDataOwnsACopy,
    CloneOfANonContiguousViewIsContiguousWithTheSameValues,
    // resize
    ResizeDynamicBoundFollowsTheSeedSequence, ResizeWithinCapacityKeepsTheData,
    ResizeStaticRefusesAnyChangeButAcceptsTheSameSizes,
    ResizeDynamicUnboundGrowsAndKeepsTheOldValues, ResizeCannotChangeTheRank,
    ResizeOfANullTensorPtrIsAnErrorStatusNotAThrow, ResizeIsSeenByEveryCopyButNotByViews,
    // from_blob / for_blob
    FromBlobWrapsTheBufferWithoutCopying, FromBlobWithStridesReadsTheBufferLayout,
    FromBlobWithDeleterRunsItOnceWhenTheLastReferenceGoes,
    ForBlobFluentBuilderSetsStridesAndDynamism, ForBlobWithDeleterAndDimOrder,
    // scalar_tensor and filled/random makers
    ScalarTensorDefaultsToFloat, EmptyHasTheSizesDtypeAndStridesAsked, FullFillsEveryElement,
    ZerosAndOnesWithLikeAndStrided, RandIsUniformInTheUnitInterval, RandnIsStandardNormal,
    RandintIsInRangeAndDefaultsToInt32, RandomStridedMakersHonourTheStrides,
    RandomLikeMakersCopySizesAndDtypeUnlessOverridden, SameSeedGivesTheSameValues);

#endif  // CUSTODY_POLICIES_TENSOR_PTR_CONTRACT_SUITE_H_
