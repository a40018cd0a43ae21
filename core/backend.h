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

// For a matmul kernel that takes one batch dim ([B, n, k] x [B, k, m], e.g.
// a strided-batched gemm): calls `fn(out, a, b)` with rank-3 views, once for
// each index of the batch dims before the last (once for rank 3). Returns the
// first error `fn` returns. Only pointer arithmetic: `data` may be device memory.
template <class F>
absl::Status for_each_matmul_batch(const KernelView& out, const KernelView& a, const KernelView& b,
                                   F&& fn) {
  const size_t outer = out.sizes.size() - 3;
  if (outer == 0) return fn(out, a, b);
  const int64_t esize = static_cast<int64_t>(element_size(out.dtype));
  int64_t count = 1;
  for (size_t i = 0; i < outer; ++i) count *= out.sizes[i];
  Dims index(outer, 0);
  for (int64_t c = 0; c < count; ++c) {
    int64_t oo = 0, oa = 0, ob = 0;
    for (size_t i = 0; i < outer; ++i) {
      oo += index[i] * out.strides[i];
      oa += index[i] * a.strides[i];
      ob += index[i] * b.strides[i];
    }
    const auto at = [&](const KernelView& v, int64_t offset) {
      return KernelView{static_cast<char*>(v.data) + offset * esize, v.dtype, v.sizes.subspan(outer),
                        v.strides.subspan(outer)};
    };
    if (absl::Status s = fn(at(out, oo), at(a, oa), at(b, ob)); !s.ok()) return s;
    for (size_t i = outer; i-- > 0;) {
      if (++index[i] < out.sizes[i]) break;
      index[i] = 0;
    }
  }
  return absl::OkStatus();
}

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
constexpr bool is_comparison(BinaryOp op) { return op >= BinaryOp::kEq; }

struct RandomParams {
  uint64_t seed = 0;
  uint64_t offset = 0;  // stream index: each rand call takes a fresh one
  double low = 0;       // uniform: low (inclusive); normal: mean
  double high = 1;      // uniform: high (exclusive); normal: std
  // randint: [int_low, int_high), exact over all of int64 (never through a double).
  int64_t int_low = 0;
  int64_t int_high = 1;
};

// Element `i` of the random stream `p` (RandomParams) as a value of the
// output dtype is philox's function of (seed, offset, i): see
// backends/host/host.h (random_sample) and Note [Device contract].

// The backend contract (docs/design.md §6), checked at compile time.
//
//   name                      "onednn", "aten", "opaque" (tests), "cuda"
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
//
// allocate .. stats and the kernels are the lists of Note [The kernel
// interface, declared once] below.
//
// Note [Device contract]
// ~~~~~~~~~~~~~~~~~~~~~~
// What core and the policies may assume of any backend, host or device:
//  * Memory. Core never dereferences a backend address: tensor contents reach
//    the host only through copy_to_host / copy_from_host (item(), to_vector(),
//    printing, from_vector(), to<B>() between backends). backends/opaque holds
//    this to account in every CI run (its addresses fault when read).
//  * Ordering and synchronization. A backend runs its kernels and copies in
//    the order they are issued (one queue, e.g. one CUDA stream per backend).
//    Host <-> device copies synchronize with the host: when copy_to_host
//    returns, `dst` holds the data of every kernel issued before it; when
//    copy_from_host returns, `src` may be reused. Kernels may return before
//    they run (device memory they write is then ordered by the queue), so a
//    kernel's Status reports what it can check on issue. synchronize() waits
//    for everything issued; core never needs it for correctness. Users call it
//    to time work, and before handing a tensor's memory to code outside the
//    backend's queue (another library, another stream); benchmarks call it.
//  * Memory stats. allocate/deallocate record every block in stats():
//    on_alloc/on_free with the bytes in use (exact, so bytes_in_use and the
//    peak are exact); reserved_bytes counts what the backend holds from the
//    system or driver, cached blocks included (>= in use). Core counts the
//    rest: on_retry when a reclaimer freed enough for a second try, on_oom on
//    the final failure (core/ops_impl_factories.h: allocate_with_retry), and
//    tensors.
//  * Bad indices. index_select (and ops built on it, e.g. embedding) may find
//    an out-of-range index only where the index lives: a host backend checks
//    before it reads (host::check_indices), a device backend on the device,
//    reporting through its next synchronizing call. Either way the caller gets
//    InvalidArgument with index_out_of_range()'s message, the same text on
//    every backend.
//  * Device index. Every tensor of a backend lives on B::device() (type and
//    index); Storage records it, Tensor::device() reports it.
//  * Random numbers. Element i of random(out, dist, p) is
//    host::random_sample<T>(dist, p, i) (Philox 4x32-10, core/philox.h, counter-based:
//    no state but (seed, offset, i)), whatever the backend and the thread
//    count, so one seed gives the same values on every backend. A device
//    backend evaluates the same function on the device.

// The message of an out-of-range index, the same on every backend (see
// Note [Device contract]): `op` is the op the user called.
absl::Status index_out_of_range(const char* op, int64_t index, int64_t dim, int64_t size,
                                IntSpan input_sizes);

// Note [The kernel interface, declared once]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every function a backend implements the same way is one entry of the lists
// below, as c10's AT_FORALL_SCALAR_TYPES lists dtypes: the Backend concept,
// each backend's declarations (CUSTODY_DECLARE_BACKEND_FUNCTIONS in the
// struct) and generated forwarding (backends/opaque) expand them, so adding an
// op is its entry here plus each backend's definition. An entry is
//
//   X(return type, name, (parameters), (arguments), op label)
//
// where the arguments name the parameters in order (for code that forwards a
// call) and the label is the op as the user called it, for error messages
// (a BinaryOp's own name, "log_softmax" for softmax with log set).
// What differs between backends stays written in each: name, device(),
// available() and synchronize() (often inline), and each backend's extras.
#define CUSTODY_FORALL_MEMORY_FUNCTIONS(X)                                                      \
  X(absl::StatusOr<void*>, allocate, (size_t bytes), (bytes), "allocate")                       \
  X(void, deallocate, (void* p, size_t bytes), (p, bytes), "deallocate")                        \
  X(absl::Status, copy_to_host, (void* dst, const void* src, size_t bytes), (dst, src, bytes),  \
    "copy_to_host")                                                                             \
  X(absl::Status, copy_from_host, (void* dst, const void* src, size_t bytes), (dst, src, bytes),\
    "copy_from_host")                                                                           \
  X(MemoryStats&, stats, (), (), "stats")

#define CUSTODY_FORALL_KERNELS(X)                                                               \
  X(absl::Status, copy, (const KernelView& dst, const KernelView& src), (dst, src), "copy")     \
  X(absl::Status, fill, (const KernelView& dst, const Scalar& value), (dst, value), "fill")     \
  X(absl::Status, binary,                                                                       \
    (BinaryOp op, const KernelView& out, const KernelView& a, const KernelView& b),             \
    (op, out, a, b), op_name(op))                                                               \
  X(absl::Status, binary_scalar,                                                                \
    (BinaryOp op, const KernelView& out, const KernelView& a, const Scalar& s,                  \
     bool scalar_first),                                                                        \
    (op, out, a, s, scalar_first), op_name(op))                                                 \
  X(absl::Status, unary, (UnaryOp op, const KernelView& out, const KernelView& in),             \
    (op, out, in), op_name(op))                                                                 \
  X(absl::Status, where,                                                                        \
    (const KernelView& out, const KernelView& cond, const KernelView& a, const KernelView& b),  \
    (out, cond, a, b), "where")                                                                 \
  X(absl::Status, reduce, (ReduceOp op, const KernelView& out, const KernelView& in),           \
    (op, out, in), op_name(op))                                                                 \
  X(absl::Status, softmax, (const KernelView& out, const KernelView& in, int64_t dim, bool log),\
    (out, in, dim, log), log ? "log_softmax" : "softmax")                                       \
  X(absl::Status, matmul, (const KernelView& out, const KernelView& a, const KernelView& b),    \
    (out, a, b), "matmul")                                                                      \
  X(absl::Status, index_select,                                                                 \
    (const KernelView& out, const KernelView& in, int64_t dim, const KernelView& index),        \
    (out, in, dim, index), "index_select")                                                      \
  X(absl::Status, random, (const KernelView& out, RandomDist dist, const RandomParams& params), \
    (out, dist, params), "random")

// `(a, b)` -> `a, b`: an entry's parenthesized arguments as a call's.
#define CUSTODY_UNPARENTHESIZE(...) __VA_ARGS__

// In a backend's struct: the static declarations of both lists.
#define CUSTODY_DECLARE_BACKEND_FUNCTION(Ret, name, params, args, label) static Ret name params;
#define CUSTODY_DECLARE_BACKEND_FUNCTIONS()                        \
  CUSTODY_FORALL_MEMORY_FUNCTIONS(CUSTODY_DECLARE_BACKEND_FUNCTION) \
  CUSTODY_FORALL_KERNELS(CUSTODY_DECLARE_BACKEND_FUNCTION)

// The concept requires each entry with exactly its signature.
#define CUSTODY_BACKEND_REQUIREMENT(Ret, name, params, args, label) \
  static_cast<Ret(*) params>(&B::name);

template <class B>
concept Backend = requires {
  { B::name } -> std::convertible_to<const char*>;
  { B::device() } -> std::same_as<Device>;
  { B::available() } -> std::same_as<bool>;
  { B::synchronize() } -> std::same_as<absl::Status>;
  CUSTODY_FORALL_MEMORY_FUNCTIONS(CUSTODY_BACKEND_REQUIREMENT)
  CUSTODY_FORALL_KERNELS(CUSTODY_BACKEND_REQUIREMENT)
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
//  * matmul(out, a, b): [batch..., n, k] x [batch..., k, m] -> [batch..., n, m],
//    one dtype, rank 3 or more (at least one batch dim, possibly of size 1);
//    a and b have out's batch sizes, with stride 0 on a dim they broadcast.
//    Core merges what batch dims it can, so equal batches come as rank 3; a
//    kernel that takes one batch dim splits the rest with
//    for_each_matmul_batch.
//  * index_select(out, in, dim, index): index is a 1-D int64 view, values checked.
//  * where(out, cond, a, b): cond bool; a, b, out one dtype; all of out's sizes.

}  // namespace custody

#endif  // CUSTODY_CORE_BACKEND_H_
