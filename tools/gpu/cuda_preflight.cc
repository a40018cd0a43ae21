// Copyright 2026 The custody Authors.
//
// cuda_preflight — the first thing run on a GPU machine (tools/gpu/device_check.sh): is there a
// device, which one, which allocator runs (memory pools or the cudaMalloc fallback, and why), and
// does each kind of kernel the backend has give the host's answer: a 1-element add (our elementwise
// kernels), a small cuBLAS matmul, a sum over 2^20 elements (CUB's DeviceReduce), argmax and
// softmax along the rows of a [64, 1000] matrix (CUB's segmented arg-reduction, our block-per-row
// softmax)? Prints one `key: value` line per fact and one `NAME: ... ok` (or `WRONG`, or `FAILED:
// why`) line per check. Exit status: 0 all good; 1 a check failed or gave a wrong answer; 3 no
// usable CUDA device.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "backends/cuda/cuda.h"
#include "core/error.h"
#include "core/tensor.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace {

using T = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Cuda>;

// One check: `run` returns what it saw and sets *ok; an exception (a custody::Error from the op,
// e.g. a DeviceError) is the check's failure, printed with what it says. Returns whether the check
// passed.
bool check(const char* name, const std::function<std::string(bool* ok)>& run) {
  bool ok = false;
  std::string detail;
  try {
    detail = run(&ok);
  } catch (const std::exception& e) {
    std::printf("%s: FAILED: %s\n", name, e.what());
    return false;
  }
  std::printf("%s: %s: %s\n", name, detail.c_str(), ok ? "ok" : "WRONG");
  return ok;
}

constexpr int64_t kRows = 64, kCols = 1000;

// A [kRows, kCols] matrix of values in [0, 1) but one per row: row r has 2 at column (37 r) %
// kCols.
std::vector<float> rows_with_known_max() {
  std::vector<float> v(kRows * kCols);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) {
      v[r * kCols + c] = static_cast<float>((r * 7919 + c * 104729) % 1000) / 1000.0f;
    }
    v[r * kCols + (37 * r) % kCols] = 2.0f;
  }
  return v;
}

int run() {
  int runtime = 0, driver = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaDriverGetVersion(&driver);
  std::printf("cuda_runtime: %d\ncuda_driver: %d\n", runtime, driver);
  if (!custody::Cuda::available()) {
    std::printf("no GPU: %s\n", std::string(custody::Cuda::availability().message()).c_str());
    return 3;
  }
  int count = 0;
  (void)cudaGetDeviceCount(&count);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    std::printf("devices: %d\ndevice0: %s, compute capability %d.%d, %.1f GiB, %d SMs\n", count,
                prop.name, prop.major, prop.minor,
                static_cast<double>(prop.totalGlobalMem) / (1 << 30), prop.multiProcessorCount);
  }
  int pools = 0;
  (void)cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0);
  std::printf("memory_pools_supported: %d\n", pools);
  // The allocator's name says which runs and, for the cudaMalloc fallback, why
  // (device_allocator.h).
  std::printf("allocator: %s\n", custody::Cuda::allocator_name().c_str());
  int bad = 0;

  bad += !check("add", [](bool* ok) {
    const float sum = (T::full({1}, 1.0f) + T::full({1}, 2.0f)).item<float>();
    *ok = sum == 3.0f;
    return absl::StrFormat("1 + 2 = %g", sum);
  });

  bad += !check("matmul (cuBLAS)", [](bool* ok) {
    const std::vector<float> mm = T::from_vector<float>({1, 2, 3, 4}, {2, 2})
                                      .matmul(T::from_vector<float>({5, 6, 7, 8}, {2, 2}))
                                      .to_vector<float>();
    *ok = mm == std::vector<float>{19, 22, 43, 50};
    return absl::StrFormat("[[1,2],[3,4]] x [[5,6],[7,8]] = [[%g,%g],[%g,%g]]", mm[0], mm[1], mm[2],
                           mm[3]);
  });

  // 0, 1, 2, 3, 0, 1, ... over 2^20 elements: every partial sum is an integer below 2^24, exact in
  // float32 whatever order CUB adds in, so the total must be exactly the host's.
  bad += !check("sum (CUB)", [](bool* ok) {
    constexpr int64_t n = int64_t{1} << 20;
    std::vector<float> v(n);
    double want = 0;
    for (int64_t i = 0; i < n; ++i) {
      v[i] = static_cast<float>(i % 4);
      want += v[i];
    }
    const float got = T::from_vector<float>(v, {n}).sum().item<float>();
    *ok = static_cast<double>(got) == want;
    return absl::StrFormat("%d elements: %.0f (host: %.0f)", n, got, want);
  });

  const std::vector<float> m = rows_with_known_max();

  bad += !check("argmax (CUB)", [&m](bool* ok) {
    const std::vector<int64_t> got =
        T::from_vector<float>(m, {kRows, kCols}).argmax(1).to_vector<int64_t>();
    *ok = static_cast<int64_t>(got.size()) == kRows;
    std::string first_wrong;
    for (int64_t r = 0; *ok && r < kRows; ++r) {
      const int64_t want = (37 * r) % kCols;
      if (got[r] != want) {
        *ok = false;
        first_wrong = absl::StrFormat("; row %d: %d, host: %d", r, got[r], want);
      }
    }
    return absl::StrFormat("%d rows of %d%s", kRows, kCols, first_wrong);
  });

  // Against the host's softmax in double: the device's float32 exp and sum over 1000 elements stay
  // within a few float32 ulp of it; 1e-5 relative is ~80 ulp, far below any real error.
  bad += !check("softmax", [&m](bool* ok) {
    const std::vector<float> got =
        T::from_vector<float>(m, {kRows, kCols}).softmax(1).to_vector<float>();
    *ok = static_cast<int64_t>(got.size()) == kRows * kCols;
    double worst = 0;
    std::string first_wrong;
    for (int64_t r = 0; *ok && r < kRows; ++r) {
      const float* row = &m[r * kCols];
      double max = row[0], total = 0;
      for (int64_t c = 1; c < kCols; ++c) max = std::max<double>(max, row[c]);
      for (int64_t c = 0; c < kCols; ++c) total += std::exp(row[c] - max);
      for (int64_t c = 0; c < kCols; ++c) {
        const double want = std::exp(row[c] - max) / total;
        const double err = std::fabs(got[r * kCols + c] - want) / want;
        worst = std::max(worst, err);
        if (!(err <= 1e-5)) {  // a NaN is wrong too
          *ok = false;
          first_wrong =
              absl::StrFormat("; row %d col %d: %g, host: %g", r, c, got[r * kCols + c], want);
          break;
        }
      }
    }
    return absl::StrFormat("%d rows of %d, largest relative error %.1e%s", kRows, kCols, worst,
                           first_wrong);
  });
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::printf("failed: %s\n", e.what());
    return 1;
  }
}
