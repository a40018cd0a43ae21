// Copyright 2026 The custody Authors.

#include "custody/tensor.h"

#include <vector>

#include "gtest/gtest.h"

namespace custody {
namespace {

TEST(SelectedTensor, IsUsableWithoutNamingPolicyOrBackend) {
#if defined(CUSTODY_SELECTED_POLICY_SCOPE)
  // The default policy needs a dispose scope around tensor code.
  auto scope = scope::new_dispose_scope();
#endif
  Tensor x = Tensor::ones({2, 2});
  EXPECT_EQ(x.add(x).sum().item<float>(), 8.0f);
#if defined(CUSTODY_SELECTED_BACKEND_ONEDNN)
  EXPECT_STREQ(SelectedBackend::name, "onednn");
#elif defined(CUSTODY_SELECTED_BACKEND_ATEN)
  EXPECT_STREQ(SelectedBackend::name, "aten");
#endif
  custody::release(x);
}

// The README's first snippet, as a user pastes it into main(): no scope, no
// release, under the default flags.
TEST(SelectedTensor, TheReadmeSnippetRunsUnderTheDefaultFlags) {
#if defined(CUSTODY_SELECTED_POLICY_TENSOR_PTR)
  const int64_t live0 = SelectedBackend::stats().snapshot().live_tensors;
  {
    custody::Tensor x = custody::Tensor::randn({64, 128});
    custody::Tensor w = custody::Tensor::randn({128, 10});
    custody::Tensor y = x.matmul(w).relu().softmax(1);
    std::vector<float> sums = y.sum(1).to_vector<float>();
    ASSERT_EQ(sums.size(), 64u);
    for (float s : sums) EXPECT_NEAR(s, 1.0f, 1e-5f);
  }
  EXPECT_EQ(SelectedBackend::stats().snapshot().live_tensors, live0) << "RAII gave everything back";
#else
  GTEST_SKIP() << "built with a non-default --//policies:policy";
#endif
}

TEST(SelectedTensor, DefaultPolicyIsTensorPtr) {
#if defined(CUSTODY_SELECTED_POLICY_TENSOR_PTR)
  EXPECT_STREQ(SelectedPolicy::name, "tensor_ptr");
#else
  GTEST_SKIP() << "built with a non-default --//policies:policy";
#endif
}

}  // namespace
}  // namespace custody
