// Copyright 2026 The custody Authors.

#include "core/selected.h"

#include "gtest/gtest.h"

namespace custody {
namespace {

TEST(SelectedTensor, IsUsableWithoutNamingPolicyOrBackend) {
  Tensor x = Tensor::ones({2, 2});
  EXPECT_EQ(x.add(x).sum().item<float>(), 8.0f);
  EXPECT_STREQ(SelectedBackend::name, "onednn");
}

}  // namespace
}  // namespace custody
