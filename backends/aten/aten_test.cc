// Copyright 2026 The custody Authors.
//
// backends/aten/aten_test.cc — the Aten backend itself: memory comes from
// libtorch's CPU allocator and is counted exactly, kernels run in libtorch and
// never throw (errors come back as Status), and random streams and
// conversions give the same numbers as the oneDNN backend. (Numerics of every
// op against libtorch are in //tests/conformance.)

#include "backends/aten/aten.h"

#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/random.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody {
namespace {

using T = BasicTensor<tensor_ptr::Policy, Aten>;
using TOnednn = BasicTensor<tensor_ptr::Policy, Onednn>;

// ---- a counting CPU allocator installed in libtorch before main() --------------

std::atomic<int64_t> g_allocs{0};
std::atomic<int64_t> g_frees{0};
c10::Allocator* g_default = nullptr;

// Called with each block as it goes back to libtorch, when a test sets it.
void (*g_on_delete)(void*) = nullptr;

void counting_delete(void* p) {
  g_frees.fetch_add(1);
  if (g_on_delete != nullptr) g_on_delete(p);
  g_default->raw_deleter()(p);
}

// Wraps libtorch's default CPU allocator and counts what goes through it.
struct CountingAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) const override {
    c10::DataPtr d = g_default->allocate(n);
    void* p = d.release_context();  // == d.get() for the default allocator
    g_allocs.fetch_add(1);
    return {p, p, &counting_delete, c10::Device(c10::kCPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &counting_delete; }
};

CountingAllocator g_counting;

// Installed during static initialisation, after libc10's own registration and
// before the backend's first allocation (it takes libtorch's allocator then).
const bool g_installed = [] {
  g_default = c10::GetDefaultCPUAllocator();
  c10::SetCPUAllocator(&g_counting, /*priority=*/100);
  return true;
}();

TEST(AtenAllocatorTest, MemoryComesFromLibtorchsCpuAllocator) {
  ASSERT_TRUE(g_installed);
  ASSERT_EQ(c10::GetCPUAllocator(), &g_counting);
  const int64_t allocs = g_allocs.load(), frees = g_frees.load();
  absl::StatusOr<void*> p = Aten::allocate(1000);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(g_allocs.load(), allocs + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 64, 0u) << "libtorch aligns to 64 bytes";
  Aten::deallocate(*p, 1000);
  EXPECT_EQ(g_frees.load(), frees + 1);

  // Tensors of the backend: one allocation each, given back to libtorch once.
  const int64_t allocs2 = g_allocs.load(), frees2 = g_frees.load();
  {
    T t = T::zeros({16, 16});
    EXPECT_EQ(g_allocs.load(), allocs2 + 1);
    T v = t.t();  // views allocate nothing
    EXPECT_EQ(g_allocs.load(), allocs2 + 1);
  }
  EXPECT_EQ(g_frees.load(), frees2 + 1);
}

TEST(AtenAllocatorTest, StatsAreExact) {
  const StatsSnapshot before = Aten::stats().snapshot();
  {
    T a = T::ones({8});  // 32 bytes
    T b = T::ones({4}, ScalarType::Double);  // 32 bytes
    const StatsSnapshot mid = Aten::stats().snapshot();
    EXPECT_EQ(mid.live_tensors, before.live_tensors + 2);
    EXPECT_EQ(mid.live_storages, before.live_storages + 2);
    EXPECT_EQ(mid.bytes_in_use, before.bytes_in_use + 64);
    EXPECT_EQ(mid.num_allocs, before.num_allocs + 2);
    EXPECT_GE(mid.peak_bytes_in_use, mid.bytes_in_use);
    EXPECT_EQ(mid.reserved_bytes, before.reserved_bytes + 64);
  }
  const StatsSnapshot after = Aten::stats().snapshot();
  EXPECT_EQ(after.live_tensors, before.live_tensors);
  EXPECT_EQ(after.live_storages, before.live_storages);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.num_frees, before.num_frees + 2);
  EXPECT_EQ(after.reserved_bytes, before.reserved_bytes);
}

// The free is in the history before libtorch has the block back: after that,
// another thread may be given the same address and record its allocation, and
// an allocation recorded before the free of the block it reuses breaks every
// analysis that pairs frees with allocations by address (custody/report).
TEST(AtenAllocatorTest, FreeIsRecordedBeforeTheBlockGoesBack) {
  static void* block = nullptr;
  static int recorded_when_returned = -1;  // 1: the free was in the history then
  absl::StatusOr<void*> p = Aten::allocate(4096);
  ASSERT_TRUE(p.ok()) << p.status();
  block = *p;
  Aten::stats().record_history(true, /*with_sites=*/false);
  g_on_delete = [](void* q) {
    if (q != block) return;
    recorded_when_returned = 0;
    for (const MemoryEvent& e : Aten::stats().history()) {
      if (e.address == block && e.kind == MemoryEventKind::kFree) recorded_when_returned = 1;
    }
  };
  Aten::deallocate(block, 4096);
  g_on_delete = nullptr;
  Aten::stats().record_history(false, false);
  Aten::stats().clear_history();
  EXPECT_EQ(recorded_when_returned, 1) << "0: the block went back before its free was recorded; "
                                          "-1: it did not go back through libtorch's allocator";
}

TEST(AtenAllocatorTest, ZeroBytesIsARealBlock) {
  absl::StatusOr<void*> p = Aten::allocate(0);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(*p, nullptr);
  Aten::deallocate(*p, 0);
  T e = T::empty({0, 3});
  EXPECT_NE(e.impl().data(), nullptr);
}

TEST(AtenAllocatorTest, ImpossibleAllocationIsResourceExhausted) {
  const StatsSnapshot before = Aten::stats().snapshot();
  absl::StatusOr<void*> p = Aten::allocate(size_t{1} << 60);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(p.status().message().find("libtorch"), absl::string_view::npos) << p.status();
  const StatsSnapshot after = Aten::stats().snapshot();
  EXPECT_EQ(after.num_allocs, before.num_allocs);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.num_ooms, before.num_ooms) << "core counts OOMs, after any retry";
  // Through the op layer: OutOfMemoryError naming the op, counted once by core.
  EXPECT_THROW(T::empty({int64_t{1} << 50}), OutOfMemoryError);
  EXPECT_EQ(Aten::stats().snapshot().num_ooms, before.num_ooms + 1);
}

// ---- kernels ---------------------------------------------------------------------

TEST(AtenKernelTest, OpsRunInLibtorch) {
  const int64_t calls = Aten::aten_calls();
  T a = T::from_vector(std::vector<float>{1, 2, 3});
  T b = a.add(a).relu().sum();
  EXPECT_FLOAT_EQ(b.item<float>(), 12.f);
  EXPECT_GE(Aten::aten_calls(), calls + 3) << "add, relu and sum went through at:: ops";
}

TEST(AtenKernelTest, LibtorchErrorsComeBackAsStatusNamingTheOp) {
  // Inconsistent views (core never passes these): libtorch raises, the backend returns.
  std::vector<float> a(6), b(8), out(4);
  const OwnedKernelView va(a.data(), ScalarType::Float, Dims{1, 2, 3}, Dims{6, 3, 1});
  const OwnedKernelView vb(b.data(), ScalarType::Float, Dims{1, 4, 2}, Dims{8, 2, 1});
  const OwnedKernelView vo(out.data(), ScalarType::Float, Dims{1, 2, 2}, Dims{4, 2, 1});
  absl::Status s;
  ASSERT_NO_THROW(s = Aten::matmul(vo, va, vb));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("matmul"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("libtorch"), absl::string_view::npos) << s;
  // The same through the op layer's error type: index_select is checked with our message.
  T x = T::ones({3});
  T idx = T::from_vector(std::vector<int64_t>{0, 3});
  try {
    (void)x.index_select(0, idx);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
  }
}

TEST(AtenKernelTest, InPlaceOnStridedViewsWritesThrough) {
  T base = T::arange(12, ScalarType::Float).reshape({3, 4});
  T v = base.t().narrow(0, 1, 2);  // [2, 3], strides [1, 4], offset 1
  T other = base.t().narrow(0, 0, 2);  // overlaps v: its row 1 is v's row 0
  v.mul_(10).add_(other);  // v = [[10, 50, 90] + [0, 4, 8], [20, 60, 100] + [10, 50, 90]]
  EXPECT_EQ(base.to_vector<float>(),
            (std::vector<float>{0, 10, 30, 3, 4, 54, 110, 7, 8, 98, 190, 11}));
}

// ---- the same numbers as the oneDNN backend ---------------------------------------

TEST(AtenKernelTest, RandomStreamsMatchTheOtherBackend) {
  for (const uint64_t seed : {uint64_t{0}, uint64_t{42}, uint64_t{1} << 40}) {
    manual_seed(seed);
    T u = T::rand({5, 7});
    T n = T::randn({33});
    T i = T::randint(-5, 9, {4, 4});
    T d = T::rand({6}, ScalarType::Double);
    T b = T::randint(0, 2, {9}, ScalarType::Bool);
    manual_seed(seed);
    TOnednn u2 = TOnednn::rand({5, 7});
    TOnednn n2 = TOnednn::randn({33});
    TOnednn i2 = TOnednn::randint(-5, 9, {4, 4});
    TOnednn d2 = TOnednn::rand({6}, ScalarType::Double);
    TOnednn b2 = TOnednn::randint(0, 2, {9}, ScalarType::Bool);
    EXPECT_EQ(u.to_vector<float>(), u2.to_vector<float>());
    EXPECT_EQ(n.to_vector<float>(), n2.to_vector<float>());
    EXPECT_EQ(i.to_vector<int64_t>(), i2.to_vector<int64_t>());
    EXPECT_EQ(d.to_vector<double>(), d2.to_vector<double>());
    EXPECT_EQ(b.to_vector<bool>(), b2.to_vector<bool>());
  }
}

TEST(AtenKernelTest, RandomIntoAStridedOutputIsElementwiseTheSame) {
  std::vector<float> contiguous(6), strided(6);
  const RandomParams p{7, 3, 0, 1};
  ASSERT_TRUE(Aten::random(KernelView{contiguous.data(), ScalarType::Float, Dims{2, 3}, Dims{3, 1}},
                           RandomDist::kUniform, p).ok());
  ASSERT_TRUE(Aten::random(KernelView{strided.data(), ScalarType::Float, Dims{2, 3}, Dims{1, 2}},
                           RandomDist::kUniform, p).ok());
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(strided[i + 2 * j], contiguous[3 * i + j]);
  }
}

TEST(AtenKernelTest, ScalarConversionsMatchTheOtherBackend) {
  // full() refuses a value the dtype cannot hold, in core, so alike on every
  // backend (as libtorch's Scalar::to<T>() refuses it); arithmetic with an
  // out-of-range scalar wraps on both, as in libtorch.
  EXPECT_THROW(T::full({3}, Scalar(300), ScalarType::Byte), InvalidArgument);
  EXPECT_THROW(TOnednn::full({3}, Scalar(300), ScalarType::Byte), InvalidArgument);
  EXPECT_THROW(T::full({2}, Scalar(1e10), ScalarType::Int), InvalidArgument);
  EXPECT_THROW(TOnednn::full({2}, Scalar(1e10), ScalarType::Int), InvalidArgument);
  EXPECT_THROW(T::full({2}, Scalar(70000.0), ScalarType::Half), InvalidArgument);
  T a = T::from_vector(std::vector<uint8_t>{250, 3});
  TOnednn a2 = TOnednn::from_vector(std::vector<uint8_t>{250, 3});
  EXPECT_EQ(a.add(-7).to_vector<uint8_t>(), a2.add(-7).to_vector<uint8_t>());
  EXPECT_EQ(a.add(260).to_vector<uint8_t>(), a2.add(260).to_vector<uint8_t>());
  EXPECT_EQ(a.mul(300).to_vector<uint8_t>(), a2.mul(300).to_vector<uint8_t>());
  T i = T::from_vector(std::vector<int32_t>{std::numeric_limits<int32_t>::max(), -3});
  TOnednn i2 = TOnednn::from_vector(std::vector<int32_t>{std::numeric_limits<int32_t>::max(), -3});
  EXPECT_EQ(i.add(1).to_vector<int32_t>(), i2.add(1).to_vector<int32_t>()) << "wraps";
}

}  // namespace
}  // namespace custody
