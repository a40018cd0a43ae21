// Copyright 2026 The custody Authors.
//
// tests/conformance/lifetime_catalogue_suite.h — the lifetime half of the
// catalogue (catalogue_suite.h has the inputs half): lifetime misuse generic
// to every policy, run on every combination (lifetime_suites.h). Every op on a
// released handle, a second release, empty handles, another thread: 92
// distinct calls, each a LifetimeError whose message names the op; nothing
// left behind (the fixture's G6 check).

#ifndef CUSTODY_TESTS_CONFORMANCE_LIFETIME_CATALOGUE_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_LIFETIME_CATALOGUE_SUITE_H_

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "testing/harness.h"

namespace custody::testing {

template <class T>
class LifetimeCatalogueTest : public ConformanceTest<T> {};
TYPED_TEST_SUITE_P(LifetimeCatalogueTest);


// Every op on a released handle is a LifetimeError whose message starts with the op's own name.
TYPED_TEST_P(LifetimeCatalogueTest, UseAfterReleaseNamesEveryOp) {
  using T = TypeParam;
  using V = std::vector<int64_t>;
  auto ok = T::ones({2, 2});
  auto idx = T::zeros({1}, ScalarType::Long);
  auto r = T::ones({2, 2});
  custody::release(r);
#define CUSTODY_DEAD(op, stmt) CUSTODY_EXPECT_THROWS(LifetimeError, stmt, op ":")
  // accessors
  CUSTODY_DEAD("dim", r.dim());
  CUSTODY_DEAD("strides", r.strides());
  CUSTODY_DEAD("size", r.size(0));
  CUSTODY_DEAD("stride", r.stride(0));
  CUSTODY_DEAD("dim_order", r.dim_order());
  CUSTODY_DEAD("scalar_type", r.scalar_type());
  CUSTODY_DEAD("dtype", r.dtype());
  CUSTODY_DEAD("element_size", r.element_size());
  CUSTODY_DEAD("nbytes", r.nbytes());
  CUSTODY_DEAD("storage_offset", r.storage_offset());
  CUSTODY_DEAD("shape_dynamism", r.shape_dynamism());
  CUSTODY_DEAD("is_contiguous", r.is_contiguous());
  CUSTODY_DEAD("device", r.device());
  CUSTODY_DEAD("data_ptr", r.template data_ptr<float>());
  CUSTODY_DEAD("const_data_ptr", r.template const_data_ptr<float>());
  CUSTODY_DEAD("mutable_data_ptr", r.template mutable_data_ptr<float>());
  CUSTODY_DEAD("is_same_storage", ok.is_same_storage(r));
  // *_like factories
  CUSTODY_DEAD("empty_like", r.empty_like());
  CUSTODY_DEAD("zeros_like", r.zeros_like());
  CUSTODY_DEAD("ones_like", r.ones_like());
  CUSTODY_DEAD("full_like", r.full_like(2));
  CUSTODY_DEAD("rand_like", r.rand_like());
  CUSTODY_DEAD("randn_like", r.randn_like());
  CUSTODY_DEAD("randint_like", r.randint_like(0, 3));
  // copies, views, conversions
  CUSTODY_DEAD("clone", r.clone());
  CUSTODY_DEAD("contiguous", r.contiguous());
  CUSTODY_DEAD("reshape", r.reshape({4}));
  CUSTODY_DEAD("view", r.view({4}));
  CUSTODY_DEAD("narrow", r.narrow(0, 0, 1));
  CUSTODY_DEAD("select", r.select(0, 0));
  CUSTODY_DEAD("t", r.t());
  CUSTODY_DEAD("permute", r.permute({1, 0}));
  CUSTODY_DEAD("squeeze", r.squeeze());
  CUSTODY_DEAD("squeeze", r.squeeze(0));
  CUSTODY_DEAD("unsqueeze", r.unsqueeze(0));
  CUSTODY_DEAD("expand", r.expand({2, 2}));
  CUSTODY_DEAD("flatten", r.flatten());
  CUSTODY_DEAD("to", r.to(ScalarType::Double));
  CUSTODY_DEAD("resize", r.resize(V{2, 2}));
  // elementwise, tensor-scalar
  CUSTODY_DEAD("sub", r.sub(1));
  CUSTODY_DEAD("mul", r.mul(1));
  CUSTODY_DEAD("div", r.div(1));
  CUSTODY_DEAD("maximum", r.maximum(1));
  CUSTODY_DEAD("minimum", r.minimum(1));
  CUSTODY_DEAD("pow", r.pow(2));
  CUSTODY_DEAD("eq", r.eq(1));
  CUSTODY_DEAD("ne", r.ne(1));
  CUSTODY_DEAD("lt", r.lt(1));
  CUSTODY_DEAD("le", r.le(1));
  CUSTODY_DEAD("gt", r.gt(1));
  CUSTODY_DEAD("ge", r.ge(1));
  CUSTODY_DEAD("sub", 2.0f - r);
  CUSTODY_DEAD("div", 1.0f / r);
  // unary
  CUSTODY_DEAD("neg", r.neg());
  CUSTODY_DEAD("abs", r.abs());
  CUSTODY_DEAD("exp", r.exp());
  CUSTODY_DEAD("log", r.log());
  CUSTODY_DEAD("sqrt", r.sqrt());
  CUSTODY_DEAD("rsqrt", r.rsqrt());
  CUSTODY_DEAD("tanh", r.tanh());
  CUSTODY_DEAD("sigmoid", r.sigmoid());
  CUSTODY_DEAD("relu", r.relu());
  CUSTODY_DEAD("gelu", r.gelu());
  CUSTODY_DEAD("silu", r.silu());
  CUSTODY_DEAD("sin", r.sin());
  CUSTODY_DEAD("cos", r.cos());
  // in place, either side
  CUSTODY_DEAD("sub_", r.sub_(1));
  CUSTODY_DEAD("mul_", r.mul_(2));
  CUSTODY_DEAD("div_", r.div_(2));
  CUSTODY_DEAD("add_", ok.add_(r));
  CUSTODY_DEAD("copy_", r.copy_(ok));
  CUSTODY_DEAD("copy_", ok.copy_(r));
  CUSTODY_DEAD("fill_", r.fill_(1));
  CUSTODY_DEAD("zero_", r.zero_());
  // reductions, softmax, matmul, indexing
  CUSTODY_DEAD("sum", r.sum());
  CUSTODY_DEAD("mean", r.mean(0));
  CUSTODY_DEAD("max", r.max());
  CUSTODY_DEAD("min", r.min({0, 1}));
  CUSTODY_DEAD("argmax", r.argmax());
  CUSTODY_DEAD("argmin", r.argmin(1));
  CUSTODY_DEAD("softmax", r.softmax(0));
  CUSTODY_DEAD("log_softmax", r.log_softmax(1));
  CUSTODY_DEAD("matmul", ok.matmul(r));
  CUSTODY_DEAD("index_select", r.index_select(0, idx));
  CUSTODY_DEAD("index_select", ok.index_select(0, r));
  CUSTODY_DEAD("where", where(ok.gt(0), ok, r));
#undef CUSTODY_DEAD
  EXPECT_EQ(values_of(ok), std::vector<double>({1, 1, 1, 1})) << "the live operand is untouched";
}

// A second release: a no-op, or (manual: a free past zero) a LifetimeError naming release —
// never a crash or a double free. A handle that never held a tensor is refused the same way.
TYPED_TEST_P(LifetimeCatalogueTest, DoubleReleaseAndEmptyHandles) {
  using T = TypeParam;
  auto a = T::ones({3});
  auto keep = a.alias();
  custody::release(a);
  try {
    custody::release(a);
  } catch (const LifetimeError& e) {
    EXPECT_NE(std::string(e.what()).find("release"), std::string::npos) << e.what();
  }
  EXPECT_EQ(values_of(keep), std::vector<double>({1, 1, 1})) << "a second release must not drop another reference";
  auto v = keep.narrow(0, 1, 2);
  custody::release(keep);
  EXPECT_EQ(values_of(v), std::vector<double>({1, 1}));
  if constexpr (std::is_default_constructible_v<T>) {
    T none;
    CUSTODY_EXPECT_THROWS(LifetimeError, none.sum(), "sum:");
    CUSTODY_EXPECT_THROWS(LifetimeError, v.add(none), "add:");
  }
}

// A handle released on one thread is refused on another (each thread under the policy's idiom).
TYPED_TEST_P(LifetimeCatalogueTest, UseAfterReleaseOnAnotherThread) {
  using T = TypeParam;
  using Policy = typename T::policy_type;
  auto a = T::ones({4});
  auto live = T::ones({4});
  custody::release(a);
  std::string dead_msg;
  double live_sum = 0;
  std::thread th([&] {
    [[maybe_unused]] typename PolicyIdiom<Policy>::Guard guard;
    try {
      (void)a.exp();
    } catch (const LifetimeError& e) {
      dead_msg = e.what();
    } catch (...) {
      dead_msg = "untyped";
    }
    auto s = live.sum();
    live_sum = s.template item<float>();
    custody::release(s);
  });
  th.join();
  EXPECT_EQ(dead_msg.rfind("exp:", 0), 0u) << dead_msg;
  EXPECT_EQ(live_sum, 4);
}

REGISTER_TYPED_TEST_SUITE_P(LifetimeCatalogueTest, UseAfterReleaseNamesEveryOp,
                            DoubleReleaseAndEmptyHandles, UseAfterReleaseOnAnotherThread);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_LIFETIME_CATALOGUE_SUITE_H_
