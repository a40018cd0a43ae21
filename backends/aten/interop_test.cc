// Copyright 2026 The custody Authors.
//
// backends/aten/interop_test.cc — to_aten / from_aten: shared writes both ways,
// no copies, lifetimes in either order (freed exactly once, by the side that
// allocated), every view kind and dtype, unsupported dtypes, round trips.
//
// The tests are typed on the handle type and use only the generic handle API
// (custody::release, ops), so another policy joins by adding its handle to
// `Handles` and, if its temporaries need it, an `Idiom` specialisation.

#include "backends/aten/interop.h"

#include <ATen/ATen.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/aten/aten.h"
#include "backends/onednn/onednn.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/dispose/dispose.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody {
namespace {

// What gives back the handles a test body creates as temporaries (`t.add_(1)`
// returns a fresh handle): nothing under tensor_ptr (destructors do), every
// alias created on this thread under dispose (C#'s `using var` on each).
template <class Policy>
struct Idiom {
  struct Guard {};
};
template <>
struct Idiom<dispose::Policy> {
  struct Guard {
    uint64_t since = dispose::testing::next_serial();
    ~Guard() { dispose::testing::release_created_on_this_thread_since(since); }
  };
};

// Gives back the handle an op returned, now (so stats can be checked mid-test).
template <AnyTensor T>
void drop(T t) {
  custody::release(t);
}

template <class T>
class InteropTest : public ::testing::Test {
 protected:
  using B = typename T::backend_type;

  void SetUp() override {
    baseline_ = B::stats().snapshot();
    guard_.emplace();
  }
  // Every test gives back everything: custody's counters are where they started.
  void TearDown() override {
    guard_.reset();
    const StatsSnapshot now = B::stats().snapshot();
    EXPECT_EQ(now.live_tensors, baseline_.live_tensors) << "tensors leaked";
    EXPECT_EQ(now.live_storages, baseline_.live_storages) << "storages leaked";
    EXPECT_EQ(now.bytes_in_use, baseline_.bytes_in_use) << "bytes leaked";
  }
  static StatsSnapshot stats() { return B::stats().snapshot(); }

 private:
  StatsSnapshot baseline_;
  std::optional<typename Idiom<typename T::policy_type>::Guard> guard_;
};

using Handles = ::testing::Types<BasicTensor<tensor_ptr::Policy, Aten>,
                                 BasicTensor<dispose::Policy, Aten>>;

class HandleNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::string(T::policy_type::name) + "_" + T::backend_type::name;
  }
};

TYPED_TEST_SUITE(InteropTest, Handles, HandleNames);

std::vector<int64_t> vec(at::IntArrayRef a) { return a.vec(); }
std::vector<int64_t> vec(IntSpan s) { return std::vector<int64_t>(s.begin(), s.end()); }

// Row-major values, as doubles, of either side's tensor.
std::vector<double> values(const at::Tensor& a) {
  const at::Tensor d = a.to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}
template <AnyTensor T>
std::vector<double> values(const T& t) {
  T d = t.to(ScalarType::Double);
  std::vector<double> v = d.template to_vector<double>();
  custody::release(d);
  return v;
}

// ---- to_aten ----------------------------------------------------------------------

TYPED_TEST(InteropTest, ToAtenSharesMemoryBothWaysWithoutCopy) {
  using T = TypeParam;
  T t = T::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  const StatsSnapshot before = this->stats();
  at::Tensor a = to_aten(t);
  EXPECT_EQ(this->stats().num_allocs, before.num_allocs) << "to_aten must not copy";
  EXPECT_EQ(this->stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(a.data_ptr(), static_cast<void*>(t.template data_ptr<float>()));
  EXPECT_EQ(a.scalar_type(), at::kFloat);
  EXPECT_EQ(vec(a.sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vec(a.strides()), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(a.storage_offset(), 0);
  EXPECT_TRUE(a.device().is_cpu());
  EXPECT_FALSE(a.requires_grad());

  a.mul_(2);  // written by libtorch, seen by custody
  EXPECT_EQ(values(t), (std::vector<double>{2, 4, 6, 8, 10, 12}));
  drop(t.add_(1));  // written by custody, seen by libtorch
  EXPECT_EQ(values(a), (std::vector<double>{3, 5, 7, 9, 11, 13}));
  a.reset();
  custody::release(t);
}

TYPED_TEST(InteropTest, ToAtenOfAViewHasOurOffsetStridesAndWholeStorage) {
  using T = TypeParam;
  T base = T::arange(12, ScalarType::Float).reshape({3, 4});
  T v = base.t().narrow(0, 1, 2);  // [2, 3], strides [1, 4], storage offset 1
  at::Tensor a = to_aten(v);
  EXPECT_EQ(vec(a.sizes()), vec(v.sizes()));
  EXPECT_EQ(vec(a.strides()), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(a.storage_offset(), 1);
  EXPECT_EQ(a.storage_offset(), v.storage_offset());
  EXPECT_FALSE(a.is_contiguous());
  EXPECT_EQ(a.data_ptr(), static_cast<void*>(v.template data_ptr<float>()));
  EXPECT_EQ(a.storage().data(), static_cast<void*>(base.template data_ptr<float>()));
  EXPECT_EQ(a.storage().nbytes(), 12 * sizeof(float)) << "the whole Storage, not just the view";
  EXPECT_EQ(values(a), (std::vector<double>{1, 5, 9, 2, 6, 10}));
  a.fill_(-1);
  EXPECT_EQ(values(base), (std::vector<double>{0, -1, -1, 3, 4, -1, -1, 7, 8, -1, -1, 11}));
}

TYPED_TEST(InteropTest, ToAtenOutlivesOurHandleAndOurBackendFreesOnce) {
  using T = TypeParam;
  const StatsSnapshot before = this->stats();
  T t = T::ones({4});
  const Storage* storage = t.impl().storage().get();
  EXPECT_EQ(storage->use_count(), 1);
  at::Tensor a = to_aten(t);
  EXPECT_EQ(storage->use_count(), 2) << "libtorch holds one reference on our Storage";
  at::Tensor b = a.view({2, 2});  // a second at::Tensor on the same StorageImpl
  EXPECT_EQ(storage->use_count(), 2) << "one reference per StorageImpl, not per at::Tensor";

  custody::release(t);  // our handle goes first
  StatsSnapshot now = this->stats();
  EXPECT_EQ(now.live_tensors, before.live_tensors);
  EXPECT_EQ(now.live_storages, before.live_storages + 1) << "kept alive by libtorch";
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use + 16);
  EXPECT_EQ(now.num_frees, before.num_frees);
  EXPECT_EQ(storage->use_count(), 1);
  a.add_(1.5);  // still valid memory
  EXPECT_EQ(values(b), (std::vector<double>{2.5, 2.5, 2.5, 2.5}));

  a.reset();
  EXPECT_EQ(this->stats().num_frees, before.num_frees) << "b still shares the storage";
  b.reset();
  now = this->stats();
  EXPECT_EQ(now.num_frees, before.num_frees + 1) << "freed exactly once, by our backend";
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(now.live_storages, before.live_storages);
}

TYPED_TEST(InteropTest, OurHandleOutlivesTheAtenTensor) {
  using T = TypeParam;
  const StatsSnapshot before = this->stats();
  T t = T::ones({3});
  {
    at::Tensor a = to_aten(t);
    at::Tensor tail = a.narrow(0, 1, 2);
    tail.fill_(7);
    EXPECT_EQ(t.impl().storage()->use_count(), 2);
  }  // libtorch's tensors go first
  EXPECT_EQ(t.impl().storage()->use_count(), 1) << "libtorch gave its reference back";
  EXPECT_EQ(this->stats().num_frees, before.num_frees);
  EXPECT_EQ(values(t), (std::vector<double>{1, 7, 7}));
  const int64_t frees = this->stats().num_frees;
  custody::release(t);
  EXPECT_EQ(this->stats().num_frees, frees + 1) << "freed exactly once, when our handle goes";
  EXPECT_EQ(this->stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST(InteropTest, ToAtenEveryDtype) {
  using T = TypeParam;
  const std::vector<std::pair<ScalarType, at::ScalarType>> dtypes = {
      {ScalarType::Float, at::kFloat}, {ScalarType::Double, at::kDouble},
      {ScalarType::Int, at::kInt},     {ScalarType::Long, at::kLong},
      {ScalarType::Byte, at::kByte},   {ScalarType::Bool, at::kBool},
      {ScalarType::Half, at::kHalf},   {ScalarType::BFloat16, at::kBFloat16},
      {ScalarType::Char, at::kChar},   {ScalarType::Short, at::kShort},
  };
  for (const auto& [ours, theirs] : dtypes) {
    SCOPED_TRACE(std::string(dtype_name(ours)));
    T t = T::from_vector(std::vector<double>{0, 1, 2, 0, 4, 5}, {2, 3}).to(ours).t();
    at::Tensor a = to_aten(t);
    EXPECT_EQ(a.scalar_type(), theirs);
    EXPECT_EQ(to_aten_dtype(ours), theirs);
    EXPECT_EQ(from_aten_dtype(theirs), ours);
    EXPECT_EQ(a.data_ptr(), t.impl().data());
    EXPECT_EQ(values(a), values(t));
  }
  // libtorch 1.13 has no uint16/32/64: a DTypeError naming to_aten and the dtype.
  for (ScalarType u : {ScalarType::UInt16, ScalarType::UInt32, ScalarType::UInt64}) {
    T t = T::ones({2}, u);
    try {
      (void)to_aten(t);
      ADD_FAILURE() << "expected DTypeError for " << dtype_name(u);
    } catch (const DTypeError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("to_aten"), std::string::npos) << msg;
      EXPECT_NE(msg.find(std::string(dtype_name(u))), std::string::npos) << msg;
    }
  }
}

TYPED_TEST(InteropTest, ToAtenOfAReleasedHandleIsLifetimeError) {
  using T = TypeParam;
  T t = T::ones({2});
  custody::release(t);
  try {
    (void)to_aten(t);
    FAIL() << "expected LifetimeError";
  } catch (const LifetimeError& e) {
    EXPECT_NE(std::string(e.what()).find("to_aten"), std::string::npos) << e.what();
  }
}

// ---- from_aten --------------------------------------------------------------------

TYPED_TEST(InteropTest, FromAtenSharesMemoryBothWaysWithoutCopy) {
  using T = TypeParam;
  at::Tensor x = at::arange(6, at::kFloat).view({2, 3});
  const auto storage_refs = x.storage().use_count();
  const StatsSnapshot before = this->stats();
  T y = from_aten<T>(x);
  EXPECT_EQ(x.storage().use_count(), storage_refs + 1) << "our Storage holds libtorch's";
  EXPECT_EQ(x.use_count(), 1) << "the storage is held, not the at::Tensor";
  StatsSnapshot now = this->stats();
  EXPECT_EQ(now.num_allocs, before.num_allocs) << "from_aten must not copy";
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use) << "libtorch's bytes are not ours";
  EXPECT_EQ(now.live_tensors, before.live_tensors + 1);
  EXPECT_EQ(now.live_storages, before.live_storages + 1);
  EXPECT_EQ(y.template data_ptr<float>(), x.data_ptr<float>());
  EXPECT_EQ(y.scalar_type(), ScalarType::Float);
  EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{3, 1}));

  x.mul_(2);  // written by libtorch, seen by custody
  EXPECT_EQ(values(y), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  drop(y.add_(1));  // written by custody (an Aten kernel), seen by libtorch
  EXPECT_EQ(values(x), (std::vector<double>{1, 3, 5, 7, 9, 11}));

  custody::release(y);
  EXPECT_EQ(x.storage().use_count(), storage_refs) << "released exactly once";
}

TYPED_TEST(InteropTest, FromAtenOutlivesTheAtenTensorAndLibtorchFreesOnce) {
  using T = TypeParam;
  std::atomic<int> freed{0};
  float* buf = new float[4]{1, 2, 3, 4};
  at::Tensor x = at::from_blob(
      buf, {4},
      [&freed](void* p) {
        delete[] static_cast<float*>(p);
        freed.fetch_add(1);
      },
      at::kFloat);
  T y = from_aten<T>(x);
  x.reset();  // libtorch's last tensor goes first
  EXPECT_EQ(freed.load(), 0) << "custody's handle keeps libtorch's storage alive";
  drop(y.mul_(10));
  T v = y.narrow(0, 1, 2);  // a custody view of the shared storage
  custody::release(y);
  EXPECT_EQ(freed.load(), 0) << "the view still uses it";
  EXPECT_EQ(values(v), (std::vector<double>{20, 30}));
  custody::release(v);
  EXPECT_EQ(freed.load(), 1) << "libtorch's deleter runs exactly once, after our last view";
}

TYPED_TEST(InteropTest, AtenTensorOutlivesFromAtenHandle) {
  using T = TypeParam;
  at::Tensor x = at::ones({2, 2});
  const auto storage_refs = x.storage().use_count();
  T y = from_aten<T>(x);
  drop(y.fill_(3));
  custody::release(y);  // our handle goes first
  EXPECT_EQ(x.storage().use_count(), storage_refs);
  EXPECT_EQ(values(x), (std::vector<double>{3, 3, 3, 3}));
  x.add_(1);  // still libtorch's, still valid
  EXPECT_EQ(values(x), (std::vector<double>{4, 4, 4, 4}));
}

TYPED_TEST(InteropTest, FromAtenNonContiguousAndExpanded) {
  using T = TypeParam;
  const at::Tensor base = at::arange(12, at::kFloat).view({3, 4});
  const at::Tensor x = base.t();  // [4, 3], strides [1, 4]
  T y = from_aten<T>(x);
  EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{1, 4}));
  EXPECT_FALSE(y.is_contiguous());
  EXPECT_EQ(y.template data_ptr<float>(), x.data_ptr<float>());
  EXPECT_EQ(values(y), values(x));
  // The Aten backend's kernels on the shared, strided memory agree with libtorch.
  T w = from_aten<T>(base);
  EXPECT_EQ(values(y.sum(0)), values(x.sum(0)));
  EXPECT_EQ(values(y.matmul(w)), values(at::matmul(x, base)));

  const at::Tensor e = at::arange(3, at::kFloat).view({3, 1}).expand({3, 4});
  T ye = from_aten<T>(e);
  EXPECT_EQ(vec(ye.strides()), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(values(ye), values(e));
}

TYPED_TEST(InteropTest, FromAtenWithStorageOffset) {
  using T = TypeParam;
  const at::Tensor base = at::arange(20, at::kLong).view({4, 5});
  for (const at::Tensor& x : {base.narrow(0, 1, 2), base.slice(1, 2, 5), base.select(1, 3),
                              base.t().narrow(0, 2, 2)}) {
    SCOPED_TRACE(::testing::Message() << "sizes " << x.sizes() << " strides " << x.strides()
                                      << " offset " << x.storage_offset());
    ASSERT_GT(x.storage_offset(), 0);
    T y = from_aten<T>(x);
    EXPECT_EQ(y.storage_offset(), x.storage_offset());
    EXPECT_EQ(vec(y.sizes()), vec(x.sizes()));
    EXPECT_EQ(vec(y.strides()), vec(x.strides()));
    EXPECT_EQ(y.template data_ptr<int64_t>(), x.data_ptr<int64_t>());
    EXPECT_EQ(values(y), values(x));
  }
  // Writing through an offset view lands in the right place of libtorch's tensor.
  T rows = from_aten<T>(base.narrow(0, 1, 2));
  drop(rows.fill_(-1));
  EXPECT_EQ(values(base.select(0, 0)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(base.select(0, 1)), (std::vector<double>(5, -1)));
  EXPECT_EQ(values(base.select(0, 2)), (std::vector<double>(5, -1)));
  EXPECT_EQ(values(base.select(0, 3)), (std::vector<double>{15, 16, 17, 18, 19}));
}

TYPED_TEST(InteropTest, FromAtenEverySupportedDtype) {
  using T = TypeParam;
  const std::vector<std::pair<at::ScalarType, ScalarType>> dtypes = {
      {at::kLong, ScalarType::Long},   {at::kBool, ScalarType::Bool},
      {at::kByte, ScalarType::Byte},   {at::kDouble, ScalarType::Double},
      {at::kHalf, ScalarType::Half},   {at::kBFloat16, ScalarType::BFloat16},
      {at::kInt, ScalarType::Int},     {at::kFloat, ScalarType::Float},
  };
  const at::Tensor src = at::tensor({0., 1., 2., 0., 4., 250., 7., 0.}, at::kDouble).view({2, 4});
  for (const auto& [theirs, ours] : dtypes) {
    SCOPED_TRACE(c10::toString(theirs));
    const at::Tensor x = src.to(theirs).t().narrow(0, 1, 3);  // non-contiguous, offset 1
    T y = from_aten<T>(x);
    EXPECT_EQ(y.scalar_type(), ours);
    EXPECT_EQ(y.impl().data(), x.data_ptr());
    EXPECT_EQ(y.storage_offset(), 1);
    EXPECT_EQ(values(y), values(x));
    // And back: custody writes, libtorch reads, in the same dtype.
    drop(y.fill_(1));
    EXPECT_EQ(values(x), std::vector<double>(6, 1));
  }
}

TYPED_TEST(InteropTest, FromAtenUnsupportedDtypeIsDTypeErrorNamingIt) {
  using T = TypeParam;
  const StatsSnapshot before = this->stats();
  const std::vector<std::pair<at::ScalarType, std::string>> unsupported = {
      {at::kComplexFloat, "complex64"}, {at::kComplexDouble, "complex128"},
  };
  for (const auto& [dt, name] : unsupported) {
    SCOPED_TRACE(name);
    const at::Tensor x = at::zeros({2, 2}, dt);
    const auto storage_refs = x.storage().use_count();
    try {
      (void)from_aten<T>(x);
      ADD_FAILURE() << "expected DTypeError";
    } catch (const DTypeError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("from_aten"), std::string::npos) << msg;
      EXPECT_NE(msg.find(name), std::string::npos) << msg;
    }
    EXPECT_EQ(x.storage().use_count(), storage_refs) << "nothing held on failure";
    EXPECT_TRUE(x.storage().resizable()) << "nothing pinned on failure";
    EXPECT_THROW((void)from_aten_dtype(dt), DTypeError);
  }
  EXPECT_EQ(this->stats().live_storages, before.live_storages);
  EXPECT_EQ(this->stats().live_tensors, before.live_tensors);
}

TYPED_TEST(InteropTest, FromAtenRejectsWhatItCannotShare) {
  using T = TypeParam;
  EXPECT_THROW((void)from_aten<T>(at::Tensor()), InvalidArgument);
  try {
    (void)from_aten<T>(at::eye(3).to_sparse());
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("Sparse"), std::string::npos) << e.what();
  }
  try {
    (void)from_aten<T>(at::ones({2})._neg_view());
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("resolve_neg"), std::string::npos) << e.what();
  }
}

TYPED_TEST(InteropTest, EmptyTensorsShareToo) {
  using T = TypeParam;
  T t = T::empty({0, 3});
  at::Tensor a = to_aten(t);
  EXPECT_EQ(vec(a.sizes()), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(a.numel(), 0);
  const at::Tensor x = at::empty({4, 0}, at::kLong);
  T y = from_aten<T>(x);
  EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(y.scalar_type(), ScalarType::Long);
  EXPECT_EQ(values(y.sum()), (std::vector<double>{0}));
}

// ---- round trips and pinning -------------------------------------------------------

TYPED_TEST(InteropTest, RoundTripThroughLibtorchKeepsOurStorage) {
  using T = TypeParam;
  const StatsSnapshot before = this->stats();
  T t = T::ones({2, 3});
  at::Tensor a = to_aten(t).t();
  const StatsSnapshot mid = this->stats();
  T y = from_aten<T>(a);
  EXPECT_EQ(y.impl().storage().get(), t.impl().storage().get()) << "no Storage around a Storage";
  EXPECT_TRUE(y.is_same_storage(t));
  EXPECT_EQ(this->stats().live_storages, mid.live_storages);
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{1, 3}));
  a.reset();
  custody::release(t);
  drop(y.mul_(5));
  EXPECT_EQ(values(y), std::vector<double>(6, 5));
  const int64_t frees = this->stats().num_frees;
  custody::release(y);
  EXPECT_EQ(this->stats().num_frees, frees + 1) << "the one Storage, freed once";
  EXPECT_EQ(this->stats().bytes_in_use, before.bytes_in_use);
}

TYPED_TEST(InteropTest, RoundTripThroughCustodyKeepsLibtorchsStorage) {
  using T = TypeParam;
  at::Tensor x = at::arange(6, at::kFloat);
  const auto storage_refs = x.storage().use_count();
  T y = from_aten<T>(x);
  T tail = y.narrow(0, 2, 3);
  at::Tensor a = to_aten(tail);
  EXPECT_TRUE(a.is_alias_of(x)) << "to_aten hands back libtorch's own StorageImpl";
  EXPECT_EQ(a.storage_offset(), 2);
  EXPECT_EQ(x.storage().use_count(), storage_refs + 2);  // our Storage and `a`
  // So libtorch's own overlap checks see the sharing:
  EXPECT_THROW(x.narrow(0, 0, 3).copy_(a), c10::Error);
  custody::release(tail);
  custody::release(y);
  EXPECT_EQ(x.storage().use_count(), storage_refs + 1);
  a.reset();
  EXPECT_EQ(x.storage().use_count(), storage_refs);
}

TYPED_TEST(InteropTest, SharedStoragesArePinned) {
  using T = TypeParam;
  at::Tensor x = at::zeros({4});
  EXPECT_TRUE(x.storage().resizable());
  T y = from_aten<T>(x);
  EXPECT_FALSE(x.storage().resizable());
  EXPECT_THROW(x.resize_({1 << 20}), c10::Error) << "growing would free memory custody reads";
  x.resize_({2});  // shrinking does not move memory
  EXPECT_EQ(y.template data_ptr<float>(), x.data_ptr<float>());
  custody::release(y);

  T t = T::ones({4});
  at::Tensor a = to_aten(t);
  EXPECT_FALSE(a.storage().resizable());
  EXPECT_THROW(a.resize_({1 << 20}), c10::Error);
  EXPECT_EQ(a.data_ptr(), static_cast<void*>(t.template data_ptr<float>()));
}

TYPED_TEST(InteropTest, KernelsOnSharedMemoryAgreeWithLibtorch) {
  using T = TypeParam;
  at::manual_seed(3);
  const at::Tensor x = at::randn({3, 4}), w = at::randn({5, 4});
  T r = from_aten<T>(x).matmul(from_aten<T>(w).t()).relu().softmax(1);
  const at::Tensor ref = at::softmax(at::relu(at::matmul(x, w.t())), 1);
  const at::Tensor got = to_aten(r);
  EXPECT_TRUE(at::allclose(got, ref, 1e-5, 1e-6)) << got << "\n" << ref;
}

// ---- threads and other host backends -------------------------------------------------

// Shares made and dropped concurrently (the round-trip registry is shared by all
// threads): every reference is given back exactly once.
TEST(InteropThreadsTest, ConcurrentSharesBalance) {
  using T = BasicTensor<tensor_ptr::Policy, Aten>;
  const StatsSnapshot before = Aten::stats().snapshot();
  const at::Tensor x = at::arange(64, at::kFloat);
  const auto storage_refs = x.storage().use_count();
  T shared = T::ones({32});
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&x, &shared, k] {
      for (int i = 0; i < 200; ++i) {
        T y = from_aten<T>(x.narrow(0, k, 8));
        at::Tensor a = to_aten(y);       // back to libtorch's own StorageImpl
        at::Tensor b = to_aten(shared);  // a new StorageImpl on our Storage
        T z = from_aten<T>(b);           // and back onto our Storage
        EXPECT_TRUE(a.is_alias_of(x));
        EXPECT_TRUE(z.is_same_storage(shared));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(x.storage().use_count(), storage_refs);
  EXPECT_EQ(shared.impl().storage()->use_count(), 1);
  shared.reset();
  const StatsSnapshot now = Aten::stats().snapshot();
  EXPECT_EQ(now.live_tensors, before.live_tensors);
  EXPECT_EQ(now.live_storages, before.live_storages);
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use);
}


TEST(InteropOtherBackendTest, OnednnHandlesShareToo) {
  using T = BasicTensor<tensor_ptr::Policy, Onednn>;
  const StatsSnapshot before = Onednn::stats().snapshot();
  {
    T t = T::arange(4, ScalarType::Float);
    at::Tensor a = to_aten(t);
    EXPECT_EQ(a.data_ptr(), static_cast<void*>(t.data_ptr<float>()));
    t.reset();
    a.add_(1);
    T y = from_aten<T>(a);  // a round trip onto the oneDNN backend's own Storage
    EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
    const T z = from_aten<T>(at::ones({2}, at::kLong));
    EXPECT_EQ(z.to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  }
  const StatsSnapshot now = Onednn::stats().snapshot();
  EXPECT_EQ(now.live_tensors, before.live_tensors);
  EXPECT_EQ(now.live_storages, before.live_storages);
  EXPECT_EQ(now.bytes_in_use, before.bytes_in_use);
}

}  // namespace
}  // namespace custody
