// Copyright 2026 The custody Authors.

#include "core/selected.h"

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

TEST(SelectedTensor, DefaultPolicyIsScope) {
#if defined(CUSTODY_SELECTED_POLICY_SCOPE)
  EXPECT_STREQ(SelectedPolicy::name, "scope");
#else
  GTEST_SKIP() << "built with a non-default --//policies:policy";
#endif
}

}  // namespace
}  // namespace custody
