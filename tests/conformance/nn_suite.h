// Copyright 2026 The custody Authors.
//
// core/nn under every policy and backend: outputs and gradients match libtorch
// (torch's autograd for the MLP backward), modules leave nothing alive but
// their output, and parameters live outside any dispose scope until their
// VarStore gives them back.

#ifndef CUSTODY_TESTS_CONFORMANCE_NN_SUITE_H_
#define CUSTODY_TESTS_CONFORMANCE_NN_SUITE_H_

#include <string>
#include <vector>

#include "core/nn/functional.h"
#include "core/nn/modules.h"
#include "core/nn/var_store.h"
#include "core/random.h"
#include "testing/harness.h"
#include "tests/conformance/oracle.h"

namespace custody::testing {

template <class T>
class NnTest : public ConformanceTest<T> {
 protected:
  static int64_t live() { return ConformanceTest<T>::stats().live_tensors; }
};
TYPED_TEST_SUITE_P(NnTest);

TYPED_TEST_P(NnTest, LinearMatchesLibtorchAndLeavesOnlyItsOutput) {
  using T = TypeParam;
  manual_seed(7);
  nn::VarStore<T> vs;
  nn::Linear<T> fc(vs, "fc", 5, 3);
  EXPECT_EQ(vs.size(), 2u);
  EXPECT_EQ(vs.num_elements(), 5 * 3 + 3);
  EXPECT_EQ(sizes_vec(fc.weight().sizes()), std::vector<int64_t>({3, 5}));
  nn::Temporary<T> x = T::randn({4, 5});
  const int64_t before = TestFixture::live();
  nn::Temporary<T> y = fc.forward(*x);
  EXPECT_EQ(TestFixture::live(), before + 1) << "forward gave back its temporaries";
  EXPECT_TRUE(Close(host_of(*y), oracle_nn("linear", {host_of(*x), host_of(fc.weight()), host_of(fc.bias())})[0],
                    1e-5, 1e-5));

  nn::Linear<T> no_bias(vs, "nb", 5, 2, /*bias=*/false);
  EXPECT_FALSE(no_bias.has_bias());
  nn::Temporary<T> z = no_bias.forward(*x);
  EXPECT_TRUE(Close(host_of(*z), oracle_nn("linear", {host_of(*x), host_of(no_bias.weight())})[0], 1e-5, 1e-5));
}

TYPED_TEST_P(NnTest, RmsNormMatchesLibtorch) {
  using T = TypeParam;
  manual_seed(8);
  nn::VarStore<T> vs;
  T w = vs.randn("norm.weight", std::vector<int64_t>{6}, 1.0);
  nn::RMSNorm<T> norm(w, 1e-5);
  nn::Temporary<T> x = T::randn({2, 3, 6});
  const int64_t before = TestFixture::live();
  nn::Temporary<T> y = norm.forward(*x);
  EXPECT_EQ(TestFixture::live(), before + 1);
  OracleArgs args;
  args.scalar = 1e-5;
  EXPECT_TRUE(Close(host_of(*y), oracle_nn("rms_norm", {host_of(*x), host_of(w)}, args)[0], 1e-5, 1e-5));
}

TYPED_TEST_P(NnTest, SequentialEmbeddingAndActivationsMatchLibtorch) {
  using T = TypeParam;
  manual_seed(9);
  nn::VarStore<T> vs;
  nn::Embedding<T> emb(vs, "emb", 10, 4);
  nn::Sequential<T> seq;
  auto& fc1 = seq.template add<nn::Linear<T>>(vs, "fc1", 4, 8);
  seq.template add<nn::SiLU<T>>();
  auto& fc2 = seq.template add<nn::Linear<T>>(vs, "fc2", 8, 3);
  seq.template add<nn::ReLU<T>>();
  EXPECT_EQ(seq.size(), 4u);
  EXPECT_EQ(vs.size(), 5u);
  nn::Temporary<T> idx = T::from_vector(std::vector<int64_t>{3, 0, 9, 3});
  const int64_t before = TestFixture::live();
  nn::Temporary<T> e = emb.forward(*idx);
  nn::Temporary<T> out = seq.forward(*e);
  EXPECT_EQ(TestFixture::live(), before + 2) << "only the embedding rows and the output";

  const HostTensor he = oracle("embedding", {host_of(emb.weight()), host_of(*idx)});
  EXPECT_TRUE(Close(host_of(*e), he, 0, 0));
  HostTensor h = oracle_nn("linear", {he, host_of(fc1.weight()), host_of(fc1.bias())})[0];
  h = oracle("silu", {h});
  h = oracle_nn("linear", {h, host_of(fc2.weight()), host_of(fc2.bias())})[0];
  h = oracle("relu", {h});
  EXPECT_TRUE(Close(host_of(*out), h, 1e-5, 1e-5));
}

TYPED_TEST_P(NnTest, MlpBackwardMatchesAutograd) {
  using T = TypeParam;
  manual_seed(10);
  nn::VarStore<T> vs;
  nn::Linear<T> fc1(vs, "fc1", 6, 5), fc2(vs, "fc2", 5, 3);
  nn::Temporary<T> x = T::randn({4, 6});
  nn::Temporary<T> y = T::from_vector(std::vector<float>{1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0}, {4, 3});
  const std::vector<HostTensor> ref =
      oracle_nn("mlp_grads", {host_of(*x), host_of(*y), host_of(fc1.weight()), host_of(fc1.bias()),
                              host_of(fc2.weight()), host_of(fc2.bias())});
  const int64_t before = TestFixture::live();
  {
    nn::Temporary<T> h = fc1.forward(*x);
    nn::Temporary<T> a = h->relu();
    nn::Temporary<T> mask = nn::relu_mask(*h);
    nn::Temporary<T> logits = fc2.forward(*a);
    nn::LossAndGrad<T> l = nn::cross_entropy(*logits, *y);
    nn::Temporary<T> dlogits = std::move(l.grad);
    EXPECT_NEAR(l.loss, ref[0].values[0], 1e-5);
    nn::LinearGrads<T> g2 = nn::linear_backward(fc2, *a, *dlogits);
    ASSERT_TRUE(g2.has_bias && g2.has_input);
    nn::Temporary<T> da = std::move(g2.input);
    nn::Temporary<T> dh = nn::relu_backward(*mask, *da);
    EXPECT_THROW(nn::relu_backward(*h, *da), DTypeError) << "a float tensor is not a mask";
    nn::LinearGrads<T> g1 = nn::linear_backward(fc1, *x, *dh, /*input_grad=*/false);
    EXPECT_FALSE(g1.has_input);
    EXPECT_TRUE(Close(host_of(g1.weight), ref[1], 1e-4, 1e-5));
    EXPECT_TRUE(Close(host_of(g1.bias), ref[2], 1e-4, 1e-5));
    EXPECT_TRUE(Close(host_of(g2.weight), ref[3], 1e-4, 1e-5));
    EXPECT_TRUE(Close(host_of(g2.bias), ref[4], 1e-4, 1e-5));

    // SGD updates the stored parameters in place and consumes the gradients.
    const std::vector<float> w1 = fc1.weight().template to_vector<float>();
    const std::vector<float> dw1 = g1.weight.template to_vector<float>();
    nn::sgd_(fc1, g1, 0.5);
    nn::sgd_(fc2, g2, 0.5);
    const std::vector<float> w1_after = vs.get("fc1.weight").template to_vector<float>();
    for (size_t i = 0; i < w1.size(); ++i) EXPECT_NEAR(w1_after[i], w1[i] - 0.5f * dw1[i], 1e-6);
  }
  EXPECT_EQ(TestFixture::live(), before) << "every temporary and gradient was given back";
}

TYPED_TEST_P(NnTest, CrossEntropyAndAccuracy) {
  using T = TypeParam;
  nn::Temporary<T> logits = T::from_vector(std::vector<float>{2, 0, 0, 0, 3, 0}, {2, 3});
  nn::Temporary<T> y = T::from_vector(std::vector<float>{1, 0, 0, 0, 0, 1}, {2, 3});
  EXPECT_DOUBLE_EQ(nn::accuracy(*logits, *y), 0.5);
  nn::LossAndGrad<T> l = nn::cross_entropy(*logits, *y);
  nn::Temporary<T> g = std::move(l.grad);
  EXPECT_EQ(sizes_vec(g->sizes()), std::vector<int64_t>({2, 3}));
  // The loss and its gradient are libtorch's (autograd through the same expression).
  const std::vector<HostTensor> want = oracle_nn("cross_entropy", {host_of(*logits), host_of(*y)});
  ASSERT_EQ(want.size(), 2u);
  EXPECT_NEAR(l.loss, want[0].values[0], 1e-6 * (1 + std::abs(want[0].values[0])));
  EXPECT_TRUE(Close(host_of(*g), want[1], 1e-5, 1e-7));
  nn::Temporary<T> wrong = T::zeros({2, 4});
  EXPECT_THROW(nn::cross_entropy(*logits, *wrong), ShapeError);
}

TYPED_TEST_P(NnTest, VarStoreOwnsParametersOutsideAnyScope) {
  using T = TypeParam;
  const int64_t before = TestFixture::live();
  {
    nn::VarStore<T> vs;
    T w = vs.zeros("w", std::vector<int64_t>{3});
    if constexpr (requires(const T& t) { t.is_in_dispose_scope(); }) {
      EXPECT_FALSE(w.is_in_dispose_scope()) << "a parameter outlives any step scope";
    }
    EXPECT_EQ(vs.get("w").numel(), 3);
    EXPECT_TRUE(vs.contains("w"));
    try {
      vs.get("nope");
      ADD_FAILURE() << "no error";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("'nope' (have: w)"), std::string::npos) << e.what();
    }
    EXPECT_THROW(vs.add("w", T::ones({1})), InvalidArgument);
    EXPECT_EQ(TestFixture::live(), before + 1) << "the rejected duplicate was given back";
  }
  TestFixture::settle_policy();  // `w`, a dropped handle: what a collecting policy holds back
  EXPECT_EQ(TestFixture::live(), before) << "~VarStore gave every parameter back";
}

REGISTER_TYPED_TEST_SUITE_P(NnTest, LinearMatchesLibtorchAndLeavesOnlyItsOutput, RmsNormMatchesLibtorch,
                            SequentialEmbeddingAndActivationsMatchLibtorch, MlpBackwardMatchesAutograd,
                            CrossEntropyAndAccuracy, VarStoreOwnsParametersOutsideAnyScope);

}  // namespace custody::testing

#endif  // CUSTODY_TESTS_CONFORMANCE_NN_SUITE_H_
