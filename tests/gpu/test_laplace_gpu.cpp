// The laplace GPU kernel against the host sweep, bit for bit (label gpu; skipped without
// a device). Random fields, odd sizes, every plane range the variants use.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels.h"
#include "kit/ceiling.h"
#include "kit/philox.h"
#include "kit/runtime.h"
#include "laplace.h"

extern "C" void launch_philox_test(unsigned *out, int n, cudaStream_t s);

#define SKIP_WITHOUT_GPU() \
  if (kit_gpu_count() == 0) GTEST_SKIP() << "no CUDA device"

TEST(LaplaceGpu, SweepMatchesHostBitForBit) {
  SKIP_WITHOUT_GPU();
  const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {130, 3, 17}, {33, 65, 40}};
  for (const auto &s : shapes) {
    laplace_params p;
    std::memset(&p, 0, sizeof p);
    p.run = kit_run_defaults();
    p.size[0] = s[0];
    p.size[1] = s[1];
    p.size[2] = s[2];
    p.alpha = 0.3;
    p.beta = 0.1;
    p.init = "random";
    const laplace_block b = laplace_block_make(s[0], s[1], 1, s[2]);
    std::vector<double> u(b.points), host(b.points), dev(b.points);
    laplace_fill(&p, &b, u.data());
    const int ranges[][2] = {{1, s[2] + 1}, {1, 2}, {s[2], s[2] + 1}, {2, s[2]}};
    for (const auto &r : ranges) {
      host = u;
      laplace_sweep_host(&p, &b, u.data(), host.data(), r[0], r[1], 1);
      double *du, *dun;
      ASSERT_EQ(cudaMalloc((void **)&du, b.points * 8), cudaSuccess);
      ASSERT_EQ(cudaMalloc((void **)&dun, b.points * 8), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(du, u.data(), b.points * 8, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dun, u.data(), b.points * 8, cudaMemcpyHostToDevice), cudaSuccess);
      launch_laplace_sweep(&b, du, dun, r[0], r[1], p.alpha, p.beta, 0);
      ASSERT_EQ(cudaMemcpy(dev.data(), dun, b.points * 8, cudaMemcpyDeviceToHost), cudaSuccess);
      cudaFree(du);
      cudaFree(dun);
      for (size_t i = 0; i < b.points; ++i)
        ASSERT_EQ(dev[i], host[i]) << "shape " << s[0] << "x" << s[1] << "x" << s[2] << " point " << i;
    }
  }
}

TEST(LaplaceGpu, PhiloxDeviceEqualsHost) {
  SKIP_WITHOUT_GPU();
  const int n = 4096;
  unsigned *d;
  ASSERT_EQ(cudaMalloc((void **)&d, n * 4 * sizeof(unsigned)), cudaSuccess);
  launch_philox_test(d, n, 0);
  std::vector<unsigned> got(n * 4);
  ASSERT_EQ(cudaMemcpy(got.data(), d, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  for (int i = 0; i < n; ++i) {
    kit_philox4x32 c = {{(uint32_t)i, 7u, 0u, 3u}};
    kit_philox_key k = {{42u, 1u}};
    const kit_philox4x32 r = kit_philox4x32_10(c, k);
    for (int w = 0; w < 4; ++w) ASSERT_EQ(got[4 * i + w], r.v[w]);
  }
}

TEST(LaplaceGpu, DeviceTriadIsPositiveAndPlausible) {
  SKIP_WITHOUT_GPU();
  const double bw = kit_measure_device_triad((size_t)1 << 24, 5);
  EXPECT_GT(bw, 10.0);  // GB/s: any CUDA GPU of the last decade
  EXPECT_LT(bw, 100000.0);
}
