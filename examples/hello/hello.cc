// Copyright 2026 The custody Authors.
//
// examples/hello — a first program against `custody::Tensor`, the handle type
// chosen by the build flags (custody/tensor.h):
//
//   ./bazelw run //examples/hello                                    # tensor_ptr on onednn
//   ./bazelw run --//policies:policy=gc --//backends:backend=aten //examples/hello
//
// The code is the same under every policy: it gives each tensor back with
// custody::release (G3), which every policy honours. The one policy-specific
// line is the `Unscoped` guard: the scope policy refuses to create a tensor
// with no dispose scope open, and the guard (a no-op under the other
// policies) lets this program own its tensors through their handles instead.

#include <iostream>

#include "core/policy_traits.h"
#include "custody/tensor.h"

int main() {
  using custody::Tensor;
  [[maybe_unused]] custody::PolicyTraits<custody::SelectedPolicy>::Unscoped no_scope_needed;
  const int64_t live_before = custody::SelectedBackend::stats().snapshot().live_tensors;
  std::cout << "custody hello: policy " << custody::SelectedPolicy::name << ", backend "
            << custody::SelectedBackend::name << "\n";

  Tensor r = Tensor::arange(6, custody::ScalarType::Float);  // no chained calls: under dispose,
  Tensor x = r.reshape({2, 3});                               // manual and gc an unnamed result
                                                              // could not be released
  Tensor xt = x.t();                    // a view: no copy
  Tensor gram = x.matmul(xt);           // [2, 3] @ [3, 2]
  Tensor p = x.softmax(1);
  Tensor total = p.sum();
  std::cout << "x = " << x << "\n"
            << "x @ x.t() = " << gram << "\n"
            << "softmax(x, 1) = " << p << "\n"
            << "rows of softmax sum to " << total.item<float>() << "\n";

  for (Tensor* t : {&r, &x, &xt, &gram, &p, &total}) custody::release(*t);
  std::cout << "live tensors after release: "
            << custody::SelectedBackend::stats().snapshot().live_tensors - live_before << "\n";
  return 0;
}
