// Copyright 2026 The custody Authors.
//
// backends/cuda/cuda_benchmark.cc — the CUDA backend on a GPU (scope:cuda),
// against the CUDA runtime and cuBLAS called directly; PyTorch's side of the
// same cases is tools/gpu/torch_peer.py, and tools/gpu/report.py puts the two
// together (tools/gpu/README.md):
//
//   add_16M/scope:cuda, add_64M/scope:cuda
//        c = a + b over 16M / 64M float32 elements into a fresh result
//        (released); bytes = 3 x 4 per element (read a, read b, write c)
//   d2d_copy_16M/cudaMemcpyAsync, d2d_copy_64M/cudaMemcpyAsync
//        one device-to-device cudaMemcpyAsync on the backend's stream that
//        moves the same bytes as the add: 6 bytes per add element copied
//        (read 6, write 6), so add bandwidth / copy bandwidth =
//        copy time / add time is "add bandwidth as a fraction of D2D copy
//        bandwidth" (issue target: >= 0.85)
//   strided_copy_16M/scope:cuda, strided_copy_64M/scope:cuda
//        dst.copy_(src.t()) on the same bytes: a [4096, m / 4096] float32
//        result from the transpose of a contiguous [m / 4096, 4096] one,
//        through custody's strided copy kernel (a copy between contiguous
//        tensors of one dtype is one cudaMemcpyAsync, Cuda::copy, which
//        d2d_copy/cudaMemcpyAsync already times)
//   add_1/scope:cuda
//        latency of a 1-element add: c = a + b, c released,
//        Cuda::synchronize(), per iteration (target: <= 0.5x PyTorch eager)
//   matmul/n=4096/scope:cuda, matmul/n=4096/cublas_direct
//        [4096, 4096] x [4096, 4096] float32 (no TF32); the direct one is
//        cublasSgemm on the backend's stream into a preallocated result
//        (target vs torch.matmul: >= 0.9x its throughput)
//   sum/4096x4096/scope:cuda            over everything
//   softmax/4096x4096,dim=1/scope:cuda
//
// Timing: real time, with the GPU's work inside it. The throughput cases run
// in batches (state.KeepRunningBatch): a batch queues kBatch ops, then waits
// for the stream (Cuda::synchronize(), or cudaStreamSynchronize for the
// direct contenders), so the time per iteration is the GPU time per op plus
// whatever host time the queue did not hide, with the synchronization
// round-trip amortized over the batch. The latency case synchronizes after
// every op: that round-trip is part of what a 1-element add costs a caller.
// torch_peer.py measures PyTorch the same way.
//
// Counters: `bytes` (per op; with bytes_per_second) and `flop` (per op; with
// FLOP/s) — report.py computes bandwidths from `bytes` and the time.
//
// Without a usable GPU every benchmark skips with
// "no CUDA device found: ..." (an error row in the JSON, exit status 0).
//
//   ./bazelw run --config=cuda --config=opt //backends/cuda:cuda_benchmark --
//       --benchmark_filter='add_|copy' --benchmark_repetitions=5

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda.h"
#include "backends/cuda/device_allocator.h"
#include "benchmark/benchmark.h"
#include "core/random.h"
#include "core/tensor.h"
#include "policies/scope/scope.h"

namespace custody::cuda_bench {
namespace {

using T = BasicTensor<scope::Policy, Cuda>;
constexpr const char* kContender = "scope:cuda";

constexpr int64_t k16M = int64_t{16} << 20;
constexpr int64_t k64M = int64_t{64} << 20;
constexpr int64_t kMatmulN = 4096;
constexpr int64_t kRows = 4096, kCols = 4096;

// Ops queued per synchronization in the throughput cases: enough that the
// round-trip is noise, few enough that a batch stays well under a second.
constexpr int kBatchElementwise = 16;
constexpr int kBatchMatmul = 4;

// ---- helpers ---------------------------------------------------------------------

// False (and the benchmark marked skipped with the reason) without a usable GPU.
bool device_or_skip(benchmark::State& state) {
  if (Cuda::available()) return true;
  const absl::Status why = Cuda::availability();
  state.SkipWithError(why.ok() ? "no CUDA device found: Cuda::available() is false"
                               : std::string(why.message()).c_str());
  return false;
}

// Marks the benchmark failed with `what: status` (a kernel fault found by a synchronize).
bool ok_or_error(benchmark::State& state, const absl::Status& s, const char* what) {
  if (s.ok()) return true;
  state.SkipWithError(absl::StrCat(what, ": ", s.ToString()).c_str());
  return false;
}

bool cuda_ok_or_error(benchmark::State& state, cudaError_t err, const char* what) {
  if (err == cudaSuccess) return true;
  state.SkipWithError(absl::StrCat(what, " failed: ", cudaGetErrorString(err)).c_str());
  return false;
}

// The backend's one stream (Note [Stream-ordered pool], device_allocator.h).
// Called after the backend has allocated (so its allocator exists and this
// returns that one, whatever the stats argument).
absl::StatusOr<cudaStream_t> backend_stream() {
  absl::StatusOr<cuda_internal::DeviceAllocator*> a =
      cuda_internal::DeviceAllocator::for_device(Cuda::device().index(), &Cuda::stats());
  if (!a.ok()) return a.status();
  return (*a)->stream();
}

// Runs `body(state)` inside a dispose scope (every tensor the body creates is
// registered there; the body releases what it makes in its loop), turning a
// custody::Error thrown by an op into a failed benchmark that says what it was.
template <class Body>
void guarded(benchmark::State& state, Body body) {
  if (!device_or_skip(state)) return;
  try {
    scope::DisposeScope scope;
    body(state);
  } catch (const std::exception& e) {
    state.SkipWithError(absl::StrCat("exception: ", e.what()).c_str());
  }
  (void)Cuda::synchronize();
}

T input(std::initializer_list<int64_t> sizes, uint64_t seed) {
  manual_seed(seed);
  return T::randn(IntSpan(sizes.begin(), sizes.size()));
}

void set_bytes(benchmark::State& state, int64_t bytes_per_op) {
  state.SetBytesProcessed(state.iterations() * bytes_per_op);
  state.counters["bytes"] = static_cast<double>(bytes_per_op);
}

void set_flop(benchmark::State& state, double flop_per_op) {
  state.counters["flop"] = flop_per_op;
  state.counters["FLOP/s"] = benchmark::Counter(flop_per_op, benchmark::Counter::kIsIterationInvariantRate);
}

// Queues `op()` kBatch times per batch, then synchronizes the backend.
template <class Op>
void batched(benchmark::State& state, int batch, Op op) {
  op();  // warm-up: first-use setup (cuBLAS handle, pool growth) outside the timing
  if (!ok_or_error(state, Cuda::synchronize(), "warm-up")) return;
  while (state.KeepRunningBatch(batch)) {
    for (int i = 0; i < batch; ++i) op();
    if (!ok_or_error(state, Cuda::synchronize(), "synchronize")) return;
  }
}

// ---- custody ---------------------------------------------------------------------

void add_fresh(benchmark::State& state, int64_t n) {
  guarded(state, [n](benchmark::State& st) {
    T a = input({n}, 1), b = input({n}, 2);
    batched(st, kBatchElementwise, [&] {
      T c = a + b;
      custody::release(c);
    });
    set_bytes(st, 3 * 4 * n);
  });
}

// Copy elements moving the same bytes as an add over n float32 elements:
// 12n bytes = read 6n + write 6n.
constexpr int64_t copy_elements_for_add(int64_t n) { return n * 3 / 2; }
// The strided copy's rows: m / kStridedRows columns (6144 for 16M, 24576 for 64M).
constexpr int64_t kStridedRows = 4096;
static_assert(copy_elements_for_add(k16M) % kStridedRows == 0 &&
              copy_elements_for_add(k64M) % kStridedRows == 0);

// A transpose made contiguous: the source read with a stride of kStridedRows
// elements, so no dims merge and custody's copy kernel does the index
// arithmetic per element (not cudaMemcpyAsync, which Cuda::copy uses between
// contiguous tensors).
void strided_copy_custody(benchmark::State& state, int64_t add_n) {
  guarded(state, [add_n](benchmark::State& st) {
    const int64_t m = copy_elements_for_add(add_n), cols = m / kStridedRows;
    T src = input({cols, kStridedRows}, 1), dst = T::empty({kStridedRows, cols});
    T view = src.t();
    batched(st, kBatchElementwise, [&] {
      T r = dst.copy_(view);
      custody::release(r);
    });
    set_bytes(st, 2 * 4 * m);
  });
}

// cudaMemcpyAsync device to device on the backend's stream, between blocks of
// the backend's pool: the bandwidth the add is measured against.
void copy_memcpy(benchmark::State& state, int64_t add_n) {
  if (!device_or_skip(state)) return;
  const size_t bytes = static_cast<size_t>(copy_elements_for_add(add_n)) * 4;
  absl::StatusOr<void*> src = Cuda::allocate(bytes);
  if (!ok_or_error(state, src.status(), "allocate")) return;
  absl::StatusOr<void*> dst = Cuda::allocate(bytes);
  if (!ok_or_error(state, dst.status(), "allocate")) {
    Cuda::deallocate(*src, bytes);
    return;
  }
  absl::StatusOr<cudaStream_t> stream = backend_stream();
  if (ok_or_error(state, stream.status(), "backend stream") &&
      cuda_ok_or_error(state, cudaMemsetAsync(*src, 0x3c, bytes, *stream), "cudaMemsetAsync") &&
      cuda_ok_or_error(state, cudaStreamSynchronize(*stream), "cudaStreamSynchronize")) {
    while (state.KeepRunningBatch(kBatchElementwise)) {
      for (int i = 0; i < kBatchElementwise; ++i) {
        (void)cudaMemcpyAsync(*dst, *src, bytes, cudaMemcpyDeviceToDevice, *stream);
      }
      if (!cuda_ok_or_error(state, cudaStreamSynchronize(*stream), "cudaMemcpyAsync")) break;
    }
    set_bytes(state, 2 * static_cast<int64_t>(bytes));
  }
  Cuda::deallocate(*dst, bytes);
  Cuda::deallocate(*src, bytes);
  (void)Cuda::synchronize();
}

// What one tiny op costs a caller: issue, result given back, wait for the GPU.
void add_latency(benchmark::State& state) {
  guarded(state, [](benchmark::State& st) {
    T a = input({1}, 1), b = input({1}, 2);
    {
      T warm = a + b;  // first launch of the kernel outside the timing
      custody::release(warm);
    }
    if (!ok_or_error(st, Cuda::synchronize(), "warm-up")) return;
    for (auto _ : st) {
      T c = a + b;
      custody::release(c);
      if (!ok_or_error(st, Cuda::synchronize(), "synchronize")) break;
    }
  });
}

void matmul(benchmark::State& state) {
  guarded(state, [](benchmark::State& st) {
    T a = input({kMatmulN, kMatmulN}, 1), b = input({kMatmulN, kMatmulN}, 2);
    batched(st, kBatchMatmul, [&] {
      T c = a.matmul(b);
      custody::release(c);
    });
    set_flop(st, 2.0 * kMatmulN * kMatmulN * kMatmulN);
  });
}

// cublasSgemm (default math mode: no TF32) on the backend's stream, same
// inputs, preallocated result: what cuBLAS itself does with this shape.
void matmul_cublas(benchmark::State& state) {
  guarded(state, [](benchmark::State& st) {
    constexpr int n = static_cast<int>(kMatmulN);
    T a = input({kMatmulN, kMatmulN}, 1), b = input({kMatmulN, kMatmulN}, 2);
    T c = T::empty({kMatmulN, kMatmulN});
    absl::StatusOr<cudaStream_t> stream = backend_stream();
    if (!ok_or_error(st, stream.status(), "backend stream")) return;
    cublasHandle_t handle = nullptr;
    if (cublasStatus_t s = cublasCreate(&handle); s != CUBLAS_STATUS_SUCCESS) {
      st.SkipWithError(absl::StrCat("cublasCreate failed: ", cublasGetStatusString(s)).c_str());
      return;
    }
    (void)cublasSetStream(handle, *stream);
    const float one = 1.f, zero = 0.f;
    // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
    const float* pa = a.const_data_ptr<float>();
    const float* pb = b.const_data_ptr<float>();
    float* pc = c.mutable_data_ptr<float>();
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    const auto gemm = [&] {
      const cublasStatus_t s =
          cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, pb, n, pa, n, &zero, pc, n);
      if (s != CUBLAS_STATUS_SUCCESS) status = s;
    };
    gemm();  // warm-up: heuristics, workspace
    if (cuda_ok_or_error(st, cudaStreamSynchronize(*stream), "warm-up")) {
      while (st.KeepRunningBatch(kBatchMatmul)) {
        for (int i = 0; i < kBatchMatmul; ++i) gemm();
        if (!cuda_ok_or_error(st, cudaStreamSynchronize(*stream), "cublasSgemm")) break;
      }
      if (status != CUBLAS_STATUS_SUCCESS) {
        st.SkipWithError(absl::StrCat("cublasSgemm failed: ", cublasGetStatusString(status)).c_str());
      }
      set_flop(st, 2.0 * n * n * n);
    }
    cublasDestroy(handle);
  });
}

void sum(benchmark::State& state) {
  guarded(state, [](benchmark::State& st) {
    T x = input({kRows, kCols}, 1);
    batched(st, kBatchElementwise, [&] {
      T y = x.sum();
      custody::release(y);
    });
    set_bytes(st, 4 * kRows * kCols);
  });
}

void softmax(benchmark::State& state) {
  guarded(state, [](benchmark::State& st) {
    T x = input({kRows, kCols}, 1);
    batched(st, kBatchElementwise, [&] {
      T y = x.softmax(1);
      custody::release(y);
    });
    set_bytes(st, 2 * 4 * kRows * kCols);
  });
}

// ---- registration ------------------------------------------------------------------

template <class Fn, class... Args>
void add(const std::string& case_name, const std::string& who, Fn fn, Args... args) {
  benchmark::RegisterBenchmark(absl::StrCat(case_name, "/", who).c_str(),
                               [fn, args...](benchmark::State& state) { fn(state, args...); })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

[[maybe_unused]] const bool registered = [] {
  for (const auto& [label, n] : {std::pair<const char*, int64_t>{"16M", k16M}, {"64M", k64M}}) {
    add(absl::StrCat("add_", label), kContender, add_fresh, n);
    add(absl::StrCat("d2d_copy_", label), "cudaMemcpyAsync", copy_memcpy, n);
    add(absl::StrCat("strided_copy_", label), kContender, strided_copy_custody, n);
  }
  add("add_1", kContender, add_latency);
  add(absl::StrCat("matmul/n=", kMatmulN), kContender, matmul);
  add(absl::StrCat("matmul/n=", kMatmulN), "cublas_direct", matmul_cublas);
  add(absl::StrCat("sum/", kRows, "x", kCols), kContender, sum);
  add(absl::StrCat("softmax/", kRows, "x", kCols, ",dim=1"), kContender, softmax);
  return true;
}();

}  // namespace
}  // namespace custody::cuda_bench
