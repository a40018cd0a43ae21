// Copyright 2026 The custody Authors.

#include "policies/tensor_ptr/tensor_ptr.h"

#include "absl/strings/str_format.h"
#include "core/error.h"

namespace custody::tensor_ptr::internal {

void throw_null(const char* op) {
  throw LifetimeError(absl::StrFormat(
      "%s: this TensorPtr is null (default-constructed, reset, released or moved from); "
      "keep a TensorPtr that still owns the tensor",
      op));
}

}  // namespace custody::tensor_ptr::internal
