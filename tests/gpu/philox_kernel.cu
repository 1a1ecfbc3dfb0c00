// philox_kernel.cu: the kit's Philox evaluated on the device, for test_laplace_gpu.cpp.
#include "kit/check.h"
#include "kit/philox.h"

__global__ void philox_test_kernel(unsigned *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  kit_philox4x32 c = {{(uint32_t)i, 7u, 0u, 3u}};
  kit_philox_key k = {{42u, 1u}};
  const kit_philox4x32 r = kit_philox4x32_10(c, k);
  for (int w = 0; w < 4; ++w) out[4 * i + w] = r.v[w];
}

extern "C" void launch_philox_test(unsigned *out, int n, cudaStream_t s) {
  philox_test_kernel<<<(n + 127) / 128, 128, 0, s>>>(out, n);
  KIT_CUDA_CHECK(cudaGetLastError());
}
