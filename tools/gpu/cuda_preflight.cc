// Copyright 2026 The custody Authors.
//
// cuda_preflight — the first thing run on a GPU machine (tools/gpu/device_check.sh): is there a device,
// which one, which allocator runs (memory pools or the cudaMalloc fallback), and does one 1-element
// add, and one small cuBLAS matmul, give the right answer? Prints one `key: value` line per fact.
// Exit status: 0 all good; 1 an op failed or gave a wrong answer; 3 no usable CUDA device.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "backends/cuda/cuda.h"
#include "core/error.h"
#include "core/tensor.h"
#include "policies/tensor_ptr/tensor_ptr.h"

namespace {

using T = custody::BasicTensor<custody::tensor_ptr::Policy, custody::Cuda>;

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
  std::printf("allocator: %s\n", custody::Cuda::allocator_name().c_str());
  int bad = 0;
  const float sum = (T::full({1}, 1.0f) + T::full({1}, 2.0f)).item<float>();
  std::printf("add: 1 + 2 = %g: %s\n", sum, sum == 3.0f ? "ok" : "WRONG");
  bad += sum != 3.0f;
  const std::vector<float> mm =
      T::from_vector<float>({1, 2, 3, 4}, {2, 2}).matmul(T::from_vector<float>({5, 6, 7, 8}, {2, 2}))
          .to_vector<float>();
  const bool mm_ok = mm == std::vector<float>{19, 22, 43, 50};
  std::printf("matmul (cuBLAS): [[1,2],[3,4]] x [[5,6],[7,8]] = [[%g,%g],[%g,%g]]: %s\n", mm[0],
              mm[1], mm[2], mm[3], mm_ok ? "ok" : "WRONG");
  bad += !mm_ok;
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
