// Copyright 2026 The custody Authors.
//
// backends/aten/aten.cc — the Aten backend's allocator and kernels: one at::
// op per kernel, on zero-copy at::from_blob views (see aten.h).
//
// Only the per-operator ATen headers the kernels call are included (not
// <ATen/ATen.h>, which pulls in every operator), to keep this translation
// unit's compile time down.

#include "backends/aten/aten.h"

#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_log_softmax.h>
#include <ATen/ops/_softmax.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/add.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/amin.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/argmin.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/div.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/ge.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/le.h>
#include <ATen/ops/log.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/where.h>
#include <ATen/ops/abs_cpu_dispatch.h>
#include <ATen/ops/add_cpu_dispatch.h>
#include <ATen/ops/clamp_min_cpu_dispatch.h>
#include <ATen/ops/cos_cpu_dispatch.h>
#include <ATen/ops/div_cpu_dispatch.h>
#include <ATen/ops/eq_cpu_dispatch.h>
#include <ATen/ops/exp_cpu_dispatch.h>
#include <ATen/ops/ge_cpu_dispatch.h>
#include <ATen/ops/gelu_cpu_dispatch.h>
#include <ATen/ops/gt_cpu_dispatch.h>
#include <ATen/ops/le_cpu_dispatch.h>
#include <ATen/ops/log_cpu_dispatch.h>
#include <ATen/ops/lt_cpu_dispatch.h>
#include <ATen/ops/maximum_cpu_dispatch.h>
#include <ATen/ops/minimum_cpu_dispatch.h>
#include <ATen/ops/mul_cpu_dispatch.h>
#include <ATen/ops/ne_cpu_dispatch.h>
#include <ATen/ops/neg_cpu_dispatch.h>
#include <ATen/ops/pow_cpu_dispatch.h>
#include <ATen/ops/rsqrt_cpu_dispatch.h>
#include <ATen/ops/sigmoid_cpu_dispatch.h>
#include <ATen/ops/silu_cpu_dispatch.h>
#include <ATen/ops/sin_cpu_dispatch.h>
#include <ATen/ops/sqrt_cpu_dispatch.h>
#include <ATen/ops/sub_cpu_dispatch.h>
#include <ATen/ops/tanh_cpu_dispatch.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>

#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/strings/str_format.h"
#include "backends/aten/internal/aten_dtype.h"
#include "backends/host/host.h"
#include "backends/host/loops.h"
#include "core/error.h"
#include "core/philox.h"
#include "core/threads.h"

namespace custody {
namespace {

using aten_internal::to_aten_dtype;

std::atomic<int64_t> g_aten_calls{0};

// See Note [Which allocator frees] in aten.h. An allocator installed without
// the raw interface (no raw_deleter: blocks cannot be freed by address) cannot
// back `deallocate(p, bytes)`; libtorch's default CPU allocator is used then.
c10::Allocator* allocator() {
  static c10::Allocator* const a = [] {
    c10::Allocator* cpu = c10::GetCPUAllocator();
    return cpu->raw_deleter() != nullptr ? cpu : c10::GetDefaultCPUAllocator();
  }();
  return a;
}

// ---- views -----------------------------------------------------------------

// A zero-copy at::Tensor over a KernelView: no storage of its own (no deleter),
// element 0 at v.data, our sizes and strides (broadcast dims keep stride 0).
at::Tensor make_view(const KernelView& v) {
  return at::for_blob(v.data, at::IntArrayRef(v.sizes.data(), v.sizes.size()))
      .strides(at::IntArrayRef(v.strides.data(), v.strides.size()))
      .options(at::TensorOptions().dtype(to_aten_dtype(v.dtype)).device(c10::kCPU))
      .target_device(c10::Device(c10::kCPU))
      .make_tensor();
}

// Note [Reused views]
// ~~~~~~~~~~~~~~~~~~~
// Building an at::Tensor per operand per call (a TensorImpl and a StorageImpl
// each) was most of what the aten backend added to a tiny at:: op. Each thread
// keeps a few view tensors per dtype and re-points one at the operand instead:
// new data pointer and byte count on its storage, new sizes and strides on its
// TensorImpl. A view is taken only while nobody else holds it (use_count 1),
// so the operands of one kernel are distinct tensors; the kernels never let
// libtorch keep a view past the call (inference mode, no autograd).
at::Tensor view_of(const KernelView& v) {
  constexpr size_t kPerDtype = 6;
  thread_local std::vector<at::Tensor> pool[kNumScalarTypes];
  std::vector<at::Tensor>& views = pool[dtype_index(v.dtype)];
  for (at::Tensor& t : views) {
    if (t.use_count() != 1) continue;
    int64_t extent = 1;  // elements the view reaches, as for_blob computes them
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      if (v.sizes[d] == 0) {
        extent = 0;
        break;
      }
      extent += (v.sizes[d] - 1) * v.strides[d];
    }
    c10::StorageImpl* storage = t.storage().unsafeGetStorageImpl();
    storage->set_data_ptr_noswap(c10::DataPtr(v.data, c10::Device(c10::kCPU)));
    storage->set_nbytes(static_cast<size_t>(extent) * element_size(v.dtype));
    const at::IntArrayRef sizes(v.sizes.data(), v.sizes.size());
    const at::IntArrayRef strides(v.strides.data(), v.strides.size());
    // Same shape as its last use (the usual case: a loop's ops see the same
    // shapes every step): the view's numel and contiguity flags still hold, and
    // re-setting them was a third of what a view cost.
    if (!t.sizes().equals(sizes) || !t.strides().equals(strides)) {
      t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, int64_t{0});
    }
    return t;
  }
  at::Tensor t = make_view(v);
  if (views.size() < kPerDtype) views.push_back(t);
  return t;
}

bool same_view(const KernelView& a, const KernelView& b) {
  return a.data == b.data && a.dtype == b.dtype && a.sizes == b.sizes && a.strides == b.strides;
}

// libtorch 1.13 has no uint16/32/64 (aten_dtype.h): a kernel with such an
// operand runs on custody's host loops, which give ATen 2.x's answers.
template <class... V>
bool needs_host_loops(const V&... views) {
  return (is_barebones_unsigned(views.dtype) || ...);
}

// ---- error boundary --------------------------------------------------------

// Note [Direct CPU kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// The elementwise kernels (binary, binary_scalar, unary) call libtorch's CPU
// kernels directly, `at::cpu::add_out` and the like (ATen/ops/*_cpu_dispatch.h:
// the very functions libtorch's dispatcher selects for CPU tensors), instead of
// `at::add_out`. Every operand is a CPU view and nothing needs autograd, so the
// dispatcher's work — computing the dispatch key set of the operands, the
// profiler's step callbacks, the autograd and ADInplaceOrView kernels — and the
// InferenceMode guard (its autograd state and dispatch keys written and
// restored) were overhead: ~900 of the ~7,300 instructions of a one-element
// add. What remains is the guard every CPU kernel expects (some assert it):
// the autograd keys excluded from dispatch while it runs, so ops it calls
// inside (pow's fill_ for an exponent of 0) go straight to CPU kernels too.
// The kernels are libtorch's own (same TensorIterator, same loops), so the
// answers are the same bits; the catalogue and the oracle tests check it.
// Ops whose kernels call other operators inside (reductions, softmax, bmm,
// where, index_select) keep the dispatcher and the guard.
enum class Dispatch { kDispatcher, kDirect };

// Runs `f` (which makes the libtorch calls of kernel `op`) below autograd
// (InferenceMode: our views never need gradients; kDirect calls only exclude
// the autograd keys, Note [Direct CPU kernels]) and turns any exception into a
// Status naming the op: no c10::Error ever leaves the backend.
template <Dispatch kHow = Dispatch::kDispatcher, class F>
absl::Status guarded(const char* op, F&& f) {
  // libtorch's intra-op threads are OpenMP threads: custody's count, applied on
  // this thread (core/threads.h, Note [One thread count]).
  if (const int n = num_threads(); omp_get_max_threads() != n) omp_set_num_threads(n);
  try {
    if constexpr (kHow == Dispatch::kDispatcher) {
      c10::InferenceMode no_autograd;
      f();
    } else {
      // libtorch's CPU kernels expect to run below autograd (some assert it),
      // and the ops they call inside should dispatch straight to CPU kernels.
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      f();
    }
    g_aten_calls.fetch_add(1, std::memory_order_relaxed);
    return absl::OkStatus();
  } catch (const c10::IndexError& e) {
    return MakeStatus(ErrorKind::kInvalidArgument, absl::StatusCode::kOutOfRange,
                      absl::StrFormat("%s: libtorch raised: %s", op, e.what_without_backtrace()));
  } catch (const c10::NotImplementedError& e) {
    return MakeStatus(ErrorKind::kDType, absl::StatusCode::kUnimplemented,
                      absl::StrFormat("%s: not implemented by libtorch for these dtypes: %s", op,
                                      e.what_without_backtrace()));
  } catch (const c10::TypeError& e) {
    return MakeStatus(ErrorKind::kDType, absl::StatusCode::kInvalidArgument,
                      absl::StrFormat("%s: libtorch raised: %s", op, e.what_without_backtrace()));
  } catch (const c10::Error& e) {
    return MakeStatus(ErrorKind::kInvalidArgument, absl::StatusCode::kInvalidArgument,
                      absl::StrFormat("%s: libtorch raised: %s", op, e.what_without_backtrace()));
  } catch (const std::bad_alloc&) {
    return MakeStatus(ErrorKind::kOutOfMemory, absl::StatusCode::kResourceExhausted,
                      absl::StrFormat("%s: libtorch ran out of host memory for its temporaries", op));
  } catch (const std::exception& e) {
    return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kInternal,
                      absl::StrFormat("%s: libtorch failed: %s", op, e.what()));
  }
}

// ---- scalars -----------------------------------------------------------------

// A scalar converted to T exactly as the other backends convert it (the
// onednn loops): float -> integral truncates toward zero with out-of-range
// values clamped and NaN -> 0, anything -> bool is `!= 0`, integers wrap.
// libtorch's own Scalar::to<T>() refuses out-of-range values instead, so the
// kernels hand libtorch values that are already of T.
template <class T>
T convert_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::min();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
T scalar_value(const Scalar& s) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(s.to_double()));
  } else {
    return s.is_floating_point() ? convert_double<T>(s.to_double()) : s.to<T>();
  }
}

// The value `s` takes in dtype `dt`, as a libtorch Scalar holding exactly that value.
at::Scalar aten_scalar(ScalarType dt, const Scalar& s) {
  return visit_dtype(dt, [&](auto tag) -> at::Scalar {
    using T = typename decltype(tag)::type;
    const T v = scalar_value<T>(s);
    if constexpr (std::is_same_v<T, bool>) {
      return at::Scalar(v);
    } else if constexpr (std::is_integral_v<T>) {
      return at::Scalar(static_cast<int64_t>(v));
    } else {
      return at::Scalar(static_cast<double>(v));  // exact: every float16/32 value is a double
    }
  });
}

// ---- binary ----------------------------------------------------------------

void binary_out(BinaryOp op, at::Tensor& o, const at::Tensor& a, const at::Tensor& b) {
  switch (op) {
    case BinaryOp::kAdd: at::cpu::add_out(o, a, b); break;
    case BinaryOp::kSub: at::cpu::sub_out(o, a, b); break;
    case BinaryOp::kMul: at::cpu::mul_out(o, a, b); break;
    case BinaryOp::kDiv: at::cpu::div_out(o, a, b); break;
    case BinaryOp::kMaximum: at::cpu::maximum_out(o, a, b); break;  // propagates NaN
    case BinaryOp::kMinimum: at::cpu::minimum_out(o, a, b); break;
    case BinaryOp::kPow: at::cpu::pow_out(o, a, b); break;
    case BinaryOp::kEq: at::cpu::eq_out(o, a, b); break;
    case BinaryOp::kNe: at::cpu::ne_out(o, a, b); break;
    case BinaryOp::kLt: at::cpu::lt_out(o, a, b); break;
    case BinaryOp::kLe: at::cpu::le_out(o, a, b); break;
    case BinaryOp::kGt: at::cpu::gt_out(o, a, b); break;
    case BinaryOp::kGe: at::cpu::ge_out(o, a, b); break;
  }
}

// The dims of `in` that `reduce` reduces: those where out has size 1 (size-1
// dims of `in` included, which changes nothing), so libtorch's result has
// exactly out's keepdim shape.
std::vector<int64_t> reduced_dims(const KernelView& out) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < out.sizes.size(); ++d) {
    if (out.sizes[d] == 1) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

}  // namespace

int64_t Aten::aten_calls() { return g_aten_calls.load(); }

MemoryStats& Aten::stats() {
  static MemoryStats* s = new MemoryStats;
  return *s;
}

// ---- memory ------------------------------------------------------------------

absl::StatusOr<void*> Aten::allocate(size_t bytes) {
  // c10's allocator returns null for 0 bytes; custody hands out a real block.
  const size_t n = bytes == 0 ? 1 : bytes;
  void* p = nullptr;
  try {
    p = allocator()->raw_allocate(n);
  } catch (const c10::Error& e) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "out of host memory allocating %d bytes (%d in use) from libtorch's CPU allocator: %s",
        bytes, stats().snapshot().bytes_in_use, e.what_without_backtrace()));
  } catch (const std::bad_alloc&) {
    p = nullptr;
  }
  if (p == nullptr) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "out of host memory allocating %d bytes (%d in use) from libtorch's CPU allocator", bytes,
        stats().snapshot().bytes_in_use));
  }
  stats().on_alloc(static_cast<int64_t>(bytes), p);
  stats().add_reserved(static_cast<int64_t>(bytes));
  return p;
}

void Aten::deallocate(void* p, size_t bytes) {
  // Counted before the memory goes back: once libtorch has it, another thread
  // may be given the same address and record its allocation, and a history
  // with that allocation before this free pairs the free with the wrong block
  // (the serve workload's cross-thread frees came out one short).
  stats().on_free(static_cast<int64_t>(bytes), p);
  stats().add_reserved(-static_cast<int64_t>(bytes));
  allocator()->raw_deallocate(p);
}

absl::Status Aten::copy_to_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status Aten::copy_from_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

// ---- kernels -------------------------------------------------------------------

absl::Status Aten::copy(const KernelView& dst, const KernelView& src) {
  if (same_view(dst, src)) return absl::OkStatus();  // copying a view onto itself
  if (needs_host_loops(dst, src)) return host::copy_loop(dst, src);
  return guarded("copy", [&] {
    at::Tensor d = view_of(dst);
    d.copy_(view_of(src));  // strided, dtype-converting, broadcasting (stride 0)
  });
}

absl::Status Aten::fill(const KernelView& dst, const Scalar& value) {
  if (needs_host_loops(dst)) return host::fill_loop(dst, value);
  return guarded("fill", [&] {
    at::Tensor d = view_of(dst);
    d.fill_(aten_scalar(dst.dtype, value));
  });
}

absl::Status Aten::binary(BinaryOp op, const KernelView& out, const KernelView& a,
                          const KernelView& b) {
  if (needs_host_loops(a, b)) return host::binary_loop(op, out, a, b);
  return guarded<Dispatch::kDirect>(op_name(op), [&] {
    at::Tensor o = view_of(out);
    // In place (out is a): one at::Tensor for both, so libtorch sees the full overlap.
    const at::Tensor ta = same_view(out, a) ? o : view_of(a);
    const at::Tensor tb = same_view(out, b) ? o : (same_view(a, b) ? ta : view_of(b));
    binary_out(op, o, ta, tb);
  });
}

absl::Status Aten::binary_scalar(BinaryOp op, const KernelView& out, const KernelView& a,
                                 const Scalar& s, bool scalar_first) {
  if (needs_host_loops(a)) return host::binary_scalar_loop(op, out, a, s, scalar_first);
  return guarded<Dispatch::kDirect>(op_name(op), [&] {
    at::Tensor o = view_of(out);
    const at::Tensor ta = same_view(out, a) ? o : view_of(a);
    const at::Scalar v = aten_scalar(a.dtype, s);  // s in a's dtype, as core promised
    if (op == BinaryOp::kPow && !scalar_first) {
      at::cpu::pow_out(o, ta, v);  // pow(Tensor, Scalar): libtorch's exact small-exponent paths
      return;
    }
    // `s` as a 0-dim tensor of a's dtype over a host value: no allocation, no promotion.
    visit_dtype(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T value = scalar_value<T>(s);
      const at::Tensor ts = view_of(KernelView{&value, a.dtype, {}, {}});
      if (scalar_first) {
        binary_out(op, o, ts, ta);
      } else {
        binary_out(op, o, ta, ts);
      }
    });
  });
}

absl::Status Aten::unary(UnaryOp op, const KernelView& out, const KernelView& in) {
  if (needs_host_loops(in)) return host::unary_loop(op, out, in);
  return guarded<Dispatch::kDirect>(op_name(op), [&] {
    at::Tensor o = view_of(out);
    const at::Tensor i = same_view(out, in) ? o : view_of(in);
    switch (op) {
      case UnaryOp::kNeg: at::cpu::neg_out(o, i); break;
      case UnaryOp::kAbs: at::cpu::abs_out(o, i); break;
      case UnaryOp::kExp: at::cpu::exp_out(o, i); break;
      case UnaryOp::kLog: at::cpu::log_out(o, i); break;
      case UnaryOp::kSqrt: at::cpu::sqrt_out(o, i); break;
      case UnaryOp::kRsqrt: at::cpu::rsqrt_out(o, i); break;
      case UnaryOp::kTanh: at::cpu::tanh_out(o, i); break;
      case UnaryOp::kSigmoid: at::cpu::sigmoid_out(o, i); break;
      case UnaryOp::kRelu: at::cpu::clamp_min_out(o, i, 0); break;  // at::relu is clamp_min(x, 0)
      case UnaryOp::kGelu: at::cpu::gelu_out(o, i); break;          // exact (erf) form
      case UnaryOp::kSilu: at::cpu::silu_out(o, i); break;
      case UnaryOp::kSin: at::cpu::sin_out(o, i); break;
      case UnaryOp::kCos: at::cpu::cos_out(o, i); break;
    }
  });
}

absl::Status Aten::where(const KernelView& out, const KernelView& cond, const KernelView& a,
                         const KernelView& b) {
  if (needs_host_loops(a, b)) return host::where_loop(out, cond, a, b);
  return guarded("where", [&] {
    at::Tensor o = view_of(out);
    at::where_out(o, view_of(cond), view_of(a), view_of(b));
  });
}

absl::Status Aten::reduce(ReduceOp op, const KernelView& out, const KernelView& in) {
  if (needs_host_loops(in)) return host::reduce_loop(op, out, in);
  return guarded(op_name(op), [&] {
    at::Tensor o = view_of(out);
    const at::Tensor i = view_of(in);
    const std::vector<int64_t> dims = reduced_dims(out);
    // An empty list only happens for a 0-dim input: reduce "everything".
    const at::OptionalIntArrayRef opt_dims =
        dims.empty() ? at::OptionalIntArrayRef() : at::OptionalIntArrayRef(dims);
    switch (op) {
      case ReduceOp::kSum: at::sum_out(o, i, opt_dims, /*keepdim=*/true); break;
      case ReduceOp::kMean: at::mean_out(o, i, opt_dims, /*keepdim=*/true); break;
      case ReduceOp::kMax: at::amax_out(o, i, dims, /*keepdim=*/true); break;  // propagates NaN
      case ReduceOp::kMin: at::amin_out(o, i, dims, /*keepdim=*/true); break;
      case ReduceOp::kArgMax:
      case ReduceOp::kArgMin: {
        // One reduced dim: the one in actually has more than one element along
        // (any size-1 dim otherwise: the answer is index 0 either way).
        c10::optional<int64_t> dim;
        for (int64_t d : dims) {
          if (!dim.has_value() || in.sizes[d] != 1) dim = d;
          if (in.sizes[d] != 1) break;
        }
        if (op == ReduceOp::kArgMax) {
          at::argmax_out(o, i, dim, /*keepdim=*/true);  // first index of the max; NaN is max
        } else {
          at::argmin_out(o, i, dim, /*keepdim=*/true);
        }
        break;
      }
    }
  });
}

absl::Status Aten::softmax(const KernelView& out, const KernelView& in, int64_t dim, bool log) {
  return guarded(log ? "log_softmax" : "softmax", [&] {
    at::Tensor o = view_of(out);
    if (log) {
      at::_log_softmax_out(o, view_of(in), dim, /*half_to_float=*/false);
    } else {
      at::_softmax_out(o, view_of(in), dim, /*half_to_float=*/false);
    }
  });
}

absl::Status Aten::matmul(const KernelView& out, const KernelView& a, const KernelView& b) {
  // bmm takes one batch dim (its stride may be 0: broadcast); more are split.
  return for_each_matmul_batch(out, a, b, [](const KernelView& o3, const KernelView& a3,
                                             const KernelView& b3) {
    return guarded("matmul", [&] {
      if (o3.sizes[0] == 1) {
        // One product: mm, as at::matmul takes for 2-D operands (bmm adds
        // its batch loop around the same BLAS call).
        const auto matrix = [](const KernelView& v) {
          return KernelView{v.data, v.dtype, v.sizes.subspan(1), v.strides.subspan(1)};
        };
        at::Tensor o = view_of(matrix(o3));
        at::mm_out(o, view_of(matrix(a3)), view_of(matrix(b3)));
        return;
      }
      at::Tensor o = view_of(o3);
      at::bmm_out(o, view_of(a3), view_of(b3));
    });
  });
}

absl::Status Aten::index_select(const KernelView& out, const KernelView& in, int64_t dim,
                                const KernelView& index) {
  // Checked here, as on every backend, so the error names our shapes (libtorch's
  // "index out of range in self" does not say which index).
  CUSTODY_RETURN_IF_ERROR(host::check_indices(in, dim, index));
  if (needs_host_loops(in)) return host::index_select_loop(out, in, dim, index);
  return guarded("index_select", [&] {
    at::Tensor o = view_of(out);
    at::index_select_out(o, view_of(in), dim, view_of(index));
  });
}

absl::Status Aten::random(const KernelView& out, RandomDist dist, const RandomParams& p) {
  // custody's Philox streams on the host (core/philox.h): element i is a pure
  // function of (seed, offset, i), the same values as on every backend.
  return host::random_loop(out, dist, p);
}

}  // namespace custody
