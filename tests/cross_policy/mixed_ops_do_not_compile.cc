// Copyright 2026 The custody Authors.
//
// Compiled by mixed_ops_test.sh, not built: an op on two policies' tensors
// must not compile, and the error must say how to convert (core/convert.h).
// With -DCUSTODY_SAME_POLICY both operands share a policy and it compiles (the
// control: the failure is the mixing, nothing else).

#include "backends/onednn/onednn.h"
#include "policies/gc/gc.h"
#include "policies/tensor_ptr/tensor_ptr.h"

int main() {
  custody::BasicTensor<custody::tensor_ptr::Policy, custody::Onednn> a;
#if defined(CUSTODY_SAME_POLICY)
  custody::BasicTensor<custody::tensor_ptr::Policy, custody::Onednn> b;
#else
  custody::BasicTensor<custody::gc::Policy, custody::Onednn> b;
#endif
  auto c = a.add(b);
  auto d = a.matmul(b);
  (void)c;
  (void)d;
  return 0;
}
