// Copyright 2026 The custody Authors.
//
// examples/quickstart — the first program a newcomer runs:
//
//   ./bazelw run //examples/quickstart
//
// It uses the tensor_ptr policy (ExecuTorch's TensorPtr) on the oneDNN CPU
// backend and prints what each snippet of ExecuTorch's "Managing Tensor Memory"
// guide computes. quickstart_test checks this output.

#include <iostream>

#include "custody/tensor_ptr.h"  // policies/tensor_ptr/make.h, the flag-chosen backend

namespace et = custody::tensor_ptr;
using custody::ScalarType;
using custody::TensorShapeDynamism;

int main() {
  // A scalar: 41 + 1.
  auto answer = et::make_tensor_ptr(41).add(1);
  std::cout << "41 + 1 = " << answer.item<int64_t>() << "\n";

  // Square a vector: [1, 42, 1337] * [1, 42, 1337].
  auto v = et::make_tensor_ptr({1.f, 42.f, 1337.f});
  std::cout << "[1, 42, 1337] squared = " << v.mul(v) << "\n";

  // Add 1.5 to a 2x3 matrix; the inputs are never consumed.
  auto m = et::make_tensor_ptr({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  auto shifted = m + 1.5;
  std::cout << "m + 1.5 = " << shifted << "\n";

  // Sharing: copies of a TensorPtr share one tensor.
  auto copy = m;
  std::cout << "use_count after copy = " << m.use_count() << "\n";
  copy.reset();
  std::cout << "use_count after reset = " << m.use_count() << "\n";

  // Casting data on the way in (int -> double is allowed; double -> int is not).
  auto d = et::make_tensor_ptr({1, 2, 3, 4, 5, 6}, ScalarType::Double);
  std::cout << "ints as double = " << d << "\n";

  // from_blob with a deleter: the deleter runs when the last reference goes.
  bool deleted = false;
  {
    auto* data = new int[3]{1, 2, 3};
    auto blob = et::from_blob(data, {3}, ScalarType::Int, [&deleted](void* p) {
      delete[] static_cast<int*>(p);
      deleted = true;
    });
    auto view = blob.narrow(0, 1, 2);  // a view keeps the blob alive
    blob.reset();
    std::cout << "view of blob = " << view << ", deleter ran: " << std::boolalpha << deleted << "\n";
  }
  std::cout << "after the last view, deleter ran: " << deleted << "\n";

  // Resizing under DYNAMIC_BOUND: at most the element count at creation.
  auto r = et::make_tensor_ptr({2, 3}, {1, 2, 3, 4, 5, 6}, {}, {}, ScalarType::Int,
                               TensorShapeDynamism::DYNAMIC_BOUND);
  for (std::vector<int64_t> sizes : {std::vector<int64_t>{2, 2}, {1, 3}, {3, 2}, {6, 1}, {4, 2}}) {
    absl::Status s = et::resize_tensor_ptr(r, sizes);
    std::cout << "resize to " << custody::shape_str(sizes) << ": "
              << (s.ok() ? "ok, now " + custody::shape_str(r.sizes()) : std::string(s.message()))
              << "\n";
  }
  return 0;
}
