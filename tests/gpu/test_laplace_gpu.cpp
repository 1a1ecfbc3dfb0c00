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

// A random field of size n[0] x n[1] x n[2] with weights that use every bit of the mantissa.
static laplace_params random_params(const int n[3]) {
  laplace_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  for (int d = 0; d < 3; ++d) p.size[d] = n[d];
  p.alpha = 0.3;
  p.beta = 0.1;
  p.init = "random";
  return p;
}

TEST(LaplaceGpu, SweepMatchesHostBitForBit) {
  SKIP_WITHOUT_GPU();
  const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {130, 3, 17}, {33, 65, 40}};
  for (const auto &s : shapes) {
    const laplace_params p = random_params(s);
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

// A process grid's pieces on the GPU (naive and two-stream, --procs): for every set of faces
// with a neighbour, the outer layer's parts and the inner box, each swept by the box kernel,
// write the whole host sweep's bits and nothing outside the interior; the face kernel packs
// what the host packs and unpacks into exactly the ghost layer. Thick and one-point boxes.
TEST(LaplaceGpu, GridPiecesMatchHostBitForBit) {
  SKIP_WITHOUT_GPU();
  const int shapes[][3] = {{11, 7, 6}, {1, 1, 1}, {2, 3, 2}, {40, 5, 3}};
  const double sentinel = -12345.0;
  for (const auto &s : shapes) {
    const laplace_params p = random_params(s);
    const laplace_block b = laplace_block_make(s[0], s[1], 1, s[2]);
    const size_t bytes = b.points * 8;
    std::vector<double> u(b.points), want(b.points, sentinel), got(b.points);
    laplace_fill(&p, &b, u.data());
    laplace_sweep_host(&p, &b, u.data(), want.data(), 1, s[2] + 1, 1);
    double *du, *dun, *dbuf;
    ASSERT_EQ(cudaMalloc((void **)&du, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc((void **)&dun, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc((void **)&dbuf, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(du, u.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    for (int mask = 0; mask < 64; ++mask) {
      int side[LAPLACE_FACES], part[LAPLACE_FACES][6], lo[3], hi[3];
      for (int f = 0; f < LAPLACE_FACES; ++f) side[f] = mask >> f & 1;
      const std::vector<double> fill(b.points, sentinel);
      ASSERT_EQ(cudaMemcpy(dun, fill.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
      const int n = laplace_layer_parts(&b, side, part);
      for (int q = 0; q < n; ++q) launch_laplace_sweep_box(&b, du, dun, part[q], p.alpha, p.beta, 0);
      laplace_inner_box(&b, side, lo, hi);
      const int inner[6] = {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
      launch_laplace_sweep_box(&b, du, dun, inner, p.alpha, p.beta, 0);
      ASSERT_EQ(cudaMemcpy(got.data(), dun, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), bytes))
          << "shape " << s[0] << "x" << s[1] << "x" << s[2] << " sides " << mask;
    }
    for (int f = 0; f < LAPLACE_ZM; ++f)
      for (int ghost = 0; ghost < 2; ++ghost) {
        const size_t n = laplace_face_count(&b, f);
        std::vector<double> host(n), dev(n);
        laplace_face_pack(&b, u.data(), f, ghost, host.data());
        launch_laplace_face_copy(&b, du, f, ghost, dbuf, 1, 0);
        ASSERT_EQ(cudaMemcpy(dev.data(), dbuf, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(0, std::memcmp(host.data(), dev.data(), n * 8)) << "face " << f << " ghost " << ghost;
        // Unpack a marked buffer into a copy of the field: only the layer changes, to the marks.
        std::vector<double> marks(n), field = u, back(b.points);
        for (size_t k = 0; k < n; ++k) marks[k] = 1000.0 + (double)k;
        laplace_face_unpack(&b, field.data(), f, ghost, marks.data());
        ASSERT_EQ(cudaMemcpy(dun, u.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dbuf, marks.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
        launch_laplace_face_copy(&b, dun, f, ghost, dbuf, 0, 0);
        ASSERT_EQ(cudaMemcpy(back.data(), dun, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(0, std::memcmp(field.data(), back.data(), bytes))
            << "unpack face " << f << " ghost " << ghost;
      }
    cudaFree(du);
    cudaFree(dun);
    cudaFree(dbuf);
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
