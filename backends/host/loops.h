// Copyright 2026 The custody Authors.
//
// backends/host/loops.h — the direct CPU path: strided loops over
// KernelViews for every dtype. The onednn backend runs them for tiny tensors
// (where oneDNN's dispatch costs more than the work), for dtypes oneDNN has no
// primitive for (float64, int64, int16, bool, ...) and for layouts its
// primitives do not take; the aten backend for the dtypes libtorch 1.13 lacks
// (uint16, uint32, uint64).
//
// What each element computes is core/element_ops.h's, shared with the CUDA
// kernels: integer arithmetic wraps as in ATen, conversions clamp, NaN propagates.

#ifndef CUSTODY_BACKENDS_HOST_LOOPS_H_
#define CUSTODY_BACKENDS_HOST_LOOPS_H_

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "core/backend.h"
#include "core/element_ops.h"
#include "core/error.h"
#include "core/threads.h"

namespace custody::host {

// Loops of at least this many elements run on every OpenMP thread.
inline constexpr int64_t kParallelGrain = int64_t{1} << 15;

// Runs fn(begin, end) over [0, n): inline when `work` (default n; elements
// touched in all) is below kParallelGrain, else one contiguous range per thread.
template <class F>
void parallel_ranges(int64_t n, F&& fn, int64_t work = -1) {
  const int threads = (work < 0 ? n : work) >= kParallelGrain ? custody::num_threads() : 1;
  if (threads <= 1) {
    fn(int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    fn(n * t / nt, n * (t + 1) / nt);
  }
}

// Walks the elements of N views of the same sizes in row-major order, calling
// `inner(ptrs, byte_strides, n)` for runs along the innermost (coalesced) dim.
template <size_t N, class F>
void strided_loop(IntSpan sizes, const std::array<char*, N>& base,
                  const std::array<Dims, N>& byte_strides, F&& inner) {
  // Coalesce: drop size-1 dims, merge dims that are contiguous for every operand.
  Dims sz;
  std::array<Dims, N> st;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (sizes[d] == 0) return;
    if (!sz.empty()) {
      bool merge = true;
      for (size_t k = 0; k < N; ++k) {
        if (st[k].back() != byte_strides[k][d] * sizes[d]) merge = false;
      }
      if (merge) {
        sz.back() *= sizes[d];
        for (size_t k = 0; k < N; ++k) st[k].back() = byte_strides[k][d];
        continue;
      }
    }
    sz.push_back(sizes[d]);
    for (size_t k = 0; k < N; ++k) st[k].push_back(byte_strides[k][d]);
  }
  std::array<int64_t, N> inner_stride{};
  if (sz.empty()) {  // a single element
    inner(base, inner_stride, int64_t{1});
    return;
  }
  const size_t nd = sz.size();
  for (size_t k = 0; k < N; ++k) inner_stride[k] = st[k][nd - 1];
  const int64_t n_inner = sz[nd - 1];
  int64_t total = n_inner;
  for (size_t d = 0; d + 1 < nd; ++d) total *= sz[d];
  // Runs the elements [begin, end) of the row-major iteration space.
  const auto run_range = [&](int64_t begin, int64_t end) {
    if (begin >= end) return;
    Dims idx(nd - 1, 0);
    std::array<char*, N> ptrs = base;
    int64_t outer = begin / n_inner, j = begin % n_inner;
    for (int64_t d = static_cast<int64_t>(nd) - 2; d >= 0; --d) {
      idx[d] = outer % sz[d];
      outer /= sz[d];
      for (size_t k = 0; k < N; ++k) ptrs[k] += idx[d] * st[k][d];
    }
    int64_t pos = begin;
    while (true) {
      const int64_t len = std::min(n_inner - j, end - pos);
      std::array<char*, N> at = ptrs;
      for (size_t k = 0; k < N; ++k) at[k] += j * inner_stride[k];
      inner(at, inner_stride, len);
      pos += len;
      if (pos >= end) return;
      j = 0;
      // Odometer increment over the outer dims.
      int64_t d = static_cast<int64_t>(nd) - 2;
      for (; d >= 0; --d) {
        if (++idx[d] < sz[d]) {
          for (size_t k = 0; k < N; ++k) ptrs[k] += st[k][d];
          break;
        }
        for (size_t k = 0; k < N; ++k) ptrs[k] -= st[k][d] * (sz[d] - 1);
        idx[d] = 0;
      }
      if (d < 0) return;
    }
  };
  // Large loops are split into one contiguous range of elements per OpenMP
  // thread (each element is written by exactly one `inner` call, so callers'
  // inner functions need no synchronisation).
  parallel_ranges(total, run_range);
}

inline Dims byte_strides(const KernelView& v) {
  Dims s(v.strides.begin(), v.strides.end());
  const int64_t es = static_cast<int64_t>(element_size(v.dtype));
  for (auto& x : s) x *= es;
  return s;
}

// Elementwise map over N views (the first is written): f(T0& out, Ts... in).
template <class Out, class... In, class F>
void map(const KernelView& out, F&& f, const auto&... in_views) {
  if (out.is_contiguous() && (in_views.is_contiguous() && ...)) {
    // Every view dense in the same (row-major) order: one flat loop, no
    // stride bookkeeping (most tiny tensors, most loop-path work).
    Out* o = static_cast<Out*>(out.data);
    const std::tuple<const In*...> ip{static_cast<const In*>(in_views.data)...};
    parallel_ranges(out.numel(), [&](int64_t begin, int64_t end) {
      [&]<size_t... I>(std::index_sequence<I...>) {
#pragma omp simd
        for (int64_t i = begin; i < end; ++i) o[i] = f(std::get<I>(ip)[i]...);
      }(std::index_sequence_for<In...>{});
    });
    return;
  }
  constexpr size_t N = 1 + sizeof...(In);
  std::array<char*, N> base{static_cast<char*>(out.data), static_cast<char*>(in_views.data)...};
  std::array<Dims, N> st{byte_strides(out), byte_strides(in_views)...};
  strided_loop<N>(out.sizes, base, st, [&](const std::array<char*, N>& p,
                                           const std::array<int64_t, N>& s, int64_t n) {
    [&]<size_t... I>(std::index_sequence<I...>) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const int64_t os = s[0] / static_cast<int64_t>(sizeof(Out));
      if (((s[I + 1] == static_cast<int64_t>(sizeof(In))) && ...) && os == 1) {
        // Dense inner run: plain pointer arithmetic, vectorisable.
        // Elements are independent (an output may be an input at the same
        // index, never at another), so the loop may be vectorised as is.
        std::tuple<const In*...> ip{reinterpret_cast<const In*>(p[I + 1])...};
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = f(std::get<I>(ip)[i]...);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          o[i * os] = f(*reinterpret_cast<const In*>(p[I + 1] + i * s[I + 1])...);
        }
      }
    }(std::index_sequence_for<In...>{});
  });
}

// The per-element semantics, shared with every backend (core/element_ops.h).
using element::convert;
using element::int_pow;
using element::kIsHalfLike;
using element::max_nan;
using element::min_nan;
using element::wrap_add;
using element::wrap_mul;
using element::wrap_sub;

absl::Status copy_loop(const KernelView& dst, const KernelView& src);
absl::Status fill_loop(const KernelView& dst, const Scalar& v);
absl::Status binary_loop(BinaryOp op, const KernelView& out, const KernelView& a, const KernelView& b);
absl::Status binary_scalar_loop(BinaryOp op, const KernelView& out, const KernelView& a,
                                const Scalar& s, bool scalar_first);
absl::Status unary_loop(UnaryOp op, const KernelView& out, const KernelView& in);
// Whether any of the n floats at `data` is NaN, +-inf or subnormal (and, with
// zeros_are_special, +-0): one vectorised read (Note [Special values], onednn.cc).
bool any_special_f32(const float* data, int64_t n, bool zeros_are_special);
// softmax (log: log_softmax) of `rows` contiguous rows of `cols` floats at `x`
// into `out` (the same memory or none of it), row by row, stopping at the first
// row holding NaN, +-inf or a subnormal, which it leaves unwritten: returns the
// rows done (Note [Softmax rows], loops.cc).
int64_t softmax_rows_f32(float* out, const float* x, int64_t rows, int64_t cols, bool log);
absl::Status where_loop(const KernelView& out, const KernelView& cond, const KernelView& a,
                        const KernelView& b);
absl::Status reduce_loop(ReduceOp op, const KernelView& out, const KernelView& in);
absl::Status softmax_loop(const KernelView& out, const KernelView& in, int64_t dim, bool log);
absl::Status matmul_loop(const KernelView& out, const KernelView& a, const KernelView& b);
absl::Status index_select_loop(const KernelView& out, const KernelView& in, int64_t dim,
                               const KernelView& index);
absl::Status random_loop(const KernelView& out, RandomDist dist, const RandomParams& p);

}  // namespace custody::host

#endif  // CUSTODY_BACKENDS_HOST_LOOPS_H_
