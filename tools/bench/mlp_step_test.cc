// Copyright 2026 The custody Authors.
//
// tools/bench/mlp_step_test.cc — the MLP step of mlp_step.h computes what its
// libtorch twin (AtenMlp) computes, under every policy on every host backend:
// same losses and same updated parameters after a few steps from the same
// initial weights; and it gives back every temporary it creates.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"
#include "custody/lists/all_policies.h"
#include "custody/lists/all_host_backends.h"
#include "core/policy_idiom.h"
#include "custody/lists/type_list.h"
#include "tools/bench/mlp_step.h"
#include "tools/bench/mlp_step_aten.h"

namespace custody::bench {
namespace {

constexpr float kLr = 0.1f;
constexpr int kSteps = 3;

using custody::PolicyIdiom;

void expect_close(const std::vector<float>& got, const std::vector<float>& want,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(static_cast<double>(got[i]) - want[i]) /
                       (1e-4 + 1e-4 * std::abs(static_cast<double>(want[i])));
    if (err > worst) worst = err, worst_at = i;
  }
  EXPECT_LE(worst, 1.0) << what << "[" << worst_at << "]: " << got[worst_at] << " vs libtorch "
                        << want[worst_at] << " (tolerance 1e-4 + 1e-4 * |libtorch|)";
}

// Runs kSteps steps of custody's MLP (type T) and of AtenMlp from the same
// data; compares losses and final parameters.
template <AnyTensor T>
void check_against_libtorch(const MlpShape& shape, Temporaries mode) {
  using B = typename T::backend_type;
  using P = typename T::policy_type;
  const MlpData data = make_mlp_data(shape, /*seed=*/7);
  using Idiom = PolicyIdiom<P>;
  const int64_t live_before = B::stats().snapshot().live_tensors;
  std::optional<typename Idiom::Reap> reap(std::in_place);

  AtenMlp reference(data);
  std::vector<float> want_losses, got_losses;
  MlpWeights got;
  {
    // What the policy needs open around the body (a dispose scope under scope).
    [[maybe_unused]] typename Idiom::Region region;
    Mlp<T> m = make_mlp<T>(data);
    for (int i = 0; i < kSteps; ++i) {
      if constexpr (std::is_same_v<P, scope::Policy>) {
        auto per_step = scope::new_dispose_scope();  // under kLeave, gives the temporaries back
        got_losses.push_back(mlp_step(m, kLr, mode));
      } else {
        got_losses.push_back(mlp_step(m, kLr, mode));
      }
      want_losses.push_back(reference.step(kLr));
    }
    got = weights_of(m);
    release_mlp(m);
  }

  expect_close(got_losses, want_losses, "loss");
  const MlpWeights want = reference.weights();
  expect_close(got.w1, want.w1, "w1");
  expect_close(got.b1, want.b1, "b1");
  expect_close(got.w2, want.w2, "w2");
  expect_close(got.b2, want.b2, "b2");
  // The loss goes down: the gradients point the right way, not just libtorch's way.
  EXPECT_LT(got_losses.back(), got_losses.front());

  if constexpr (Idiom::kCollects) {
    if (mode == Temporaries::kLeave) {
      // Garbage for the collector, which is conservative (a stale stack word may keep an alias a
      // while): no exact count here; give back whatever is left so later tests start clean.
      reap.reset();
      return;
    }
  }
  EXPECT_EQ(B::stats().snapshot().live_tensors, live_before)
      << "the step (or make_mlp/release_mlp) left tensors alive";
}

template <class T>
class MlpStepTest : public ::testing::Test {};

// Every policy of ALL_POLICIES on every host backend (tools/build_defs/flags.bzl).
using Types = custody::lists::Apply<
    ::testing::Types,
    custody::lists::TensorsOf<custody::lists::AllPolicies, custody::lists::AllHostBackends>>;

class TypeNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::string(T::policy_type::name) + "_" + T::backend_type::name;
  }
};
TYPED_TEST_SUITE(MlpStepTest, Types, TypeNames);

// A small shape: tensors small enough for the direct loops of the onednn backend.
TYPED_TEST(MlpStepTest, SmallMatchesLibtorchReleasingTemporaries) {
  check_against_libtorch<TypeParam>(MlpShape{.batch = 8, .in = 12, .hidden = 16, .out = 5},
                                    Temporaries::kRelease);
}

// The benchmark's shape (64, 784 -> 256 -> 10): oneDNN primitives on the onednn backend.
TYPED_TEST(MlpStepTest, BenchmarkShapeMatchesLibtorchReleasingTemporaries) {
  check_against_libtorch<TypeParam>(MlpShape{}, Temporaries::kRelease);
}

// The idioms that leave temporaries to the policy: gc's collector, one dispose scope per step.
template <class T>
class MlpStepLeaveTest : public ::testing::Test {};

using LeaveTypes =
    ::testing::Types<BasicTensor<scope::Policy, Onednn>, BasicTensor<gc::Policy, Onednn>,
                     BasicTensor<scope::Policy, Aten>, BasicTensor<gc::Policy, Aten>>;
TYPED_TEST_SUITE(MlpStepLeaveTest, LeaveTypes, TypeNames);

TYPED_TEST(MlpStepLeaveTest, SmallMatchesLibtorchLeavingTemporaries) {
  check_against_libtorch<TypeParam>(MlpShape{.batch = 8, .in = 12, .hidden = 16, .out = 5},
                                    Temporaries::kLeave);
}

TEST(MlpDataTest, IsDeterministicAndOneHot) {
  const MlpShape shape{.batch = 4, .in = 3, .hidden = 2, .out = 5};
  const MlpData a = make_mlp_data(shape, 3), b = make_mlp_data(shape, 3);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.weights.w1, b.weights.w1);
  for (int64_t i = 0; i < shape.batch; ++i) {
    float row = 0;
    for (int64_t j = 0; j < shape.out; ++j) row += a.y[static_cast<size_t>(i * shape.out + j)];
    EXPECT_EQ(row, 1.f);
  }
}

}  // namespace
}  // namespace custody::bench
