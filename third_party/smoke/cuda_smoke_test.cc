// CUDA runtime + cuBLAS link (host code, compiled by gcc); skipped when no GPU is visible.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "gtest/gtest.h"
#include "testing/device.h"

namespace {

TEST(CudaSmoke, RuntimeAndCublas) {
  int runtime = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&runtime), cudaSuccess);
  EXPECT_GT(runtime, 0);
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    CUSTODY_SKIP_WITHOUT_DEVICE("no CUDA device: " << cudaGetErrorString(err));
  }
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 8 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, 8 * sizeof(float)), cudaSuccess);
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  float result = -1.f;
  ASSERT_EQ(cublasSasum(handle, 8, d, 1, &result), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(result, 0.f);
  cublasDestroy(handle);
  cudaFree(d);
}

}  // namespace
