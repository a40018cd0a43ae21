// Copyright 2026 The custody Authors.
//
// testing/harness.h — the fixture every conformance suite derives
// from, parameterised by the handle type `T = BasicTensor<Policy, Backend>`.
//
//  * Skips the test with a clear message when the backend is unavailable
//    (e.g. cuda on a machine without a GPU).
//  * Holds the policy's test idiom for the whole body (`PolicyIdiom<Policy>`,
//    core/policy_idiom.h, defined in policies/<name>/testing.h:
//    nothing for tensor_ptr, a dispose scope for scope, ...).
//  * G6: after the body and the idiom's cleanup, live tensors, live storages and
//    bytes in use are back exactly at their values before the test.
//  * For a test that releases every reference it makes itself
//    (`expect_released_everything()`), G6 holds before the idiom's cleanup,
//    and the idiom's guards (the test's and its threads') give back nothing:
//    the cleanup cannot hide a policy that keeps what it was told to release.
//
// Suites are written once as TYPED_TEST_SUITE_P in *_suite.h files and
// instantiated per combination by //tools/build_defs:matrix.bzl.

#ifndef CUSTODY_TESTING_HARNESS_H_
#define CUSTODY_TESTING_HARNESS_H_

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/policy_traits.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "testing/device.h"
#include "core/policy_idiom.h"

namespace custody::testing {

// Where a test keeps handles on the heap (core/policy_traits.h; gc::vector under gc).
using custody::HandleVector;

// Runs `f`, expects it to throw E, and checks that the message contains each of `parts`.
template <class E, class F>
::testing::AssertionResult ThrowsWith(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) {
      if (msg.find(p) == std::string::npos) {
        return ::testing::AssertionFailure() << "message \"" << msg << "\" lacks \"" << p << "\"";
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw the wrong type: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// The message of the LifetimeError `f` throws ("<...>" when it throws nothing
// or something else), for tests that check more of it than ThrowsWith does.
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

// EXPECTs that `stmt` throws E with a message containing each of the strings that follow.
#define CUSTODY_EXPECT_THROWS(E, stmt, ...) \
  EXPECT_TRUE(::custody::testing::ThrowsWith<E>([&] { (void)(stmt); }, {__VA_ARGS__}))

template <class T>
class ConformanceTest : public ::testing::Test {
 protected:
  using Tensor = T;
  using Policy = typename T::policy_type;
  using B = typename T::backend_type;

  void SetUp() override {
    if (!B::available()) {
      std::string why = "no device";
      if constexpr (requires { B::availability(); }) why = std::string(B::availability().message());
      CUSTODY_SKIP_WITHOUT_DEVICE("backend '" << B::name << "' is not available on this machine ("
                                  << why << "); run its tests on a GPU machine, see "
                                  << "tools/gpu/README.md");
    }
    baseline_ = B::stats().snapshot();
    gave_back_ = guard_gave_back().load();
    guard_.emplace();
  }

  void TearDown() override {
    if (!guard_.has_value()) return;  // skipped
    if (released_everything_ && check_balance_) {
      expect_balance("before the policy's idiom cleaned up, in a test that released everything");
    }
    guard_.reset();
    PolicyIdiom<Policy>::settle();
    if (released_everything_) {
      EXPECT_EQ(guard_gave_back().load() - gave_back_, 0)
          << "G6: the policy's guards had to give back references of a test that released every "
             "handle it made: the policy kept what it was told to release";
    }
    if (check_balance_) expect_balance("by the test body");
  }

  // For tests that deliberately keep something alive past the body.
  void skip_balance_check() { check_balance_ = false; }
  // For tests that give back every reference they make (custody::release on
  // each handle, on every thread): G6 is checked before the idiom's cleanup
  // too, and the idiom's guards must give back nothing.
  void expect_released_everything() { released_everything_ = true; }
  const StatsSnapshot& baseline() const { return baseline_; }
  static StatsSnapshot stats() { return B::stats().snapshot(); }
  // Lets the policy return what it holds back (e.g. runs the collector under gc).
  static void settle_policy() { PolicyIdiom<Policy>::settle(); }

 private:
  void expect_balance(const char* when) const {
    const StatsSnapshot now = B::stats().snapshot();
    EXPECT_EQ(now.live_tensors, baseline_.live_tensors) << "G6: tensors leaked " << when;
    EXPECT_EQ(now.live_storages, baseline_.live_storages) << "G6: storages leaked " << when;
    EXPECT_EQ(now.bytes_in_use, baseline_.bytes_in_use) << "G6: bytes leaked " << when;
  }

  StatsSnapshot baseline_;
  int64_t gave_back_ = 0;
  std::optional<typename PolicyIdiom<Policy>::Guard> guard_;
  bool check_balance_ = true;
  bool released_everything_ = false;
};

// Row-major values of any tensor as doubles (bool -> 0/1), for comparisons.
template <class T>
std::vector<double> values_of(const T& t) {
  const ScalarType dt = t.scalar_type();
  if (dt == ScalarType::Bool) {
    std::vector<bool> v = t.template to_vector<bool>();
    return std::vector<double>(v.begin(), v.end());
  }
  if (dt == ScalarType::Half || dt == ScalarType::BFloat16) {
    auto f = t.to(ScalarType::Float).template to_vector<float>();
    return std::vector<double>(f.begin(), f.end());
  }
  return visit_compute_or_unsigned_dtype(dt, [&](auto tag) {
    using E = typename decltype(tag)::type;
    if constexpr (std::is_same_v<E, bool>) {
      return std::vector<double>{};
    } else {
      std::vector<E> v = t.template to_vector<E>();
      return std::vector<double>(v.begin(), v.end());
    }
  });
}

inline std::vector<int64_t> sizes_vec(IntSpan s) { return std::vector<int64_t>(s.begin(), s.end()); }

// Memory of backend `B` holding `values` — device memory on a device backend,
// filled through B::copy_from_host — for the from_blob cases, which must run on
// every backend. Given back when this goes (declare it before the tensors that
// borrow it).
template <class B>
class BackendBuffer {
 public:
  explicit BackendBuffer(const std::vector<float>& values) : bytes_(values.size() * sizeof(float)) {
    data_ = ValueOrThrow(B::allocate(bytes_));
    ThrowIfError(B::copy_from_host(data_, values.data(), bytes_));
  }
  BackendBuffer(const BackendBuffer&) = delete;
  BackendBuffer& operator=(const BackendBuffer&) = delete;
  ~BackendBuffer() { B::deallocate(data_, bytes_); }
  void* data() const { return data_; }

 private:
  size_t bytes_;
  void* data_ = nullptr;
};

}  // namespace custody::testing

#endif  // CUSTODY_TESTING_HARNESS_H_
