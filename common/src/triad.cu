/* triad.cu: the device triad a = b + s*c that defines the GPU bandwidth ceiling
 * (DESIGN.md Sec. 7; BabelStream's triad). Timed with CUDA events, best of reps. */
#include <cuda_runtime.h>

#include "kit/ceiling.h"
#include "kit/check.h"

__global__ void kit_triad_kernel(double *__restrict__ a, const double *__restrict__ b,
                                 const double *__restrict__ c, double s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = b[i] + s * c[i];
}

__global__ void kit_fill_kernel(double *p, double v, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = v;
}

extern "C" double kit_measure_device_triad(size_t n, int reps) {
  double *a, *b, *c;
  KIT_CUDA_CHECK(cudaMalloc(&a, n * sizeof(double)));
  KIT_CUDA_CHECK(cudaMalloc(&b, n * sizeof(double)));
  KIT_CUDA_CHECK(cudaMalloc(&c, n * sizeof(double)));
  int dev = 0, sms = 0;
  KIT_CUDA_CHECK(cudaGetDevice(&dev));
  KIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int threads = 256, blocks = sms * 8;
  kit_fill_kernel<<<blocks, threads>>>(b, 1.0, n);
  kit_fill_kernel<<<blocks, threads>>>(c, 2.0, n);
  KIT_CUDA_CHECK(cudaGetLastError());
  cudaEvent_t e0, e1;
  KIT_CUDA_CHECK(cudaEventCreate(&e0));
  KIT_CUDA_CHECK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    KIT_CUDA_CHECK(cudaEventRecord(e0));
    kit_triad_kernel<<<blocks, threads>>>(a, b, c, 3.0, n);
    KIT_CUDA_CHECK(cudaGetLastError());
    KIT_CUDA_CHECK(cudaEventRecord(e1));
    KIT_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0.f;
    KIT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (ms < best) best = ms;
  }
  double check = 0.0;
  KIT_CUDA_CHECK(cudaMemcpy(&check, a + n / 2, sizeof check, cudaMemcpyDeviceToHost));
  if (check != 7.0) kit_die(3, __FILE__, __LINE__, "device triad produced a wrong value");
  KIT_CUDA_CHECK(cudaEventDestroy(e0));
  KIT_CUDA_CHECK(cudaEventDestroy(e1));
  KIT_CUDA_CHECK(cudaFree(a));
  KIT_CUDA_CHECK(cudaFree(b));
  KIT_CUDA_CHECK(cudaFree(c));
  return 3.0 * 8.0 * (double)n / (best * 1e-3) * 1e-9;
}
