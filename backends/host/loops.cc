// Copyright 2026 The custody Authors.

#include "backends/host/loops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_format.h"
#include "backends/host/host.h"
#include "core/philox.h"

namespace custody::host {
namespace {

template <class T>
inline constexpr bool kFloat = std::is_floating_point_v<T>;

using element::apply_binary;

// std::vector<bool> is packed; accumulate bools as bytes (same representation as bool).
template <class T>
using Store = HostElement<T>;

}  // namespace

absl::Status copy_loop(const KernelView& dst, const KernelView& src) {
  if (dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    std::memmove(dst.data, src.data, static_cast<size_t>(dst.numel()) * element_size(dst.dtype));
    return absl::OkStatus();
  }
  visit_dtype(dst.dtype, [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    visit_dtype(src.dtype, [&](auto stag) {
      using S = typename decltype(stag)::type;
      map<D, S>(dst, [](S v) { return convert<D>(v); }, src);
    });
  });
  return absl::OkStatus();
}

absl::Status fill_loop(const KernelView& dst, const Scalar& v) {
  visit_dtype(dst.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T value;
    if constexpr (kIsHalfLike<T>) {
      value = T(static_cast<float>(v.to_double()));
    } else if (v.is_floating_point()) {
      value = convert<T>(v.to_double());
    } else {
      value = v.to<T>();
    }
    // Write through a 0-stride "input" so map() does the strided walk.
    const Dims zeros(dst.sizes.size(), 0);
    KernelView src{&value, dst.dtype, dst.sizes, zeros};
    map<T, T>(dst, [](T x) { return x; }, src);
  });
  return absl::OkStatus();
}

// Below this many elements the clones' checks and their call through the
// loader's choice cost more than the wider vectors save (docs/decisions.md
// has the measurements): the inlined baseline loop runs there.
constexpr int64_t kClonesMinElements = 64;

// add, sub, mul and div of dense float32 operands of one shape (a layer's
// bias gradient, an update, a residual) at the CPU's vector width: built for
// AVX-512, AVX2 and baseline x86-64, as Note [Relu clones].
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define CUSTODY_BINARY_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CUSTODY_BINARY_CLONES
#endif
CUSTODY_BINARY_CLONES
void binary_f32(BinaryOp op, float* o, const float* x, const float* y, int64_t n) {
  switch (op) {
    case BinaryOp::kAdd: for (int64_t i = 0; i < n; ++i) o[i] = x[i] + y[i]; break;
    case BinaryOp::kSub: for (int64_t i = 0; i < n; ++i) o[i] = x[i] - y[i]; break;
    case BinaryOp::kMul: for (int64_t i = 0; i < n; ++i) o[i] = x[i] * y[i]; break;
    default: for (int64_t i = 0; i < n; ++i) o[i] = x[i] / y[i]; break;
  }
}
#undef CUSTODY_BINARY_CLONES

absl::Status binary_loop(BinaryOp op, const KernelView& out, const KernelView& a, const KernelView& b) {
  if ((op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul || op == BinaryOp::kDiv) &&
      a.dtype == ScalarType::Float && b.dtype == ScalarType::Float && out.dtype == ScalarType::Float &&
      out.numel() >= kClonesMinElements && out.is_contiguous() && a.is_contiguous() && b.is_contiguous() &&
      a.sizes == out.sizes && b.sizes == out.sizes) {
    auto* o = static_cast<float*>(out.data);
    const auto* x = static_cast<const float*>(a.data);
    const auto* y = static_cast<const float*>(b.data);
    parallel_ranges(out.numel(),
                    [=](int64_t begin, int64_t end) { binary_f32(op, o + begin, x + begin, y + begin, end - begin); });
    return absl::OkStatus();
  }
  absl::Status st;
  visit_compute_or_unsigned_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (op) {  // comparisons: one loop per op, no switch per element
      case BinaryOp::kEq: map<bool, T, T>(out, [](T x, T y) { return x == y; }, a, b); return;
      case BinaryOp::kNe: map<bool, T, T>(out, [](T x, T y) { return x != y; }, a, b); return;
      case BinaryOp::kLt: map<bool, T, T>(out, [](T x, T y) { return x < y; }, a, b); return;
      case BinaryOp::kLe: map<bool, T, T>(out, [](T x, T y) { return x <= y; }, a, b); return;
      case BinaryOp::kGt: map<bool, T, T>(out, [](T x, T y) { return x > y; }, a, b); return;
      case BinaryOp::kGe: map<bool, T, T>(out, [](T x, T y) { return x >= y; }, a, b); return;
      default: break;
    }
    switch (op) {  // hoist the common ops out of the inner loop
      case BinaryOp::kAdd: map<T, T, T>(out, [](T x, T y) { return wrap_add(x, y); }, a, b); break;
      case BinaryOp::kSub: map<T, T, T>(out, [](T x, T y) { return wrap_sub(x, y); }, a, b); break;
      case BinaryOp::kMul: map<T, T, T>(out, [](T x, T y) { return wrap_mul(x, y); }, a, b); break;
      default: map<T, T, T>(out, [op](T x, T y) { return apply_binary(op, x, y); }, a, b);
    }
  });
  return st;
}

absl::Status binary_scalar_loop(BinaryOp op, const KernelView& out, const KernelView& a,
                                const Scalar& s, bool scalar_first) {
  absl::Status st;
  visit_compute_or_unsigned_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = s.is_floating_point() ? convert<T>(s.to_double()) : s.to<T>();
    // The scalar is captured, so each op is a one-input map the compiler can
    // vectorise; the rest go through the two-input loop with a broadcast view.
    if (!scalar_first) {
      switch (op) {
        case BinaryOp::kAdd: map<T, T>(out, [v](T x) { return wrap_add(x, v); }, a); return;
        case BinaryOp::kSub: map<T, T>(out, [v](T x) { return wrap_sub(x, v); }, a); return;
        case BinaryOp::kMul: map<T, T>(out, [v](T x) { return wrap_mul(x, v); }, a); return;
        case BinaryOp::kEq: map<bool, T>(out, [v](T x) { return x == v; }, a); return;
        case BinaryOp::kNe: map<bool, T>(out, [v](T x) { return x != v; }, a); return;
        case BinaryOp::kLt: map<bool, T>(out, [v](T x) { return x < v; }, a); return;
        case BinaryOp::kLe: map<bool, T>(out, [v](T x) { return x <= v; }, a); return;
        case BinaryOp::kGt: map<bool, T>(out, [v](T x) { return x > v; }, a); return;
        case BinaryOp::kGe: map<bool, T>(out, [v](T x) { return x >= v; }, a); return;
        default: break;
      }
    }
    const Dims zeros(a.sizes.size(), 0);
    KernelView sv{const_cast<T*>(&v), a.dtype, a.sizes, zeros};
    if (scalar_first) {
      st = binary_loop(op, out, sv, a);
    } else {
      st = binary_loop(op, out, a, sv);
    }
  });
  return st;
}

// Note [Scan clones]
// ~~~~~~~~~~~~~~~~~~
// The build targets baseline x86-64 (SSE2: 4 lanes), where this scan is bound
// by its arithmetic, not by memory, when it reads from cache (a block an
// eltwise primitive is about to read). GCC's target_clones compiles it
// also for AVX2 and AVX-512 and picks one when the program loads (an ifunc), by
// what the CPU has. The loop keeps a running max and min of the magnitudes'
// bits: two instructions per vector and nothing waiting on a compare's mask,
// so that from cache it reads about twice as fast as with a compare per
// element (`onednn_benchmark`'s special_scan). Not under ThreadSanitizer: the
// ifunc resolver runs before its runtime is up, and the program dies before
// main (backends/host:loops_test, --config=tsan).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define CUSTODY_SCAN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CUSTODY_SCAN_CLONES
#endif
CUSTODY_SCAN_CLONES
bool any_special_f32(const float* data, int64_t n, bool zeros_are_special) {
  const auto* bits = reinterpret_cast<const uint32_t*>(data);
  // m: the magnitude's bits. inf/NaN: m >= 0x7f800000; subnormal: 0 < m < 0x00800000, that
  // is m - 1 < 0x007fffff, 0 wrapping to the top; zero: m < 0x00800000 with the subnormals.
  // Only the largest m and the smallest m (or m - 1) are kept (Note [Scan clones]).
  uint32_t hi = 0;
  uint32_t lo = 0xffffffffu;
  if (zeros_are_special) {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t m = bits[i] & 0x7fffffffu;
      hi = std::max(hi, m);
      lo = std::min(lo, m);
    }
    return hi >= 0x7f800000u || lo < 0x00800000u;
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t m = bits[i] & 0x7fffffffu;
    hi = std::max(hi, m);
    lo = std::min(lo, m - 1u);
  }
  return hi >= 0x7f800000u || lo < 0x007fffffu;
}

// Note [Softmax rows]
// ~~~~~~~~~~~~~~~~~~~
// softmax and log_softmax of contiguous float32 rows, over the last dim, in
// three passes over each row, the row staying in the first-level cache after
// the first: (1) its max, read together with the special-value check of Note
// [Special values] (onednn.cc) -- the running max and min of the magnitudes'
// bits of Note [Scan clones] -- so that the check costs no pass of its own, as
// a scan in front of oneDNN's kernel did; (2) exp(x - max) and its sum, on 16
// lanes; (3) the scaling by 1 / sum (log_softmax: x - max - log(sum)). A row
// holding NaN, +-inf or a subnormal is left unwritten, for the loops, which
// give ATen's answers. The max is taken on the bits made sortable as signed
// integers (order-preserving for finite floats), which vectorises without
// -ffast-math. exp is exp_nonpositive below. Built for AVX-512, AVX2 and
// baseline x86-64 (target_clones), as Note [Scan clones].
namespace {

// exp(t) for t <= 0: Cephes' expf (range reduction by ln 2 in two parts, a
// degree-5 polynomial on [-ln2/2, ln2/2], the power of two added to the
// exponent's bits), about 1 ulp; 0 where exp(t) < 2^-124 (t < -86), which a
// sum holding exp(0) = 1 cannot see, and for t = -inf.
__attribute__((always_inline)) inline float exp_nonpositive(float t) {
  constexpr float kLowest = -86.0f;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 0x1.8p23f;  // adding it rounds |v| < 2^22 to an integer in the low bits
  const float tc = t < kLowest ? kLowest : t;
  const float z = tc * kLog2e + kRound;
  const float fn = z - kRound;
  const int32_t n = std::bit_cast<int32_t>(z) - std::bit_cast<int32_t>(kRound);
  float r = tc - fn * kLn2Hi;
  r = r - fn * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  const float scaled = std::bit_cast<float>(std::bit_cast<int32_t>(e) + n * (int32_t{1} << 23));
  return t < kLowest ? 0.0f : scaled;
}

// A float's bits as an int32 whose signed order is the float's (for non-NaN
// values; -0 just below +0), and back (the map is its own inverse).
__attribute__((always_inline)) inline int32_t sortable(int32_t b) { return b ^ ((b >> 31) & 0x7fffffff); }

constexpr int kSoftmaxLanes = 16;

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define CUSTODY_SOFTMAX_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CUSTODY_SOFTMAX_CLONES
#endif
CUSTODY_SOFTMAX_CLONES
int64_t softmax_rows_f32(float* out, const float* x, int64_t rows, int64_t cols, bool log) {
  for (int64_t row = 0; row < rows; ++row, x += cols, out += cols) {
    const auto* bits = reinterpret_cast<const int32_t*>(x);
    uint32_t hi = 0;
    uint32_t lo = 0xffffffffu;
    int32_t top = std::numeric_limits<int32_t>::min();
    for (int64_t k = 0; k < cols; ++k) {
      const uint32_t m = static_cast<uint32_t>(bits[k]) & 0x7fffffffu;
      hi = std::max(hi, m);
      lo = std::min(lo, m - 1u);  // as any_special_f32 without zeros
      top = std::max(top, sortable(bits[k]));
    }
    if (hi >= 0x7f800000u || lo < 0x007fffffu) return row;
    const float mx = std::bit_cast<float>(sortable(top));
    float acc[kSoftmaxLanes] = {};
    int64_t k = 0;
    if (log) {
      for (; k + kSoftmaxLanes <= cols; k += kSoftmaxLanes) {
        for (int l = 0; l < kSoftmaxLanes; ++l) acc[l] += exp_nonpositive(x[k + l] - mx);
      }
      for (int l = 0; k < cols; ++k, ++l) acc[l] += exp_nonpositive(x[k] - mx);
    } else {
      for (; k + kSoftmaxLanes <= cols; k += kSoftmaxLanes) {
        for (int l = 0; l < kSoftmaxLanes; ++l) {
          const float e = exp_nonpositive(x[k + l] - mx);
          out[k + l] = e;
          acc[l] += e;
        }
      }
      for (int l = 0; k < cols; ++k, ++l) {
        const float e = exp_nonpositive(x[k] - mx);
        out[k] = e;
        acc[l] += e;
      }
    }
    for (int w = kSoftmaxLanes / 2; w >= 1; w /= 2) {
      for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
    }
    if (log) {
      const float lse = std::log(acc[0]);
      for (k = 0; k < cols; ++k) out[k] = (x[k] - mx) - lse;
    } else {
      const float inv = 1.0f / acc[0];
      for (k = 0; k < cols; ++k) out[k] *= inv;
    }
  }
  return rows;
}
#undef CUSTODY_SOFTMAX_CLONES

// Note [Relu clones]
// ~~~~~~~~~~~~~~~~~~
// relu of dense float32, the activation of most small models, as one pass
// over memory at the CPU's vector width: built for AVX-512, AVX2 and baseline
// x86-64 (target_clones, as Note [Scan clones]), the loader picking one. It
// gives ATen's answers (NaN stays NaN), which oneDNN's relu does not: there
// it would need a scan for NaN first (Note [Special values],
// backends/onednn/onednn.cc), two passes where this is one, so the onednn
// backend sends every relu here.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define CUSTODY_RELU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CUSTODY_RELU_CLONES
#endif
CUSTODY_RELU_CLONES
void relu_f32(float* out, const float* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = element::apply_unary(UnaryOp::kRelu, in[i]);
}
#undef CUSTODY_RELU_CLONES

absl::Status unary_loop(UnaryOp op, const KernelView& out, const KernelView& in) {
  if (op == UnaryOp::kRelu && in.dtype == ScalarType::Float && out.dtype == ScalarType::Float &&
      out.numel() >= kClonesMinElements && in.is_contiguous() && out.is_contiguous()) {
    auto* o = static_cast<float*>(out.data);
    const auto* x = static_cast<const float*>(in.data);
    parallel_ranges(out.numel(), [o, x](int64_t begin, int64_t end) { relu_f32(o + begin, x + begin, end - begin); });
    return absl::OkStatus();
  }
  visit_compute_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (op) {  // the cheap ops out of the per-element switch: a loop the compiler vectorises
      case UnaryOp::kRelu: map<T, T>(out, [](T x) { return element::apply_unary(UnaryOp::kRelu, x); }, in); break;
      case UnaryOp::kNeg: map<T, T>(out, [](T x) { return element::apply_unary(UnaryOp::kNeg, x); }, in); break;
      case UnaryOp::kAbs: map<T, T>(out, [](T x) { return element::apply_unary(UnaryOp::kAbs, x); }, in); break;
      default: map<T, T>(out, [op](T x) { return element::apply_unary(op, x); }, in);
    }
  });
  return absl::OkStatus();
}

absl::Status where_loop(const KernelView& out, const KernelView& cond, const KernelView& a,
                        const KernelView& b) {
  visit_compute_or_unsigned_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // A broadcast scalar branch (`where(mask, x, 0)`, relu's backward) is
    // captured by value: a two-input loop the compiler can vectorise.
    const auto scalar_of = [](const KernelView& v) {
      for (int64_t st : v.strides) {
        if (st != 0) return false;
      }
      return true;
    };
    if (scalar_of(b) && out.is_contiguous() && cond.is_contiguous() && a.is_contiguous()) {
      // Dense with a scalar branch: the mask read as bytes, so gcc vectorises the select.
      const T y = *static_cast<const T*>(b.data);
      T* o = static_cast<T*>(out.data);
      const uint8_t* c = static_cast<const uint8_t*>(cond.data);
      const T* x = static_cast<const T*>(a.data);
      parallel_ranges(out.numel(), [o, c, x, y](int64_t begin, int64_t end) {
        const T fill = y;  // a local: the compiler need not reload it after every store to o
#pragma omp simd
        for (int64_t i = begin; i < end; ++i) {
          const T xi = x[i];  // read unconditionally: a select, not a branch on random mask bits
          o[i] = c[i] != 0 ? xi : fill;
        }
      });
    } else if (scalar_of(b)) {
      const T y = *static_cast<const T*>(b.data);
      map<T, bool, T>(out, [y](bool c, T x) { return c ? x : y; }, cond, a);
    } else if (scalar_of(a)) {
      const T x = *static_cast<const T*>(a.data);
      map<T, bool, T>(out, [x](bool c, T y) { return c ? x : y; }, cond, b);
    } else if (out.is_contiguous() && cond.is_contiguous() && a.is_contiguous() && b.is_contiguous()) {
      T* o = static_cast<T*>(out.data);
      const uint8_t* c = static_cast<const uint8_t*>(cond.data);
      const T* x = static_cast<const T*>(a.data);
      const T* y = static_cast<const T*>(b.data);
      parallel_ranges(out.numel(), [o, c, x, y](int64_t begin, int64_t end) {
#pragma omp simd
        for (int64_t i = begin; i < end; ++i) {
          const T xi = x[i], yi = y[i];  // both read: a select, not a branch
          o[i] = c[i] != 0 ? xi : yi;
        }
      });
    } else {
      map<T, bool, T, T>(out, [](bool c, T x, T y) { return c ? x : y; }, cond, a, b);
    }
  });
  return absl::OkStatus();
}

// ---- reductions -------------------------------------------------------------------

namespace {
// Visits every element of `in` in row-major order with the linear index of its
// output slot (out has in's rank, size 1 on reduced dims) and its coordinate
// along `coord_dim` (or 0).
template <class T, class F>
void for_each_reduce(const KernelView& in, const KernelView& out, int64_t coord_dim, F&& f) {
  const int64_t nd = static_cast<int64_t>(in.sizes.size());
  const Dims out_contig = contiguous_strides(out.sizes);
  Dims idx(nd, 0);
  const int64_t n = in.numel();
  const char* base = static_cast<const char*>(in.data);
  const Dims bst = byte_strides(in);
  int64_t in_off = 0, out_lin = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(*reinterpret_cast<const T*>(base + in_off), out_lin, coord_dim >= 0 ? idx[coord_dim] : 0);
    for (int64_t d = nd - 1; d >= 0; --d) {
      const bool reduced = out.sizes[d] == 1 && in.sizes[d] != 1;
      if (++idx[d] < in.sizes[d]) {
        in_off += bst[d];
        if (!reduced) out_lin += out_contig[d];
        break;
      }
      in_off -= bst[d] * (in.sizes[d] - 1);
      if (!reduced) out_lin -= out_contig[d] * (in.sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

template <class T>
void write_out(const KernelView& out, const std::vector<T>& acc) {
  const Dims strides = contiguous_strides(out.sizes);
  KernelView src{const_cast<T*>(acc.data()), out.dtype, out.sizes, strides};
  (void)copy_loop(out, src);  // cannot fail
}
}  // namespace

namespace {
// Sum or mean of a contiguous float32/float64 tensor over its leading dims
// (in = [R, C] rows, out = C column totals; e.g. a bias gradient dy.sum(0)):
// rows are added into per-column double accumulators, columns split over the
// OpenMP threads. Same order of additions per column as the generic loop.
template <class T>
bool reduce_leading_dims(ReduceOp op, const KernelView& out, const KernelView& in) {
  if (!(std::is_same_v<T, float> || std::is_same_v<T, double>)) return false;
  if ((op != ReduceOp::kSum && op != ReduceOp::kMean) || !in.is_contiguous()) return false;
  const size_t nd = in.sizes.size();
  size_t k = 0;  // dims [0, k) are reduced, [k, nd) kept
  while (k < nd && out.sizes[k] == 1) ++k;
  for (size_t d = k; d < nd; ++d) {
    if (out.sizes[d] != in.sizes[d]) return false;
  }
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < k; ++d) rows *= in.sizes[d];
  for (size_t d = k; d < nd; ++d) cols *= in.sizes[d];
  if (rows <= 1 || cols <= 1) return false;
  const T* x = static_cast<const T*>(in.data);
  std::vector<double> acc(static_cast<size_t>(cols), 0.0);
  // Columns split over the threads; each thread adds every row into its columns.
  parallel_ranges(cols, [&](int64_t c0, int64_t c1) {
    double* a = acc.data();
    for (int64_t i = 0; i < rows; ++i) {
      const T* row = x + i * cols;
      for (int64_t j = c0; j < c1; ++j) a[j] += static_cast<double>(row[j]);
    }
  }, /*work=*/rows * cols);
  std::vector<Store<T>> res(acc.size());
  for (size_t j = 0; j < acc.size(); ++j) {
    res[j] = op == ReduceOp::kMean ? element::mean_of<T>(acc[j], rows) : static_cast<T>(acc[j]);
  }
  write_out(out, res);
  return true;
}

// The sum of n contiguous values in double, over 32 independent lanes (vector
// registers; one running sum would wait on each add's latency), folded pairwise.
// Built for AVX-512, AVX2 and baseline x86-64; the loader picks one per CPU
// (target_clones on the float and double overloads below: clang does not
// multiversion templates, so the body is an always-inlined template).
template <class T, int kLanes = 32>
__attribute__((always_inline)) inline double sum_as_double_body(const T* p, int64_t n) {
  double acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += static_cast<double>(p[j + l]);
  }
  for (int l = 0; j < n; ++j, ++l) acc[l] += static_cast<double>(p[j]);
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  }
  return acc[0];
}
//
// Not under ThreadSanitizer: target_clones makes ifunc resolvers, which the
// dynamic loader runs while relocating this library, before main() and before
// TSan's runtime is initialised; TSan instruments them and the process dies
// with SIGSEGV in the loader. A tsan build takes the baseline body.
#if defined(__SANITIZE_THREAD__)
#define CUSTODY_SUM_CLONES
#else
#define CUSTODY_SUM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
CUSTODY_SUM_CLONES double sum_as_double(const float* p, int64_t n) { return sum_as_double_body(p, n); }
CUSTODY_SUM_CLONES double sum_as_double(const double* p, int64_t n) { return sum_as_double_body(p, n); }

// The sums of `rows` contiguous rows of `cols` values, in double, into out[r]:
// one call for them all (no call per row), and a row shorter than
// kShortRow on 8 lanes (one AVX-512 register of doubles), whose fold costs 7
// adds where 32 lanes' costs 31: on 32 lanes a row of 32 floats, a small
// layer's activations, would be mostly fold.
constexpr int64_t kShortRow = 256;
template <class T>
__attribute__((always_inline)) inline void sum_rows_as_double_body(const T* x, int64_t rows, int64_t cols,
                                                                   double* out) {
  if (cols >= kShortRow) {
    for (int64_t r = 0; r < rows; ++r) out[r] = sum_as_double_body(x + r * cols, cols);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) out[r] = sum_as_double_body<T, 8>(x + r * cols, cols);
}
CUSTODY_SUM_CLONES void sum_rows_as_double(const float* x, int64_t rows, int64_t cols, double* out) {
  sum_rows_as_double_body(x, rows, cols, out);
}
CUSTODY_SUM_CLONES void sum_rows_as_double(const double* x, int64_t rows, int64_t cols, double* out) {
  sum_rows_as_double_body(x, rows, cols, out);
}
#undef CUSTODY_SUM_CLONES
// Other dtypes never get here (reduce_trailing_dims takes float and double only).
template <class T>
double sum_as_double(const T* p, int64_t n) { return sum_as_double_body(p, n); }
template <class T>
void sum_rows_as_double(const T* x, int64_t rows, int64_t cols, double* out) {
  sum_rows_as_double_body(x, rows, cols, out);
}

// Sum or mean of a contiguous float32/float64 tensor over its trailing dims
// (in = [R, C], out = R row totals; a full reduction is R = 1): each row is
// added in double with vector lanes (a pairwise-like split, so more accurate
// than one running sum). Rows are split over the threads; a row longer than
// the rows are many is cut into chunks whose partial sums are added at the end.
template <class T>
bool reduce_trailing_dims(ReduceOp op, const KernelView& out, const KernelView& in) {
  if (!(std::is_same_v<T, float> || std::is_same_v<T, double>)) return false;
  if ((op != ReduceOp::kSum && op != ReduceOp::kMean) || !in.is_contiguous()) return false;
  const size_t nd = in.sizes.size();
  size_t k = nd;  // dims [0, k) are kept, [k, nd) reduced
  while (k > 0 && out.sizes[k - 1] == 1) --k;
  for (size_t d = 0; d < k; ++d) {
    if (out.sizes[d] != in.sizes[d]) return false;
  }
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < k; ++d) rows *= in.sizes[d];
  for (size_t d = k; d < nd; ++d) cols *= in.sizes[d];
  if (cols <= 1 || rows == 0) return false;
  const int threads = rows * cols >= kParallelGrain ? custody::num_threads() : 1;
  const int64_t chunks = rows >= threads ? 1 : (threads + rows - 1) / rows;
  const T* x = static_cast<const T*>(in.data);
  std::vector<double> part(static_cast<size_t>(rows * chunks), 0.0);
  if (chunks == 1) {
    parallel_ranges(rows, [&](int64_t r0, int64_t r1) {
      sum_rows_as_double(x + r0 * cols, r1 - r0, cols, part.data() + r0);
    }, /*work=*/rows * cols);
  } else {
    parallel_ranges(rows * chunks, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t r = u / chunks, c = u % chunks;
        const T* p = x + r * cols + cols * c / chunks;
        const int64_t n = cols * (c + 1) / chunks - cols * c / chunks;
        part[static_cast<size_t>(u)] = sum_as_double(p, n);
      }
    }, /*work=*/rows * cols);
  }
  std::vector<Store<T>> res(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int64_t c = 0; c < chunks; ++c) s += part[static_cast<size_t>(r * chunks + c)];
    res[static_cast<size_t>(r)] =
        op == ReduceOp::kMean ? element::mean_of<T>(s, cols) : static_cast<T>(s);
  }
  write_out(out, res);
  return true;
}
}  // namespace

absl::Status reduce_loop(ReduceOp op, const KernelView& out, const KernelView& in) {
  const int64_t out_n = out.numel();
  int64_t coord_dim = -1;
  int64_t count = 1;
  for (size_t d = 0; d < in.sizes.size(); ++d) {
    if (out.sizes[d] == 1 && in.sizes[d] != 1) {
      coord_dim = static_cast<int64_t>(d);
      count *= in.sizes[d];
    }
  }
  visit_compute_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean: {
        if (reduce_leading_dims<T>(op, out, in) || reduce_trailing_dims<T>(op, out, in)) break;
        using Acc = std::conditional_t<kFloat<T>, double, Store<T>>;
        std::vector<Acc> acc(out_n, Acc(0));
        for_each_reduce<T>(in, out, -1, [&](T v, int64_t o, int64_t) {
          if constexpr (kFloat<T>) acc[o] += v;
          else acc[o] = static_cast<Acc>(wrap_add<T>(static_cast<T>(acc[o]), v));
        });
        if (op == ReduceOp::kMean) {  // count 0 gives nan, as ATen
          for (auto& a : acc) a = static_cast<Acc>(element::mean_of<Store<T>>(a, count));
        }
        std::vector<Store<T>> res(acc.begin(), acc.end());
        write_out(out, res);
        break;
      }
      case ReduceOp::kMax:
      case ReduceOp::kMin: {
        std::vector<Store<T>> acc(out_n);
        std::vector<bool> seen(out_n, false);
        const bool is_max = op == ReduceOp::kMax;
        for_each_reduce<T>(in, out, -1, [&](T v, int64_t o, int64_t) {
          if (!seen[o]) {
            acc[o] = v;
            seen[o] = true;
          } else {
            acc[o] = is_max ? max_nan<T>(acc[o], v) : min_nan<T>(acc[o], v);
          }
        });
        write_out(out, acc);
        break;
      }
      case ReduceOp::kArgMax:
      case ReduceOp::kArgMin: {
        std::vector<Store<T>> best(out_n);
        std::vector<int64_t> arg(out_n, -1);
        const bool is_max = op == ReduceOp::kArgMax;
        for_each_reduce<T>(in, out, coord_dim, [&](T v, int64_t o, int64_t c) {
          if (arg[o] < 0) {
            best[o] = v;
            arg[o] = c;
            return;
          }
          bool take;
          if constexpr (kFloat<T>) {
            if (std::isnan(static_cast<T>(best[o]))) take = false;  // first NaN wins
            else if (std::isnan(v)) take = true;
            else take = is_max ? v > best[o] : v < best[o];
          } else {
            take = is_max ? v > static_cast<T>(best[o]) : v < static_cast<T>(best[o]);
          }
          if (take) {
            best[o] = v;
            arg[o] = c;
          }
        });
        for (auto& a : arg) a = std::max<int64_t>(a, 0);
        write_out(out, arg);
        break;
      }
    }
  });
  return absl::OkStatus();
}

absl::Status softmax_loop(const KernelView& out, const KernelView& in, int64_t dim, bool log) {
  visit_compute_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kFloat<T>) {
      // Iterate over all positions with dim fixed at 0.
      OwnedKernelView in0(in), out0(out);
      in0.sizes[dim] = 1;
      out0.sizes[dim] = 1;
      const int64_t len = in.sizes[dim];
      const int64_t is = in.strides[dim], os = out.strides[dim];
      std::array<char*, 2> base{static_cast<char*>(out0.data), static_cast<char*>(in0.data)};
      std::array<Dims, 2> st{byte_strides(out0), byte_strides(in0)};
      strided_loop<2>(out0.sizes, base, st, [&](const std::array<char*, 2>& p,
                                                const std::array<int64_t, 2>& s, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
          T* o = reinterpret_cast<T*>(p[0] + j * s[0]);
          const T* x = reinterpret_cast<const T*>(p[1] + j * s[1]);
          T mx = -std::numeric_limits<T>::infinity();
          for (int64_t k = 0; k < len; ++k) mx = max_nan(mx, x[k * is]);
          double sum = 0;
          for (int64_t k = 0; k < len; ++k) sum += std::exp(static_cast<double>(x[k * is] - mx));
          if (log) {
            const T lse = static_cast<T>(std::log(sum));
            for (int64_t k = 0; k < len; ++k) o[k * os] = x[k * is] - mx - lse;
          } else {
            for (int64_t k = 0; k < len; ++k) {
              o[k * os] = static_cast<T>(std::exp(static_cast<double>(x[k * is] - mx)) / sum);
            }
          }
        }
      });
    }
  });
  return absl::OkStatus();
}

namespace {
// One batch dim: [B, n, k] x [B, k, m].
absl::Status matmul_loop3(const KernelView& out, const KernelView& a, const KernelView& b) {
  const int64_t batch = out.sizes[0], n = out.sizes[1], m = out.sizes[2], k = a.sizes[2];
  visit_compute_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = Store<T>;
    const T* A = static_cast<const T*>(a.data);
    const T* Bm = static_cast<const T*>(b.data);
    T* C = static_cast<T*>(out.data);
    std::vector<Acc> row(static_cast<size_t>(m));
    for (int64_t bi = 0; bi < batch; ++bi) {
      for (int64_t i = 0; i < n; ++i) {
        std::fill(row.begin(), row.end(), Acc(0));
        for (int64_t kk = 0; kk < k; ++kk) {
          const T av = A[bi * a.strides[0] + i * a.strides[1] + kk * a.strides[2]];
          const T* brow = Bm + bi * b.strides[0] + kk * b.strides[1];
          for (int64_t j = 0; j < m; ++j) {
            row[j] = static_cast<Acc>(wrap_add<T>(static_cast<T>(row[j]), wrap_mul<T>(av, brow[j * b.strides[2]])));
          }
        }
        for (int64_t j = 0; j < m; ++j) {
          C[bi * out.strides[0] + i * out.strides[1] + j * out.strides[2]] = static_cast<T>(row[j]);
        }
      }
    }
  });
  return absl::OkStatus();
}

}  // namespace

absl::Status matmul_loop(const KernelView& out, const KernelView& a, const KernelView& b) {
  return for_each_matmul_batch(out, a, b, matmul_loop3);
}

absl::Status index_select_loop(const KernelView& out, const KernelView& in, int64_t dim,
                               const KernelView& index) {
  CUSTODY_RETURN_IF_ERROR(host::check_indices(in, dim, index));
  const int64_t* idx = static_cast<const int64_t*>(index.data);
  for (int64_t i = 0; i < index.sizes[0]; ++i) {
    const int64_t v = idx[i * index.strides[0]];
    OwnedKernelView src(in), dst(out);
    src.sizes[dim] = 1;
    dst.sizes[dim] = 1;
    src.data = static_cast<char*>(in.data) + v * in.strides[dim] * element_size(in.dtype);
    dst.data = static_cast<char*>(out.data) + i * out.strides[dim] * element_size(out.dtype);
    CUSTODY_RETURN_IF_ERROR(copy_loop(dst, src));
  }
  return absl::OkStatus();
}

absl::Status random_loop(const KernelView& out, RandomDist dist, const RandomParams& p) {
  const int64_t n = out.numel();
  visit_compute_or_unsigned_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<Store<T>> vals(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t u = static_cast<uint64_t>(i);
      vals[i] = host::random_sample<T>(dist, p, u);
    }
    write_out(out, vals);
  });
  return absl::OkStatus();
}

}  // namespace custody::host
