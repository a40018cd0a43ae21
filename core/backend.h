// Copyright 2026 The custody Authors.
//
// core/backend.h — what a backend is: the `Backend` concept, the kernel
// argument type `KernelView`, and the op codes kernels take.
//
// A backend is a type with static functions only. It owns device memory
// management and kernels; it never owns tensors (policies and core do).
// Kernels receive strided views whose shapes core has already checked and
// broadcast (stride 0 on broadcast dims), and whose dtypes core has already
// promoted, so a kernel only computes.
//
// Nothing here assumes a backend's memory is host-addressable: core reads and
// writes tensor contents only through `copy_to_host` / `copy_from_host`.

#ifndef CUSTODY_CORE_BACKEND_H_
#define CUSTODY_CORE_BACKEND_H_

#include <concepts>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "core/philox.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/stats.h"
#include "core/storage.h"

namespace custody {

// A strided view passed to kernels. `data` is the address of element 0.
// `sizes` and `strides` (in elements) are borrowed, from the TensorImpl or the
// caller's arrays, for the duration of one backend call: building a view costs
// no allocation and no copy. A kernel that reshapes an operand (a broadcast
// batch, one row of an index, a scalar spread over a shape) works on an
// OwnedKernelView, which converts back to a KernelView borrowing from it.
struct KernelView {
  void* data = nullptr;
  ScalarType dtype = ScalarType::Float;
  IntSpan sizes;
  IntSpan strides;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  bool is_contiguous() const { return custody::is_contiguous(sizes, strides); }
};

// A KernelView that owns its sizes and strides (see KernelView). It must
// outlive every KernelView taken from it.
struct OwnedKernelView {
  void* data = nullptr;
  ScalarType dtype = ScalarType::Float;
  Dims sizes;
  Dims strides;

  OwnedKernelView() = default;
  OwnedKernelView(void* data, ScalarType dtype, Dims sizes, Dims strides)
      : data(data), dtype(dtype), sizes(std::move(sizes)), strides(std::move(strides)) {}
  explicit OwnedKernelView(const KernelView& v)
      : data(v.data), dtype(v.dtype), sizes(v.sizes.begin(), v.sizes.end()),
        strides(v.strides.begin(), v.strides.end()) {}
  operator KernelView() const { return KernelView{data, dtype, sizes, strides}; }  // NOLINT
  int64_t numel() const { return KernelView(*this).numel(); }
  bool is_contiguous() const { return KernelView(*this).is_contiguous(); }
};

enum class BinaryOp : uint8_t {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kPow,
  kEq, kNe, kLt, kLe, kGt, kGe,  // comparisons: inputs share a dtype, output is bool
};
enum class UnaryOp : uint8_t {
  kNeg, kAbs, kExp, kLog, kSqrt, kRsqrt, kTanh, kSigmoid, kRelu, kGelu, kSilu, kSin, kCos,
};
enum class ReduceOp : uint8_t { kSum, kMean, kMax, kMin, kArgMax, kArgMin };
enum class RandomDist : uint8_t { kUniform, kNormal, kRandInt };

const char* op_name(BinaryOp op);
const char* op_name(UnaryOp op);
const char* op_name(ReduceOp op);
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::kEq; }

struct RandomParams {
  uint64_t seed = 0;
  uint64_t offset = 0;  // stream index: each rand call takes a fresh one
  double low = 0;       // uniform/randint: low (inclusive); normal: mean
  double high = 1;      // uniform/randint: high (exclusive); normal: std
};

// Element `i` of the random stream `p` as a T: what every host backend writes
// (Philox 4x32-10 via core/philox.h, so one seed gives the same values everywhere).
// For host backends' index_select: every index of the 1-D int64 `index` lies
// in [0, in.sizes[dim]); else an InvalidArgument status naming the index and
// the input shape (the same message on every backend).
absl::Status check_host_indices(const KernelView& in, int64_t dim, const KernelView& index);

template <class T>
inline T random_sample(RandomDist dist, const RandomParams& p, uint64_t i) {
  switch (dist) {
    case RandomDist::kUniform:
      return static_cast<T>(p.low + (p.high - p.low) *
                                        philox::uniform01(philox::bits(p.seed, p.offset, i)));
    case RandomDist::kNormal:
      return static_cast<T>(p.low + p.high * philox::normal(p.seed, p.offset, i));
    case RandomDist::kRandInt:
      return static_cast<T>(philox::randint(p.seed, p.offset, i, static_cast<int64_t>(p.low),
                                            static_cast<int64_t>(p.high)));
  }
  return T();
}

// The backend contract (docs/design.md §6), checked at compile time.
//
//   name                      "onednn", "cuda", "aten"
//   device()                  the Device its memory lives on
//   available()               false when e.g. no GPU is present (tests skip)
//   allocate(bytes)           StatusOr<void*>; ResourceExhausted on failure
//   deallocate(p, bytes)      gives memory back
//   copy_to_host / copy_from_host(dst, src, bytes)
//   synchronize()             waits for outstanding work
//   stats()                   the backend's exact MemoryStats
//   kernels                   copy (strided, dtype-converting), fill, binary,
//                             binary_scalar, unary, where, reduce, softmax,
//                             matmul (batched 3-D), index_select, random
template <class B>
concept Backend = requires(void* p, const void* cp, size_t n, const KernelView& v, Scalar s,
                           int64_t d, bool flag, const RandomParams& rp) {
  { B::name } -> std::convertible_to<const char*>;
  { B::device() } -> std::same_as<Device>;
  { B::available() } -> std::same_as<bool>;
  { B::allocate(n) } -> std::same_as<absl::StatusOr<void*>>;
  { B::deallocate(p, n) };
  { B::copy_to_host(p, cp, n) } -> std::same_as<absl::Status>;
  { B::copy_from_host(p, cp, n) } -> std::same_as<absl::Status>;
  { B::synchronize() } -> std::same_as<absl::Status>;
  { B::stats() } -> std::same_as<MemoryStats&>;
  { B::copy(v, v) } -> std::same_as<absl::Status>;
  { B::fill(v, s) } -> std::same_as<absl::Status>;
  { B::binary(BinaryOp::kAdd, v, v, v) } -> std::same_as<absl::Status>;
  { B::binary_scalar(BinaryOp::kAdd, v, v, s, flag) } -> std::same_as<absl::Status>;
  { B::unary(UnaryOp::kNeg, v, v) } -> std::same_as<absl::Status>;
  { B::where(v, v, v, v) } -> std::same_as<absl::Status>;
  { B::reduce(ReduceOp::kSum, v, v) } -> std::same_as<absl::Status>;
  { B::softmax(v, v, d, flag) } -> std::same_as<absl::Status>;
  { B::matmul(v, v, v) } -> std::same_as<absl::Status>;
  { B::index_select(v, v, d, v) } -> std::same_as<absl::Status>;
  { B::random(v, RandomDist::kUniform, rp) } -> std::same_as<absl::Status>;
};

// Kernel argument conventions:
//  * binary(op, out, a, b): a and b have out's sizes (broadcast strides may be 0)
//    and one dtype; out has that dtype, or bool for comparisons.
//  * binary_scalar(op, out, a, s, scalar_first): `a op s`, or `s op a` when
//    scalar_first; s is converted to a's dtype.
//  * unary(op, out, in): same dtype and sizes.
//  * reduce(op, out, in): out has in's rank with size 1 on the reduced dims;
//    out's dtype is in's, or int64 for argmax/argmin.
//  * softmax(out, in, dim, log): same dtype (floating) and sizes.
//  * matmul(out, a, b): [B, n, k] x [B, k, m] -> [B, n, m], one dtype; a/b batch
//    stride may be 0.
//  * index_select(out, in, dim, index): index is a 1-D int64 view, values checked.
//  * where(out, cond, a, b): cond bool; a, b, out one dtype; all of out's sizes.

}  // namespace custody

#endif  // CUSTODY_CORE_BACKEND_H_
