// Copyright 2026 The custody Authors.
//
// examples/executorch_port — an ExecuTorch program, ported to custody by
// changing its include and nothing else (issue 13's acceptance). It prepares
// model inputs the way ExecuTorch's extension/tensor guide does: it wraps a
// caller's buffer, views it with another layout and shape, clones and casts,
// builds tensors from vectors, initializer lists and raw bytes, and resizes a
// bounded tensor, printing each tensor's dtype, sizes, strides and values.
//
//   ./bazelw run //examples/executorch_port
//
// main_test compares the output with expected_output.txt, written by hand from
// ExecuTorch's documented semantics (each step's comment says which rule gives
// its line). It was not produced by running ExecuTorch itself, which this
// workspace cannot build; a difference from ExecuTorch's real output would be
// a misreading of its documentation, found only by running both.

// #include <executorch/extension/tensor/tensor.h>
#include "custody/tensor_ptr.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace ::executorch::extension;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorShapeDynamism;
using ::executorch::runtime::Error;

namespace {

const char* scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "Byte";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Bool: return "Bool";
    default: return "other";
  }
}

// The element at logical index `i` (row-major over the sizes), read through the strides.
double element(const Tensor& t, int64_t i) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (i % t.size(d)) * t.strides()[d];
    i /= t.size(d);
  }
  switch (t.scalar_type()) {
    case ScalarType::Float: return t.const_data_ptr<float>()[offset];
    case ScalarType::Double: return t.const_data_ptr<double>()[offset];
    case ScalarType::Int: return t.const_data_ptr<int32_t>()[offset];
    case ScalarType::Long: return static_cast<double>(t.const_data_ptr<int64_t>()[offset]);
    case ScalarType::Byte: return t.const_data_ptr<uint8_t>()[offset];
    default: return 0;
  }
}

void print(const char* name, const TensorPtr& tensor) {
  const Tensor& t = *tensor;
  std::printf("%-8s %-6s sizes [", name, scalar_type_name(t.scalar_type()));
  for (size_t d = 0; d < t.sizes().size(); ++d) std::printf("%s%lld", d ? ", " : "", static_cast<long long>(t.sizes()[d]));
  std::printf("] strides [");
  for (size_t d = 0; d < t.strides().size(); ++d) std::printf("%s%lld", d ? ", " : "", static_cast<long long>(t.strides()[d]));
  std::printf("] values");
  for (int64_t i = 0; i < t.numel(); ++i) std::printf(" %g", element(t, i));
  std::printf("\n");
}

const char* error_name(Error e) {
  switch (e) {
    case Error::Ok: return "Ok";
    case Error::NotSupported: return "NotSupported";
    case Error::InvalidArgument: return "InvalidArgument";
    default: return "other";
  }
}

}  // namespace

int main() {
  // A caller's buffer (say, an image in CHW order), wrapped without copying.
  float pixels[2 * 3 * 4];
  for (int i = 0; i < 24; ++i) pixels[i] = static_cast<float>(i);
  auto image = from_blob(pixels, {2, 3, 4});
  print("image", image);

  // The same memory read with dim order {1, 2, 0} (channels innermost): strides {1, 8, 2}.
  auto hwc = make_tensor_ptr(image, {}, {1, 2, 0});
  print("hwc", hwc);

  // A rank-changing view is row-major; writes to the buffer show through it.
  auto rows = make_tensor_ptr(image, {6, 4});
  pixels[0] = 100;
  print("rows", rows);

  // A clone owns a copy: later writes to the buffer do not reach it. A casting clone converts.
  auto rows_f64 = clone_tensor_ptr(*rows, ScalarType::Double);
  pixels[0] = 0;
  print("rows_f64", rows_f64);
  print("rows", rows);

  // A smaller same-rank view keeps the source's dim order.
  auto first = make_tensor_ptr(rows, {2, 4});
  print("first", first);

  // Owned data from vectors and initializer lists, with and without a cast.
  auto ids = make_tensor_ptr({2, 2}, std::vector<int32_t>{1, 2, 3, 4});
  print("ids", ids);
  print("ids_f32", clone_tensor_ptr(ids, ScalarType::Float));
  print("widened", make_tensor_ptr<int64_t>({7, 8, 9}, ScalarType::Double));
  print("scalar", make_tensor_ptr(2.5));

  // Raw bytes are float32 unless a type is given.
  const float four[] = {1.5f, 2.5f, 3.5f, 4.5f};
  std::vector<uint8_t> bytes(sizeof(four));
  std::memcpy(bytes.data(), four, sizeof(four));
  print("bytes", make_tensor_ptr({2, 2}, std::move(bytes)));

  // A bounded buffer (a cache that grows up to 8 entries) resized in place.
  auto cache = full({1, 8}, 0.5f);
  std::printf("resize {1, 3}: %s\n", error_name(resize_tensor_ptr(cache, {1, 3})));
  print("cache", cache);
  std::printf("resize {1, 9}: %s\n", error_name(resize_tensor_ptr(cache, {1, 9})));
  std::printf("resize {8}: %s\n", error_name(resize_tensor_ptr(cache, {8})));
  std::printf("resize {2, 4}: %s\n", error_name(resize_tensor_ptr(cache, {2, 4})));
  print("cache", cache);
  return 0;
}
