// Copyright 2026 The custody Authors.

#include "backends/cuda/cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/cuda/device_allocator.h"
#include "backends/cuda/internal/errors.h"
#include "backends/cuda/internal/kernels.h"
#include "core/error.h"

namespace custody {

namespace cuda_internal {

absl::StatusOr<void*> scratch_allocate(const Launch& l, size_t bytes, const char* op) {
  return l.allocator->allocate_scratch(bytes, op);
}

void scratch_free(const Launch& l, void* p) { l.allocator->deallocate_scratch(p); }

}  // namespace cuda_internal

namespace {

using cuda_internal::cuda_status;
using cuda_internal::DeviceAllocator;
using cuda_internal::Launch;

constexpr int kDevice = 0;

// Everything the backend sets up once: device 0's pool and stream, a cuBLAS
// handle on that stream, the grid size that fills the device.
struct State {
  DeviceAllocator* allocator = nullptr;
  cublasHandle_t blas = nullptr;
  Launch launch;
};

absl::StatusOr<State*> make_state() {
  absl::StatusOr<DeviceAllocator*> allocator = DeviceAllocator::for_device(kDevice, &Cuda::stats());
  if (!allocator.ok()) return allocator.status();
  auto* s = new State;  // immortal, like the backend
  s->allocator = *allocator;
  s->launch.stream = (*allocator)->stream();
  s->launch.allocator = *allocator;
  int sms = 0, threads_per_sm = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDevice) == cudaSuccess &&
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, kDevice) ==
          cudaSuccess) {
    s->launch.max_blocks = std::max(1, sms * threads_per_sm / 256);
  }
  if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) {
    return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kInternal,
                      "cuda: cublasCreate failed (is libcublas installed and a device present?)");
  }
  // Every GEMM on the backend's stream (else on the legacy default stream,
  // racing our kernels), exact fp32 (no TF32), as torch.matmul by default.
  if (cublasSetStream(s->blas, s->launch.stream) != CUBLAS_STATUS_SUCCESS ||
      cublasSetMathMode(s->blas, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
    return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kInternal,
                      "cuda: cublasSetStream/cublasSetMathMode failed");
  }
  return s;
}

// The backend's state, for `op`: the device made current on the calling
// thread, and no fault of an earlier kernel pending (Note [Device faults],
// internal/errors.h).
absl::StatusOr<State*> state(const char* op) {
  static absl::StatusOr<State*>* s = new absl::StatusOr<State*>(make_state());
  if (s->ok()) {
    CUSTODY_RETURN_IF_ERROR(cuda_internal::pending_error_status(op, cudaPeekAtLastError()));
    // The backend's device current on this thread, whatever the caller set
    // since (cudaGetDevice reads a thread-local value: cheap).
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != kDevice) {
      if (cudaError_t err = cudaSetDevice(kDevice); err != cudaSuccess) {
        return cuda_status("cudaSetDevice", err);
      }
    }
  }
  return *s;
}

// Declares `State* s` (the backend's state) for `op`, or returns why there is none.
#define CUSTODY_CUDA_STATE(s, op)                   \
  absl::StatusOr<State*> s##_or = state(op);        \
  if (!s##_or.ok()) return s##_or.status();         \
  State* const s = *s##_or

// Declares `const Launch& l` (stream, allocator and grid size) for `op`, or
// returns why there is none.
#define CUSTODY_CUDA_LAUNCH(l, op)   \
  CUSTODY_CUDA_STATE(l##_state, op); \
  const Launch& l = l##_state->launch

// ---- matmul by cuBLAS -------------------------------------------------------------

// How cuBLAS (column-major) reads a [rows, cols] operand, if it can as is.
struct GemmOperand {
  bool ok = false;
  bool row_major = true;  // else column-major
  int64_t ld = 0;
};

GemmOperand gemm_operand(const KernelView& v, int64_t rows, int64_t cols) {
  const int64_t s1 = v.strides[1], s2 = v.strides[2];
  GemmOperand g;
  if ((cols == 1 || s2 == 1) && (rows == 1 || s1 >= std::max<int64_t>(cols, 1))) {
    g = {true, true, rows == 1 ? std::max<int64_t>(cols, 1) : s1};
  } else if ((rows == 1 || s1 == 1) && (cols == 1 || s2 >= std::max<int64_t>(rows, 1))) {
    g = {true, false, cols == 1 ? std::max<int64_t>(rows, 1) : s2};
  }
  if (g.ld > INT_MAX) g.ok = false;
  return g;
}

// A contiguous copy of `v` on the stream (for layouts cuBLAS cannot read).
absl::StatusOr<void*> contiguous_copy(const Launch& l, const KernelView& v, Dims* strides) {
  *strides = contiguous_strides(v.sizes);
  const size_t bytes = static_cast<size_t>(v.numel()) * element_size(v.dtype);
  absl::StatusOr<void*> p = cuda_internal::scratch_allocate(l, bytes, "matmul");
  if (!p.ok()) return p.status();
  const KernelView dst{*p, v.dtype, v.sizes, *strides};
  if (absl::Status st = cuda_internal::copy(l, dst, v); !st.ok()) {
    cuda_internal::scratch_free(l, *p);
    return st;
  }
  return p;
}

absl::Status cublas_status(cublasStatus_t st) {
  return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kInternal,
                    absl::StrFormat("cuda matmul: cuBLAS failed: %s (%s)",
                                    cublasGetStatusString(st), cublasGetStatusName(st)));
}

absl::Status gemm(State* s, const KernelView& out, const KernelView& a, const KernelView& b) {
  const Launch& l = s->launch;
  const int64_t batch = out.sizes[0], n = out.sizes[1], m = out.sizes[2], k = a.sizes[2];
  if (n > INT_MAX || m > INT_MAX || k > INT_MAX || batch > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cuda matmul: [%d, %d, %d] x [%d, %d, %d] has a dim beyond cuBLAS's int range", batch, n,
        k, batch, k, m));
  }
  // Operands cuBLAS cannot read as they are (e.g. a broadcast or permuted
  // view) are copied to contiguous scratch first; so is the output.
  KernelView av = a, bv = b, cv = out;
  Dims a_strides, b_strides, c_strides;
  void* scratch[3] = {nullptr, nullptr, nullptr};
  const auto free_scratch = [&] {
    for (void* p : scratch) cuda_internal::scratch_free(l, p);
  };
  GemmOperand ga = gemm_operand(av, n, k), gb = gemm_operand(bv, k, m);
  if (!ga.ok) {
    absl::StatusOr<void*> p = contiguous_copy(l, a, &a_strides);
    if (!p.ok()) return p.status();
    scratch[0] = *p;
    av = KernelView{*p, a.dtype, a.sizes, a_strides};
    ga = gemm_operand(av, n, k);
  }
  if (!gb.ok) {
    absl::StatusOr<void*> p = contiguous_copy(l, b, &b_strides);
    if (!p.ok()) {
      free_scratch();
      return p.status();
    }
    scratch[1] = *p;
    bv = KernelView{*p, b.dtype, b.sizes, b_strides};
    gb = gemm_operand(bv, k, m);
  }
  GemmOperand gc = gemm_operand(cv, n, m);
  const bool out_direct = gc.ok && gc.row_major && (batch == 1 || out.strides[0] >= n * gc.ld);
  if (!out_direct) {
    c_strides = contiguous_strides(out.sizes);
    const size_t bytes = static_cast<size_t>(out.numel()) * element_size(out.dtype);
    absl::StatusOr<void*> p = cuda_internal::scratch_allocate(l, bytes, "matmul");
    if (!p.ok()) {
      free_scratch();
      return p.status();
    }
    scratch[2] = *p;
    cv = KernelView{scratch[2], out.dtype, out.sizes, c_strides};
    gc = gemm_operand(cv, n, m);
  }
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS computes the
  // [m, n] column-major product of B^T ([m, k]) and A^T ([k, n]). A row-major
  // operand is its own transpose in column-major order (no op); a
  // column-major one needs the transpose op.
  const cublasOperation_t op_b = gb.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_a = ga.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasStatus_t st;
  if (a.dtype == ScalarType::Float) {
    const float alpha = 1, beta = 0;
    st = cublasSgemmStridedBatched(
        s->blas, op_b, op_a, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha,
        static_cast<const float*>(bv.data), static_cast<int>(gb.ld), bv.strides[0],
        static_cast<const float*>(av.data), static_cast<int>(ga.ld), av.strides[0], &beta,
        static_cast<float*>(cv.data), static_cast<int>(gc.ld), cv.strides[0],
        static_cast<int>(batch));
  } else {
    const double alpha = 1, beta = 0;
    st = cublasDgemmStridedBatched(
        s->blas, op_b, op_a, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha,
        static_cast<const double*>(bv.data), static_cast<int>(gb.ld), bv.strides[0],
        static_cast<const double*>(av.data), static_cast<int>(ga.ld), av.strides[0], &beta,
        static_cast<double*>(cv.data), static_cast<int>(gc.ld), cv.strides[0],
        static_cast<int>(batch));
  }
  // cuBLAS launches its kernels on our stream: a launch error it leaves
  // behind is matmul's, reported here and cleared (Note [Device faults]).
  absl::Status result = st == CUBLAS_STATUS_SUCCESS ? absl::OkStatus() : cublas_status(st);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess && result.ok()) {
    result = cuda_status("matmul (cuBLAS)", err);
  }
  if (result.ok() && !out_direct) result = cuda_internal::copy(l, out, cv);
  free_scratch();
  return result;
}

}  // namespace

// ---- memory --------------------------------------------------------------------------

MemoryStats& Cuda::stats() {
  static auto* s = new MemoryStats;
  return *s;
}

absl::Status Cuda::availability() {
  static const absl::Status* s = new absl::Status(cuda_internal::device_available());
  return *s;
}

bool Cuda::available() { return availability().ok(); }

absl::StatusOr<void*> Cuda::allocate(size_t bytes) {
  if (!available()) {  // a DeviceError, not an out-of-memory one
    return MakeStatus(ErrorKind::kDevice, absl::StatusCode::kUnavailable,
                      std::string(availability().message()));
  }
  CUSTODY_CUDA_STATE(s, "allocate");
  return s->allocator->allocate(bytes);
}

void Cuda::deallocate(void* p, size_t bytes) {
  absl::StatusOr<State*> s = state("deallocate");
  if (s.ok()) (*s)->allocator->deallocate(p, bytes);
}

absl::Status Cuda::copy_to_host(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  CUSTODY_CUDA_LAUNCH(l, "copy_to_host");
  cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, l.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(l.stream);
  return err == cudaSuccess ? absl::OkStatus() : cuda_status("copy_to_host", err);
}

absl::Status Cuda::copy_from_host(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  CUSTODY_CUDA_LAUNCH(l, "copy_from_host");
  cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, l.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(l.stream);
  return err == cudaSuccess ? absl::OkStatus() : cuda_status("copy_from_host", err);
}

absl::Status Cuda::synchronize() {
  CUSTODY_CUDA_LAUNCH(l, "synchronize");
  const cudaError_t err = cudaStreamSynchronize(l.stream);
  return err == cudaSuccess ? absl::OkStatus() : cuda_status("synchronize", err);
}

std::string Cuda::allocator_name() {
  absl::StatusOr<State*> s = state("allocator_name");
  return s.ok() ? (*s)->allocator->name() : absl::StrCat("none: ", s.status().message());
}

int64_t Cuda::reclaim() {
  absl::StatusOr<State*> s = state("reclaim");
  return s.ok() ? (*s)->allocator->reclaim() : 0;
}

absl::Status Cuda::set_release_threshold(uint64_t bytes) {
  CUSTODY_CUDA_STATE(s, "set_release_threshold");
  return s->allocator->set_release_threshold(bytes);
}

// ---- kernels ---------------------------------------------------------------------------

absl::Status Cuda::copy(const KernelView& dst, const KernelView& src) {
  CUSTODY_CUDA_LAUNCH(l, "copy");
  if (dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    const size_t bytes = static_cast<size_t>(dst.numel()) * element_size(dst.dtype);
    if (bytes == 0) return absl::OkStatus();
    const cudaError_t err =
        cudaMemcpyAsync(dst.data, src.data, bytes, cudaMemcpyDeviceToDevice, l.stream);
    return err == cudaSuccess ? absl::OkStatus() : cuda_status("copy", err);
  }
  return cuda_internal::copy(l, dst, src);
}

absl::Status Cuda::fill(const KernelView& dst, const Scalar& value) {
  CUSTODY_CUDA_LAUNCH(l, "fill");
  return cuda_internal::fill(l, dst, value);
}

absl::Status Cuda::binary(BinaryOp op, const KernelView& out, const KernelView& a,
                          const KernelView& b) {
  CUSTODY_CUDA_LAUNCH(l, op_name(op));
  return cuda_internal::binary(l, op, out, a, b);
}

absl::Status Cuda::binary_scalar(BinaryOp op, const KernelView& out, const KernelView& a,
                                 const Scalar& s, bool scalar_first) {
  CUSTODY_CUDA_LAUNCH(l, op_name(op));
  return cuda_internal::binary_scalar(l, op, out, a, s, scalar_first);
}

absl::Status Cuda::unary(UnaryOp op, const KernelView& out, const KernelView& in) {
  CUSTODY_CUDA_LAUNCH(l, op_name(op));
  return cuda_internal::unary(l, op, out, in);
}

absl::Status Cuda::where(const KernelView& out, const KernelView& cond, const KernelView& a,
                         const KernelView& b) {
  CUSTODY_CUDA_LAUNCH(l, "where");
  return cuda_internal::where(l, out, cond, a, b);
}

absl::Status Cuda::reduce(ReduceOp op, const KernelView& out, const KernelView& in) {
  CUSTODY_CUDA_LAUNCH(l, op_name(op));
  return cuda_internal::reduce(l, op, out, in);
}

absl::Status Cuda::softmax(const KernelView& out, const KernelView& in, int64_t dim, bool log) {
  CUSTODY_CUDA_LAUNCH(l, log ? "log_softmax" : "softmax");
  return cuda_internal::softmax(l, out, in, dim, log);
}

absl::Status Cuda::matmul(const KernelView& out, const KernelView& a, const KernelView& b) {
  CUSTODY_CUDA_STATE(s, "matmul");
  if (out.numel() == 0) return absl::OkStatus();
  if (a.sizes.back() == 0) return cuda_internal::fill(s->launch, out, Scalar(0));  // an empty sum
  // cuBLAS's strided batch and the integral kernel take one batch dim; more are split.
  return for_each_matmul_batch(out, a, b, [s](const KernelView& o3, const KernelView& a3,
                                              const KernelView& b3) {
    if (a3.dtype == ScalarType::Float || a3.dtype == ScalarType::Double) return gemm(s, o3, a3, b3);
    return cuda_internal::matmul_integral(s->launch, o3, a3, b3);
  });
}

absl::Status Cuda::index_select(const KernelView& out, const KernelView& in, int64_t dim,
                                const KernelView& index) {
  CUSTODY_CUDA_LAUNCH(l, "index_select");
  return cuda_internal::index_select(l, out, in, dim, index);
}

absl::Status Cuda::random(const KernelView& out, RandomDist dist, const RandomParams& params) {
  CUSTODY_CUDA_LAUNCH(l, "random");
  return cuda_internal::random(l, out, dist, params);
}

}  // namespace custody
