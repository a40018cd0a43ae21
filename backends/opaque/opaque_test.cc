// Copyright 2026 The custody Authors.
//
// The opaque backend itself: its addresses fault when the host reads them, its
// copies and kernels translate them, host memory passed off as device memory is
// refused, and host <-> device copies are counted. (Every policy's conformance
// suites run on it in the matrix.)

#include "backends/opaque/opaque.h"

#include <cstring>
#include <functional>
#include <vector>

#include "backends/onednn/onednn.h"
#include "core/error.h"
#include "core/random.h"
#include "gtest/gtest.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace custody {
namespace {

using T = BasicTensor<tensor_ptr::Policy, Opaque>;
using H = BasicTensor<tensor_ptr::Policy, Onednn>;

TEST(OpaqueDeathTest, ReadingItsMemoryFromTheHostFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  absl::StatusOr<void*> p = Opaque::allocate(64);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(Opaque::is_device_address(*p));
  EXPECT_DEATH(
      {
        volatile float x = *static_cast<volatile float*>(*p);
        (void)x;
      },
      "");
  Opaque::deallocate(*p, 64);
}

// core knows no "opaque" device: the backend uses the generic slot and names it.
TEST(Opaque, NamesCoresGenericDeviceSlot) {
  EXPECT_EQ(Opaque::device().type(), DeviceType::kPrivateUse1);
  EXPECT_EQ(Opaque::device().str(), "opaque:0");
  EXPECT_EQ(Device(DeviceType::kCUDA, 1).str(), "cuda:1");
}

TEST(Opaque, CopiesTranslateAndAreCounted) {
  absl::StatusOr<void*> p = Opaque::allocate(16);
  ASSERT_TRUE(p.ok());
  Opaque::reset_transfers();
  const float in[4] = {1, 2, 3, 4};
  float out[4] = {};
  ASSERT_TRUE(Opaque::copy_from_host(*p, in, sizeof(in)).ok());
  ASSERT_TRUE(Opaque::copy_to_host(out, *p, sizeof(out)).ok());
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  const Opaque::Transfers t = Opaque::transfers();
  EXPECT_EQ(t.from_host, 1);
  EXPECT_EQ(t.to_host, 1);
  EXPECT_EQ(t.from_host_bytes, 16);
  EXPECT_EQ(t.to_host_bytes, 16);
  // The host side of a copy must be host memory, the device side device memory.
  EXPECT_FALSE(Opaque::copy_to_host(*p, out, 4).ok());
  EXPECT_FALSE(Opaque::copy_from_host(out, in, 4).ok());
  Opaque::deallocate(*p, 16);
}

TEST(Opaque, OpsComputeWhatTheCpuBackendComputes) {
  T a = T::from_vector<float>({1, -2, 3, -4, 5, -6}, {2, 3});
  H h = H::from_vector<float>({1, -2, 3, -4, 5, -6}, {2, 3});
  EXPECT_EQ(a.relu().matmul(a.t()).softmax(1).to_vector<float>(),
            h.relu().matmul(h.t()).softmax(1).to_vector<float>());
  manual_seed(7);
  const std::vector<float> on_opaque = T::randn({5}).to_vector<float>();
  manual_seed(7);
  EXPECT_EQ(on_opaque, H::randn({5}).to_vector<float>()) << "the same Philox stream on every backend";
  EXPECT_EQ(a.to<Onednn>().to_vector<float>(), h.to_vector<float>());
  EXPECT_EQ(h.to<Opaque>().sum().item<float>(), -3.0f);
}

TEST(Opaque, ReadingAResultIsOneCopyToTheHost) {
  T a = T::ones({1000});
  Opaque::reset_transfers();
  const float s = a.sum().item<float>();
  EXPECT_EQ(s, 1000.0f);
  EXPECT_EQ(Opaque::transfers().to_host, 1);
  EXPECT_EQ(Opaque::transfers().to_host_bytes, 4);
  EXPECT_EQ(Opaque::transfers().from_host, 0) << "ones() fills on the device";
  Opaque::reset_transfers();
  EXPECT_FALSE(a.narrow(0, 0, 3).to_string().empty());
  EXPECT_EQ(Opaque::transfers().from_host, 0) << "printing only reads";
  EXPECT_GE(Opaque::transfers().to_host, 1);
}

// What each operation costs in host <-> device copies: ops and views none
// (core never stages data through the host), reading a result one copy to the
// host, making a tensor from host data one copy from it.
TEST(Opaque, CopiesPerOperation) {
  T a = T::randn({8, 8});
  T b = T::randn({8, 8});
  T idx = T::from_vector<int64_t>({0, 2, 4});
  struct Case {
    const char* name;
    std::function<T()> run;
  };
  const std::vector<Case> device_only = {
      {"add", [&] { return a + b; }},
      {"mul scalar", [&] { return a * 2.0; }},
      {"matmul", [&] { return a.matmul(b); }},
      {"softmax", [&] { return a.softmax(1); }},
      {"sum", [&] { return a.sum(); }},
      {"argmax", [&] { return a.argmax(1); }},
      {"where", [&] { return where(a.gt(b), a, b); }},
      {"index_select", [&] { return a.index_select(0, idx); }},
      {"transpose+contiguous", [&] { return a.t().contiguous(); }},
      {"to(float64)", [&] { return a.to(ScalarType::Double); }},
      {"randn", [&] { return T::randn({4}); }},
      {"zeros", [&] { return T::zeros({4}); }},
  };
  for (const Case& c : device_only) {
    Opaque::reset_transfers();
    T r = c.run();
    const Opaque::Transfers t = Opaque::transfers();
    EXPECT_EQ(t.to_host + t.from_host, 0) << c.name << " staged data through the host";
  }
  Opaque::reset_transfers();
  (void)T::from_vector<float>({1, 2, 3});
  EXPECT_EQ(Opaque::transfers().from_host, 1) << "from_vector";
  EXPECT_EQ(Opaque::transfers().to_host, 0) << "from_vector";
  Opaque::reset_transfers();
  (void)a.to_vector<float>();
  EXPECT_EQ(Opaque::transfers().to_host, 1) << "to_vector";
  EXPECT_EQ(Opaque::transfers().to_host_bytes, 64 * 4) << "to_vector";
}

TEST(Opaque, HostMemoryPassedOffAsDeviceMemoryIsRefusedByKernels) {
  std::vector<float> host = {1, 2, 3};
  T t = T::from_blob(host.data(), {3});
  try {
    (void)t.add(t);
    FAIL() << "a kernel read host memory as device memory";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("not memory of the opaque backend"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace custody
