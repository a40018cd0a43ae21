// Copyright 2026 The custody Authors.
//
// backends/cuda/internal/kernels.cu — the CUDA backend's kernels (kernels.h).
// Every value is computed by core/element_ops.h, the functions the CPU loops
// use, so both backends give ATen's answers by one definition.

#include "backends/cuda/internal/kernels.h"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_format.h"
#include "backends/cuda/internal/errors.h"
#include "backends/host/host.h"
#include "core/element_ops.h"
#include "core/error.h"
#include "core/philox.h"

namespace custody::cuda_internal {

namespace {

using element::apply_binary;
using element::apply_comparison;
using element::apply_unary;
using element::convert;

constexpr int kMaxDims = 16;   // after merging contiguous dims
constexpr int kThreads = 256;  // threads per block of the grid-stride loops

absl::Status launched(const char* op) {
  const cudaError_t err = cudaGetLastError();
  return err == cudaSuccess ? absl::OkStatus() : cuda_status(op, err);
}

absl::Status too_many_dims(const char* op, size_t dims) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "cuda %s: a view of %d dims that cannot be merged (at most %d)", op, dims, kMaxDims));
}

int blocks_for(const Launch& l, int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(b, l.max_blocks)));
}

template <class T>
__device__ __forceinline__ T load(const char* p) {
  return *reinterpret_cast<const T*>(p);
}
template <class T>
__device__ __forceinline__ void store(char* p, T v) {
  *reinterpret_cast<T*>(p) = v;
}

// ---- elementwise: N operands (operand 0 is written) of one shape --------------------

// The shape after merging dims, with byte strides per operand.
template <int N>
struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];
  char* data[N];
};

// One dim left: the flat loop's arguments.
template <int N>
struct Flat {
  char* data[N];
  int64_t stride[N];
};

// Drops size-1 dims and merges dims contiguous for every operand; keeps the
// row-major order of the elements (so linear index i is the same element).
template <int N>
absl::Status make_geometry(const char* op, IntSpan sizes, const std::array<KernelView, N>& v,
                           Geometry<N>* g) {
  g->numel = 1;
  for (int k = 0; k < N; ++k) g->data[k] = static_cast<char*>(v[k].data);
  int nd = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    g->numel *= sizes[d];
    if (sizes[d] == 1) continue;
    if (sizes[d] == 0) {
      g->numel = 0;
      g->ndim = 0;
      return absl::OkStatus();
    }
    int64_t bs[N];
    for (int k = 0; k < N; ++k) {
      bs[k] = v[k].strides[d] * static_cast<int64_t>(element_size(v[k].dtype));
    }
    if (nd > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k) merge = merge && g->strides[k][nd - 1] == bs[k] * sizes[d];
      if (merge) {
        g->sizes[nd - 1] *= sizes[d];
        for (int k = 0; k < N; ++k) g->strides[k][nd - 1] = bs[k];
        continue;
      }
    }
    if (nd == kMaxDims) return too_many_dims(op, sizes.size());
    g->sizes[nd] = sizes[d];
    for (int k = 0; k < N; ++k) g->strides[k][nd] = bs[k];
    ++nd;
  }
  g->ndim = nd;
  return absl::OkStatus();
}

template <int N, class F>
__global__ void flat_kernel(Flat<N> g, int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = g.data[k] + i * g.stride[k];
    f(p, i);
  }
}

template <int N, class F>
__global__ void strided_kernel(Geometry<N> g, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel;
       i += step) {
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = g.data[k];
    int64_t rest = i;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t idx = rest % g.sizes[d];
      rest /= g.sizes[d];
#pragma unroll
      for (int k = 0; k < N; ++k) p[k] += idx * g.strides[k][d];
    }
    f(p, i);
  }
}

// Runs f(p, i) for every element i (row-major) of `sizes`, p[k] pointing at
// operand k's element.
template <int N, class F>
absl::Status map(const Launch& l, const char* op, IntSpan sizes, const std::array<KernelView, N>& v,
                 F f) {
  Geometry<N> g;
  CUSTODY_RETURN_IF_ERROR(make_geometry<N>(op, sizes, v, &g));
  if (g.numel == 0) return absl::OkStatus();
  const int blocks = blocks_for(l, g.numel);
  if (g.ndim <= 1) {
    Flat<N> flat;
    for (int k = 0; k < N; ++k) {
      flat.data[k] = g.data[k];
      flat.stride[k] = g.ndim == 1 ? g.strides[k][0] : 0;
    }
    flat_kernel<N><<<blocks, kThreads, 0, l.stream>>>(flat, g.numel, f);
  } else {
    strided_kernel<N><<<blocks, kThreads, 0, l.stream>>>(g, f);
  }
  return launched(op);
}

template <class D, class S>
struct CopyFn {
  __device__ void operator()(char* const* p, int64_t) const {
    store<D>(p[0], convert<D>(load<S>(p[1])));
  }
};

// A converting copy from S to the dtype `to`, which every thread switches on
// the same way: one kernel per source dtype (13) instead of one per pair (169),
// which kept nvcc busy for minutes. Same-dtype copies keep CopyFn<T, T>.
template <class S>
struct ConvertFn {
  ScalarType to;
  __device__ void operator()(char* const* p, int64_t) const {
    const S v = load<S>(p[1]);
    switch (to) {
#define CUSTODY_CONVERT_CASE(dtype, D) \
  case ScalarType::dtype: store<D>(p[0], convert<D>(v)); break;
      CUSTODY_CONVERT_CASE(Byte, uint8_t)
      CUSTODY_CONVERT_CASE(Char, int8_t)
      CUSTODY_CONVERT_CASE(Short, int16_t)
      CUSTODY_CONVERT_CASE(Int, int32_t)
      CUSTODY_CONVERT_CASE(Long, int64_t)
      CUSTODY_CONVERT_CASE(Half, Half)
      CUSTODY_CONVERT_CASE(Float, float)
      CUSTODY_CONVERT_CASE(Double, double)
      CUSTODY_CONVERT_CASE(Bool, bool)
      CUSTODY_CONVERT_CASE(BFloat16, BFloat16)
      CUSTODY_CONVERT_CASE(UInt16, uint16_t)
      CUSTODY_CONVERT_CASE(UInt32, uint32_t)
      CUSTODY_CONVERT_CASE(UInt64, uint64_t)
#undef CUSTODY_CONVERT_CASE
    }
  }
};

template <class T>
struct FillFn {
  T value;
  __device__ void operator()(char* const* p, int64_t) const { store<T>(p[0], value); }
};

template <class T>
__device__ __forceinline__ void binary_element(BinaryOp op, char* out, T x, T y) {
  if (is_comparison(op)) {
    store<bool>(out, apply_comparison(op, x, y));
  } else {
    store<T>(out, apply_binary(op, x, y));
  }
}

template <class T>
struct BinaryFn {
  BinaryOp op;
  __device__ void operator()(char* const* p, int64_t) const {
    binary_element<T>(op, p[0], load<T>(p[1]), load<T>(p[2]));
  }
};

// Add: the common case, without the per-element switch.
template <class T>
struct AddFn {
  __device__ void operator()(char* const* p, int64_t) const {
    store<T>(p[0], element::wrap_add(load<T>(p[1]), load<T>(p[2])));
  }
};

template <class T>
struct BinaryScalarFn {
  BinaryOp op;
  T s;
  bool scalar_first;
  __device__ void operator()(char* const* p, int64_t) const {
    const T a = load<T>(p[1]);
    if (scalar_first) {
      binary_element<T>(op, p[0], s, a);
    } else {
      binary_element<T>(op, p[0], a, s);
    }
  }
};

template <class T>
struct UnaryFn {
  UnaryOp op;
  __device__ void operator()(char* const* p, int64_t) const {
    store<T>(p[0], apply_unary(op, load<T>(p[1])));
  }
};

template <class T>
struct WhereFn {
  __device__ void operator()(char* const* p, int64_t) const {
    store<T>(p[0], load<uint8_t>(p[1]) != 0 ? load<T>(p[2]) : load<T>(p[3]));
  }
};

template <class T>
struct RandomFn {
  RandomDist dist;
  RandomParams params;
  __device__ void operator()(char* const* p, int64_t i) const {
    store<T>(p[0], host::random_sample<T>(dist, params, static_cast<uint64_t>(i)));
  }
};

// The scalar as a T, as the CPU loops convert it (backends/host/loops.cc).
template <class T>
T scalar_as(const Scalar& s) {
  if constexpr (element::kIsHalfLike<T>) {
    return T(static_cast<float>(s.to_double()));
  } else if (s.is_floating_point()) {
    return convert<T>(s.to_double());
  } else {
    return s.to<T>();
  }
}

// ---- reductions -------------------------------------------------------------------

// `in` viewed as [segments, count]: segment s is an output element (the kept
// dims, row-major), position j runs over the reduced dims (row-major).
struct ReduceGeometry {
  int nk = 0, nr = 0;
  int64_t kept_sizes[kMaxDims], kept_in[kMaxDims], kept_out[kMaxDims];  // strides in elements
  int64_t red_sizes[kMaxDims], red_in[kMaxDims];
  int64_t count = 1, segments = 1;

  __host__ __device__ int64_t in_offset(int64_t s, int64_t j) const {
    int64_t off = 0;
    for (int d = nr - 1; d >= 0; --d) {
      off += (j % red_sizes[d]) * red_in[d];
      j /= red_sizes[d];
    }
    for (int d = nk - 1; d >= 0; --d) {
      off += (s % kept_sizes[d]) * kept_in[d];
      s /= kept_sizes[d];
    }
    return off;
  }
  __host__ __device__ int64_t out_offset(int64_t s) const {
    int64_t off = 0;
    for (int d = nk - 1; d >= 0; --d) {
      off += (s % kept_sizes[d]) * kept_out[d];
      s /= kept_sizes[d];
    }
    return off;
  }
};

absl::Status make_reduce_geometry(const char* op, const KernelView& out, const KernelView& in,
                                  ReduceGeometry* g) {
  for (size_t d = 0; d < in.sizes.size(); ++d) {
    if (in.sizes[d] == 1) continue;
    if (out.sizes[d] == 1) {
      if (g->nr == kMaxDims) return too_many_dims(op, in.sizes.size());
      g->red_sizes[g->nr] = in.sizes[d];
      g->red_in[g->nr] = in.strides[d];
      ++g->nr;
      g->count *= in.sizes[d];
    } else {
      if (g->nk == kMaxDims) return too_many_dims(op, in.sizes.size());
      g->kept_sizes[g->nk] = in.sizes[d];
      g->kept_in[g->nk] = in.strides[d];
      g->kept_out[g->nk] = out.strides[d];
      ++g->nk;
      g->segments *= in.sizes[d];
    }
  }
  return absl::OkStatus();
}

// argmax/argmin's accumulator: the position j within the segment (-1: none yet).
template <class T>
struct Arg {
  int64_t index;
  T value;
};

// Element j of the flattened [segments, count] input as the accumulator type.
template <class T, class Acc>
struct LoadAcc {
  const T* in;
  ReduceGeometry g;
  __host__ __device__ Acc operator()(int64_t flat) const {
    const int64_t s = flat / g.count, j = flat % g.count;
    return static_cast<Acc>(in[g.in_offset(s, j)]);
  }
};

template <class T>
struct LoadArg {
  const T* in;
  ReduceGeometry g;
  __host__ __device__ Arg<T> operator()(int64_t flat) const {
    const int64_t s = flat / g.count, j = flat % g.count;
    return Arg<T>{j, in[g.in_offset(s, j)]};
  }
};

struct Times {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t s) const { return s * n; }
};

template <class Acc>
struct SumOp {
  __host__ __device__ Acc operator()(const Acc& a, const Acc& b) const {
    return element::wrap_add(a, b);
  }
};
template <class T>
struct MaxOp {
  __host__ __device__ T operator()(const T& a, const T& b) const { return element::max_nan(a, b); }
};
template <class T>
struct MinOp {
  __host__ __device__ T operator()(const T& a, const T& b) const { return element::min_nan(a, b); }
};

// The first NaN wins, then the largest (smallest) value, ties to the first
// position: associative and commutative, so any CUB order gives the CPU loop's
// answer.
template <class T>
struct ArgOp {
  bool is_max;
  __host__ __device__ Arg<T> operator()(const Arg<T>& a, const Arg<T>& b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool an = element::is_nan(a.value), bn = element::is_nan(b.value);
    if (an || bn) {
      if (an && bn) return a.index < b.index ? a : b;
      return an ? a : b;
    }
    if (a.value == b.value) return a.index < b.index ? a : b;
    return (is_max ? a.value > b.value : a.value < b.value) ? a : b;
  }
};

// acc[s] (segment results, contiguous) to out's strided elements, in out's dtype.
template <class T, class Acc>
__global__ void finish_reduce(T* out, const Acc* acc, ReduceGeometry g, bool mean) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < g.segments;
       s += step) {
    out[g.out_offset(s)] = mean ? element::mean_of<T>(acc[s], g.count) : static_cast<T>(acc[s]);
  }
}

template <class T>
__global__ void finish_arg(int64_t* out, const Arg<T>* acc, ReduceGeometry g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  const int64_t last = g.nr > 0 ? g.red_sizes[g.nr - 1] : 1;
  for (int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < g.segments;
       s += step) {
    const int64_t j = acc[s].index < 0 ? 0 : acc[s].index;
    out[g.out_offset(s)] = j % last;  // the coordinate along the last reduced dim
  }
}

template <class Acc>
__global__ void fill_acc(Acc* acc, int64_t n, Acc value) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    acc[i] = value;
  }
}

// Scratch memory for one call, freed (stream-ordered) when it goes out of scope.
class Scratch {
 public:
  Scratch(const Launch& l, const char* op) : l_(l), op_(op) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { scratch_free(l_, p_); }
  // Never null after success: a null scratch pointer would turn CUB's second
  // call into another size query.
  absl::Status allocate(size_t bytes) {
    absl::StatusOr<void*> p = scratch_allocate(l_, bytes, op_);
    if (!p.ok()) return p.status();
    p_ = *p;
    return absl::OkStatus();
  }
  void* get() const { return p_; }

 private:
  const Launch& l_;
  const char* op_;
  void* p_ = nullptr;
};

// CUB over the [segments, count] view: one DeviceReduce for a single segment,
// DeviceSegmentedReduce otherwise; results into `acc` (segments elements).
template <class Acc, class It, class Op>
absl::Status cub_reduce(const Launch& l, const char* op, It in, const ReduceGeometry& g, Op reduce_op,
                        Acc init, Acc* acc, Scratch* scratch) {
  size_t bytes = 0;
  const auto begins = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                      Times{g.count});
  cudaError_t err;
  if (g.segments == 1) {
    err = cub::DeviceReduce::Reduce(nullptr, bytes, in, acc, g.count, reduce_op, init, l.stream);
  } else {
    err = cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, in, acc, g.segments, begins,
                                             begins + 1, reduce_op, init, l.stream);
  }
  if (err != cudaSuccess) return cuda_status(op, err);
  CUSTODY_RETURN_IF_ERROR(scratch->allocate(bytes));
  if (g.segments == 1) {
    err = cub::DeviceReduce::Reduce(scratch->get(), bytes, in, acc, g.count, reduce_op, init,
                                    l.stream);
  } else {
    err = cub::DeviceSegmentedReduce::Reduce(scratch->get(), bytes, in, acc, g.segments, begins,
                                             begins + 1, reduce_op, init, l.stream);
  }
  return err == cudaSuccess ? absl::OkStatus() : cuda_status(op, err);
}

template <class T>
absl::Status reduce_typed(const Launch& l, ReduceOp op, const KernelView& out, const KernelView& in,
                          const ReduceGeometry& g) {
  const char* name = op_name(op);
  const T* x = static_cast<const T*>(in.data);
  const auto flat = thrust::counting_iterator<int64_t>(0);
  const int blocks = blocks_for(l, g.segments);
  if (op == ReduceOp::kArgMax || op == ReduceOp::kArgMin) {
    Scratch results(l, name), scratch(l, name);
    CUSTODY_RETURN_IF_ERROR(results.allocate(sizeof(Arg<T>) * g.segments));
    auto* acc = static_cast<Arg<T>*>(results.get());
    const Arg<T> none{-1, T()};
    if (g.count == 0) {
      fill_acc<Arg<T>><<<blocks, kThreads, 0, l.stream>>>(acc, g.segments, none);
    } else {
      CUSTODY_RETURN_IF_ERROR(cub_reduce<Arg<T>>(
          l, name, thrust::make_transform_iterator(flat, LoadArg<T>{x, g}), g,
          ArgOp<T>{op == ReduceOp::kArgMax}, none, acc, &scratch));
    }
    finish_arg<T><<<blocks, kThreads, 0, l.stream>>>(static_cast<int64_t*>(out.data), acc, g);
    return launched(name);
  }
  // Floating sums in double, as the CPU loops; integer sums wrap in int64 (core
  // casts every integer dtype to int64 before a sum and refuses an integer mean,
  // so no other type needs these CUB instantiations, each one nvcc minutes).
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  if constexpr (!std::is_floating_point_v<T> && !std::is_same_v<T, int64_t>) {
    if (op == ReduceOp::kSum || op == ReduceOp::kMean) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "cuda %s: integers are summed in int64 (core converts them first)", name));
    }
  } else if (op == ReduceOp::kSum || op == ReduceOp::kMean) {
    Scratch results(l, name), scratch(l, name);
    CUSTODY_RETURN_IF_ERROR(results.allocate(sizeof(Acc) * g.segments));
    auto* acc = static_cast<Acc*>(results.get());
    if (g.count == 0) {
      fill_acc<Acc><<<blocks, kThreads, 0, l.stream>>>(acc, g.segments, Acc(0));
    } else {
      CUSTODY_RETURN_IF_ERROR(cub_reduce<Acc>(
          l, name, thrust::make_transform_iterator(flat, LoadAcc<T, Acc>{x, g}), g, SumOp<Acc>{},
          Acc(0), acc, &scratch));
    }
    finish_reduce<T, Acc><<<blocks, kThreads, 0, l.stream>>>(static_cast<T*>(out.data), acc, g,
                                                              op == ReduceOp::kMean);
    return launched(name);
  }
  // max / min: core refuses an empty reduction, as ATen.
  if (g.count == 0) {
    return absl::InvalidArgumentError(absl::StrFormat("cuda %s: empty reduction", name));
  }
  Scratch results(l, name), scratch(l, name);
  CUSTODY_RETURN_IF_ERROR(results.allocate(sizeof(T) * g.segments));
  auto* acc = static_cast<T*>(results.get());
  const auto load = thrust::make_transform_iterator(flat, LoadAcc<T, T>{x, g});
  // The identities of max_nan / min_nan: -inf / +inf for floats (not the
  // largest finite value: max over all -inf is -inf), the extremes for integers.
  T lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
  if constexpr (std::numeric_limits<T>::has_infinity) {
    lowest = -std::numeric_limits<T>::infinity();
    highest = std::numeric_limits<T>::infinity();
  }
  if (op == ReduceOp::kMax) {
    CUSTODY_RETURN_IF_ERROR(cub_reduce<T>(l, name, load, g, MaxOp<T>{}, lowest, acc, &scratch));
  } else {
    CUSTODY_RETURN_IF_ERROR(cub_reduce<T>(l, name, load, g, MinOp<T>{}, highest, acc, &scratch));
  }
  finish_reduce<T, T><<<blocks, kThreads, 0, l.stream>>>(static_cast<T*>(out.data), acc, g, false);
  return launched(name);
}

// ---- softmax: one block per row ------------------------------------------------------

struct RowGeometry {
  int nd = 0;
  int64_t sizes[kMaxDims], in_strides[kMaxDims], out_strides[kMaxDims];  // the other dims
  int64_t rows = 1, len = 0, in_step = 0, out_step = 0;                  // along `dim`
};

template <class T>
struct MaxNanOp {
  __device__ T operator()(const T& a, const T& b) const { return element::max_nan(a, b); }
};

template <class T>
__global__ void softmax_kernel(T* out, const T* in, RowGeometry g, bool log) {
  using BlockReduceT = cub::BlockReduce<T, kThreads>;
  using BlockReduceD = cub::BlockReduce<double, kThreads>;
  __shared__ union {
    typename BlockReduceT::TempStorage t;
    typename BlockReduceD::TempStorage d;
  } temp;
  __shared__ T row_max;
  __shared__ double row_sum;
  for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
    int64_t rest = r, in_off = 0, out_off = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      const int64_t idx = rest % g.sizes[d];
      rest /= g.sizes[d];
      in_off += idx * g.in_strides[d];
      out_off += idx * g.out_strides[d];
    }
    const T* x = in + in_off;
    T* o = out + out_off;
    // The CPU loop's formula (loops.cc softmax_loop): max with NaN
    // propagating, the sum of exp(x - max) in double.
    T mx = -std::numeric_limits<T>::infinity();
    for (int64_t k = threadIdx.x; k < g.len; k += blockDim.x) mx = element::max_nan(mx, x[k * g.in_step]);
    mx = BlockReduceT(temp.t).Reduce(mx, MaxNanOp<T>{});
    if (threadIdx.x == 0) row_max = mx;
    __syncthreads();
    mx = row_max;
    double sum = 0;
    for (int64_t k = threadIdx.x; k < g.len; k += blockDim.x) {
      sum += exp(static_cast<double>(x[k * g.in_step] - mx));
    }
    sum = BlockReduceD(temp.d).Sum(sum);
    if (threadIdx.x == 0) row_sum = sum;
    __syncthreads();
    sum = row_sum;
    if (log) {
      const T lse = static_cast<T>(::log(sum));
      for (int64_t k = threadIdx.x; k < g.len; k += blockDim.x) {
        o[k * g.out_step] = x[k * g.in_step] - mx - lse;
      }
    } else {
      for (int64_t k = threadIdx.x; k < g.len; k += blockDim.x) {
        o[k * g.out_step] = static_cast<T>(exp(static_cast<double>(x[k * g.in_step] - mx)) / sum);
      }
    }
    __syncthreads();  // temp and the row values are reused by the next row
  }
}

// ---- matmul for integer dtypes ------------------------------------------------------

template <class T>
__global__ void matmul_kernel(T* c, const T* a, const T* b, int64_t batch, int64_t n, int64_t m,
                              int64_t k, int64_t as0, int64_t as1, int64_t as2, int64_t bs0,
                              int64_t bs1, int64_t bs2, int64_t cs0, int64_t cs1, int64_t cs2) {
  const int64_t total = batch * n * m;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += step) {
    const int64_t j = t % m, i = (t / m) % n, bi = t / (m * n);
    T acc = T(0);
    for (int64_t kk = 0; kk < k; ++kk) {
      acc = element::wrap_add(acc, element::wrap_mul(a[bi * as0 + i * as1 + kk * as2],
                                                     b[bi * bs0 + kk * bs1 + j * bs2]));
    }
    c[bi * cs0 + i * cs1 + j * cs2] = acc;
  }
}

// ---- index_select -------------------------------------------------------------------

// The first position (lowest) whose index is outside [0, size), or ~0.
__global__ void check_indices_kernel(const int64_t* index, int64_t n, int64_t stride, int64_t size,
                                     unsigned long long* first_bad) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t v = index[i * stride];
    if (v < 0 || v >= size) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

struct GatherGeometry {
  int nd = 0;
  int64_t sizes[kMaxDims], out_strides[kMaxDims], in_strides[kMaxDims];  // elements
  int dim = 0;
  int64_t numel = 0, index_stride = 0;
};

template <class E>  // an unsigned integer type of the element's size
__global__ void gather_kernel(E* out, const E* in, const int64_t* index, GatherGeometry g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.numel;
       i += step) {
    int64_t rest = i, out_off = 0, in_off = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      int64_t idx = rest % g.sizes[d];
      rest /= g.sizes[d];
      out_off += idx * g.out_strides[d];
      if (d == g.dim) idx = index[idx * g.index_stride];
      in_off += idx * g.in_strides[d];
    }
    out[out_off] = in[in_off];
  }
}

}  // namespace

// ---- the kernels of kernels.h ---------------------------------------------------------

absl::Status copy(const Launch& l, const KernelView& dst, const KernelView& src) {
  absl::Status st;
  visit_dtype(src.dtype, [&](auto stag) {
    using S = typename decltype(stag)::type;
    if (dst.dtype == src.dtype) {
      st = map<2>(l, "copy", dst.sizes, {dst, src}, CopyFn<S, S>{});
    } else {
      st = map<2>(l, "copy", dst.sizes, {dst, src}, ConvertFn<S>{dst.dtype});
    }
  });
  return st;
}

absl::Status fill(const Launch& l, const KernelView& dst, const Scalar& value) {
  absl::Status st;
  visit_dtype(dst.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = map<1>(l, "fill", dst.sizes, {dst}, FillFn<T>{scalar_as<T>(value)});
  });
  return st;
}

absl::Status binary(const Launch& l, BinaryOp op, const KernelView& out, const KernelView& a,
                    const KernelView& b) {
  absl::Status st;
  visit_compute_or_unsigned_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (op == BinaryOp::kAdd) {
      st = map<3>(l, op_name(op), out.sizes, {out, a, b}, AddFn<T>{});
    } else {
      st = map<3>(l, op_name(op), out.sizes, {out, a, b}, BinaryFn<T>{op});
    }
  });
  return st;
}

absl::Status binary_scalar(const Launch& l, BinaryOp op, const KernelView& out,
                           const KernelView& a, const Scalar& s, bool scalar_first) {
  absl::Status st;
  visit_compute_or_unsigned_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = map<2>(l, op_name(op), out.sizes, {out, a},
                BinaryScalarFn<T>{op, scalar_as<T>(s), scalar_first});
  });
  return st;
}

absl::Status unary(const Launch& l, UnaryOp op, const KernelView& out, const KernelView& in) {
  absl::Status st;
  visit_compute_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = map<2>(l, op_name(op), out.sizes, {out, in}, UnaryFn<T>{op});
  });
  return st;
}

absl::Status where(const Launch& l, const KernelView& out, const KernelView& cond,
                   const KernelView& a, const KernelView& b) {
  absl::Status st;
  visit_compute_or_unsigned_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = map<4>(l, "where", out.sizes, {out, cond, a, b}, WhereFn<T>{});
  });
  return st;
}

absl::Status reduce(const Launch& l, ReduceOp op, const KernelView& out, const KernelView& in) {
  ReduceGeometry g;
  CUSTODY_RETURN_IF_ERROR(make_reduce_geometry(op_name(op), out, in, &g));
  if (g.segments == 0) return absl::OkStatus();
  absl::Status st;
  visit_compute_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = reduce_typed<T>(l, op, out, in, g);
  });
  return st;
}

absl::Status softmax(const Launch& l, const KernelView& out, const KernelView& in, int64_t dim,
                     bool log) {
  RowGeometry g;
  g.len = in.sizes[dim];
  g.in_step = in.strides[dim];
  g.out_step = out.strides[dim];
  for (size_t d = 0; d < in.sizes.size(); ++d) {
    if (static_cast<int64_t>(d) == dim || in.sizes[d] == 1) continue;
    if (g.nd == kMaxDims) return too_many_dims(log ? "log_softmax" : "softmax", in.sizes.size());
    g.sizes[g.nd] = in.sizes[d];
    g.in_strides[g.nd] = in.strides[d];
    g.out_strides[g.nd] = out.strides[d];
    ++g.nd;
    g.rows *= in.sizes[d];
  }
  if (g.rows == 0 || g.len == 0) return absl::OkStatus();
  const int blocks = static_cast<int>(std::min<int64_t>(g.rows, int64_t{1} << 20));
  absl::Status st;
  visit_compute_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      softmax_kernel<T><<<blocks, kThreads, 0, l.stream>>>(
          static_cast<T*>(out.data), static_cast<const T*>(in.data), g, log);
      st = launched(log ? "log_softmax" : "softmax");
    } else {
      st = absl::InvalidArgumentError("cuda softmax: a floating dtype is required");
    }
  });
  return st;
}

absl::Status matmul_integral(const Launch& l, const KernelView& out, const KernelView& a,
                             const KernelView& b) {
  const int64_t batch = out.sizes[0], n = out.sizes[1], m = out.sizes[2], k = a.sizes[2];
  const int64_t total = batch * n * m;
  if (total == 0) return absl::OkStatus();
  absl::Status st;
  visit_compute_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    matmul_kernel<T><<<blocks_for(l, total), kThreads, 0, l.stream>>>(
        static_cast<T*>(out.data), static_cast<const T*>(a.data), static_cast<const T*>(b.data),
        batch, n, m, k, a.strides[0], a.strides[1], a.strides[2], b.strides[0], b.strides[1],
        b.strides[2], out.strides[0], out.strides[1], out.strides[2]);
    st = launched("matmul");
  });
  return st;
}

absl::Status index_select(const Launch& l, const KernelView& out, const KernelView& in,
                          int64_t dim, const KernelView& index) {
  const int64_t n = index.sizes[0];
  const int64_t size = in.sizes[dim];
  if (n > 0) {
    // The check: the first bad position, copied back (this waits for the stream).
    Scratch flag(l, "index_select");
    CUSTODY_RETURN_IF_ERROR(flag.allocate(sizeof(unsigned long long)));
    auto* first_bad = static_cast<unsigned long long*>(flag.get());
    cudaError_t err = cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), l.stream);
    if (err != cudaSuccess) return cuda_status("index_select", err);
    check_indices_kernel<<<blocks_for(l, n), kThreads, 0, l.stream>>>(
        static_cast<const int64_t*>(index.data), n, index.strides[0], size, first_bad);
    CUSTODY_RETURN_IF_ERROR(launched("index_select"));
    unsigned long long bad = 0;
    err = cudaMemcpyAsync(&bad, first_bad, sizeof(bad), cudaMemcpyDeviceToHost, l.stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(l.stream);
    if (err != cudaSuccess) return cuda_status("index_select", err);
    if (bad != ~0ull) {
      int64_t value = 0;
      const int64_t* at = static_cast<const int64_t*>(index.data) +
                          static_cast<int64_t>(bad) * index.strides[0];
      err = cudaMemcpyAsync(&value, at, sizeof(value), cudaMemcpyDeviceToHost, l.stream);
      if (err == cudaSuccess) err = cudaStreamSynchronize(l.stream);
      if (err != cudaSuccess) return cuda_status("index_select", err);
      return index_out_of_range("index_select", value, dim, size, in.sizes);
    }
  }
  GatherGeometry g;
  if (out.sizes.size() > static_cast<size_t>(kMaxDims)) {
    return too_many_dims("index_select", out.sizes.size());
  }
  g.nd = static_cast<int>(out.sizes.size());
  g.dim = static_cast<int>(dim);
  g.numel = 1;
  for (int d = 0; d < g.nd; ++d) {
    g.sizes[d] = out.sizes[d];
    g.out_strides[d] = out.strides[d];
    g.in_strides[d] = in.strides[d];
    g.numel *= out.sizes[d];
  }
  g.index_stride = index.strides[0];
  if (g.numel == 0) return absl::OkStatus();
  const int blocks = blocks_for(l, g.numel);
  const auto* idx = static_cast<const int64_t*>(index.data);
  switch (element_size(in.dtype)) {
    case 1:
      gather_kernel<uint8_t><<<blocks, kThreads, 0, l.stream>>>(
          static_cast<uint8_t*>(out.data), static_cast<const uint8_t*>(in.data), idx, g);
      break;
    case 2:
      gather_kernel<uint16_t><<<blocks, kThreads, 0, l.stream>>>(
          static_cast<uint16_t*>(out.data), static_cast<const uint16_t*>(in.data), idx, g);
      break;
    case 4:
      gather_kernel<uint32_t><<<blocks, kThreads, 0, l.stream>>>(
          static_cast<uint32_t*>(out.data), static_cast<const uint32_t*>(in.data), idx, g);
      break;
    default:
      gather_kernel<uint64_t><<<blocks, kThreads, 0, l.stream>>>(
          static_cast<uint64_t*>(out.data), static_cast<const uint64_t*>(in.data), idx, g);
      break;
  }
  return launched("index_select");
}

absl::Status random(const Launch& l, const KernelView& out, RandomDist dist,
                    const RandomParams& params) {
  absl::Status st;
  visit_compute_or_unsigned_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = map<1>(l, "random", out.sizes, {out}, RandomFn<T>{dist, params});
  });
  return st;
}

}  // namespace custody::cuda_internal
