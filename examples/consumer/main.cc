// A program in a workspace of its own, on custody::Tensor (README's first snippet, plus the
// policy and backend it was built with).
#include <iostream>

#include "core/policy_traits.h"
#include "custody/tensor.h"

int main() {
  // Under the scope policy tensors need a dispose scope; this guard lets the handles own them.
  [[maybe_unused]] custody::PolicyTraits<custody::SelectedPolicy>::Unscoped no_scope_needed;
  custody::Tensor x = custody::Tensor::ones({4, 8});
  custody::Tensor w = custody::Tensor::ones({8, 3});
  custody::Tensor y = x.matmul(w);
  custody::Tensor p = y.softmax(1);
  custody::Tensor s = p.sum(1);
  std::cout << "policy " << custody::SelectedPolicy::name << ", backend " << custody::SelectedBackend::name
            << ": " << s << "\n";
  for (custody::Tensor* t : {&x, &w, &y, &p, &s}) custody::release(*t);
  return 0;
}
