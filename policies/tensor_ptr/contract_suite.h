// Copyright 2026 The custody Authors.
//
// policies/tensor_ptr/contract_suite.h — the `tensor_ptr` policy's ownership
// contract (docs/design.md §5.1–5.2 and ExecuTorch's "Managing Tensor Memory in
// C++" guide): sharing, fresh handles from ops, views keeping storage alive,
// when owned memory and deleters go. Typed on the handle
// `BasicTensor<tensor_ptr::Policy, B>` and instantiated for every backend B by
// //tests/conformance:instantiate.cc. What each maker builds and refuses is the
// maker suite (maker_suite.h, //policies/tensor_ptr:maker_test), which shares
// the helpers below.
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
#include "testing/harness.h"

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

using ::custody::testing::lifetime_message;

}  // namespace tensor_ptr_contract

template <class T>
class TensorPtrContractTest : public ConformanceTest<T> {};

TYPED_TEST_SUITE_P(TensorPtrContractTest);

// Shorthands inside each test body.
#define CUSTODY_TP_PRELUDE                              \
  using TP = TypeParam;                                 \
  using B = typename TP::backend_type;                  \
  using namespace ::custody::tensor_ptr;                \
  using namespace ::custody;                            \
  using namespace ::custody::testing::tensor_ptr_contract; \
  (void)sizeof(B)

// ---- owned data from vectors ----------------------------------------------------------------

// ExecuTorch: the vector *is* the tensor's memory, laid out by dim_order/strides.

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
  // A pointer not aligned to a float (a null one is accepted: ExecuTorch's data bound later).
  void* misaligned = static_cast<char*>(buf.get()) + 1;
  EXPECT_THROW(make_tensor_ptr<B>({2, 3}, misaligned, ScalarType::Float,
                                  TensorShapeDynamism::DYNAMIC_BOUND, buf.counting_deleter(&calls)),
               InvalidArgument);
  EXPECT_THROW(from_blob<B>(misaligned, {3}, ScalarType::Float, buf.counting_deleter(&calls)),
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
  EXPECT_TRUE(names(m, "clone_tensor_ptr")) << m;
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

// ---- resize_tensor_ptr ----------------------------------------------------------------------------

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

// CUSTODY_TP_PRELUDE stays defined for maker_suite.h, which includes this header.

// ---- autograd (Note [Autograd under tensor_ptr], policies/tensor_ptr/tensor_ptr.h) ---

// pytorch/pytorch #4890: a loss kept keeps its graph; reset() or detach() lets it go.
TYPED_TEST_P(TensorPtrContractTest, AKeptLossKeepsItsGraph) {
  using T = TypeParam;
  auto live = [] { return ConformanceTest<T>::stats().live_tensors; };
  T x = T::from_vector(std::vector<float>{1, 2, 3});
  x.requires_grad_();
  const int64_t live0 = live();
  T total = x.exp().sum();
  EXPECT_EQ(live(), live0 + 2) << "the loss, and the view of exp's output its graph saved";
  T kept = total.detach();
  EXPECT_FALSE(kept.requires_grad());
  total.reset();
  EXPECT_EQ(live(), live0 + 1) << "the detached loss holds no graph";
  T again = x.mul(2.0).sum();
  T g_before = x.grad();
  EXPECT_EQ(g_before, nullptr);
  again.backward();
  EXPECT_EQ(x.grad().template to_vector<float>(), std::vector<float>({2, 2, 2}));
  EXPECT_EQ(x.grad().use_count(), 2) << "grad() shares the leaf's gradient";
}

REGISTER_TYPED_TEST_SUITE_P(
    TensorPtrContractTest,
    OwnedTensorIsOneBackendAllocationAndFreedByTheLastTensorPtr,
    DeleterRunsExactlyOnceAfterTheLastTensorPtr, DeleterWaitsForTheLastViewAndAlias,
    DeleterNeverRunsWhenTheMakerThrows, CopySharesTheTensor, ResetGivesThisReferenceBack,
    MoveTransfersTheReferenceAndLeavesTheSourceNull, SwapExchangesTheTensors,
    DefaultTensorPtrIsNullAndComparesWithNullptr, ArrowAndStarReachTheTensor,
    UsingANullTensorPtrThrowsLifetimeErrorNamingTheOp, ReleaseGivesTheReferenceBackAndTwiceIsANoOp,
    EveryOpReturnsAFreshTensorPtrAndLeavesInputsAlone, AliasIsAFreshTensorPtrToTheSameTensor,
    InPlaceOpReturnsATensorPtrToTheSameTensor, ViewHasNewMetadataOverTheSameData,
    ViewKeepsTheDataAliveAfterTheOriginalIsReset, ViewWithNewSizesReinterpretsTheData,
    ViewLargerThanTheStorageIsAShapeError, ViewInheritsDtypeAndShapeDynamism,
    CloneOwnsAnIndependentCopy, CloneOfNonOwnedDataOwnsACopy, ResizeIsSeenByEveryCopyButNotByViews,
    FromBlobWithDeleterRunsItOnceWhenTheLastReferenceGoes,
    AKeptLossKeepsItsGraph);

}  // namespace custody::testing

#endif  // CUSTODY_POLICIES_TENSOR_PTR_CONTRACT_SUITE_H_
