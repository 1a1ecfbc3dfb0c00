// The lbm GPU kernels of a process grid's box (gpu_box.h) against the host's, bit for bit
// (label gpu; skipped without a device): the box update over the outer layer's parts and the
// inner box for every set of faces with a neighbour equals the host's whole update, and the
// link kernel packs and unpacks what the host pair does, for all 18 links.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels.h"
#include "kit/runtime.h"
#include "lbm.h"

#define SKIP_WITHOUT_GPU() \
  if (kit_gpu_count() == 0) GTEST_SKIP() << "no CUDA device"

namespace {
// A cavity of n[0] x n[1] x n[2] cells from a random state, and a box of it at (i0, j0, k0).
lbm_params cavity(const int n[3]) {
  lbm_params p;
  std::memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  for (int d = 0; d < 3; ++d) p.size[d] = n[d];
  p.flow = "cavity";
  p.init = "random";
  p.re = 100.0;
  p.lid_velocity = 0.05;
  p.halo = "pack";
  p.comm = "host";
  lbm_derive(&p);
  return p;
}

struct Dev {
  double *p = nullptr;
  explicit Dev(size_t n) { EXPECT_EQ(cudaMalloc((void **)&p, n * sizeof(double)), cudaSuccess); }
  ~Dev() { cudaFree(p); }
  void put(const std::vector<double> &h) {
    ASSERT_EQ(cudaMemcpy(p, h.data(), h.size() * 8, cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<double> get(size_t n) const {
    std::vector<double> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};
}  // namespace

TEST(LbmGpuBox, RegionsUpdateMatchesHostBitForBit) {
  SKIP_WITHOUT_GPU();
  const int whole[3] = {9, 7, 8};
  const lbm_params p = cavity(whole);
  // Boxes at the lattice's corner, inside it and one cell thin, so walls, the lid and the bulk
  // rule all show.
  const int boxes[][6] = {{0, 5, 0, 4, 1, 4}, {2, 5, 1, 5, 3, 6}, {4, 1, 3, 1, 8, 1}, {0, 9, 0, 7, 1, 8}};
  for (const auto &bx : boxes) {
    lbm_block blk = lbm_block_make(bx[1], bx[3], bx[4], bx[5]);
    blk.i0 = bx[0];
    blk.j0 = bx[2];
    const lbm_box b = lbm_box_make(&p, &blk);
    std::vector<double> f(b.total), want(b.total, -7.0);
    lbm_box_fill(&p, &b, f.data());
    const int lo[3] = {1, 1, 1}, hi[3] = {b.nx + 1, b.ny + 1, b.nz + 1};
    lbm_box_update(&p, &b, f.data(), want.data(), lo, hi, 1);
    Dev df(b.total), dfn(b.total);
    df.put(f);
    for (int mask = 0; mask < 64; ++mask) {
      int side[LBM_FACE_LINKS];
      for (int s = 0; s < LBM_FACE_LINKS; ++s) side[s] = mask >> s & 1;
      const lbm_box_regions r = lbm_box_regions_of(&b, side);
      dfn.put(std::vector<double>(b.total, -7.0));
      for (int s = 0; s < LBM_FACE_LINKS; ++s)
        launch_lbm_box_update(&b, df.p, dfn.p, r.lo[s], r.hi[s], p.omega, p.force[0], p.force[1], p.force[2],
                              0);
      launch_lbm_box_update(&b, df.p, dfn.p, r.in_lo, r.in_hi, p.omega, p.force[0], p.force[1], p.force[2],
                            0);
      const std::vector<double> got = dfn.get(b.total);
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), b.total * 8))
          << "box at " << bx[0] << "," << bx[2] << "," << bx[4] << " sides " << mask;
    }
  }
}

TEST(LbmGpuBox, LinkKernelPacksAndUnpacksAsTheHost) {
  SKIP_WITHOUT_GPU();
  const int whole[3] = {9, 7, 8};
  const lbm_params p = cavity(whole);
  lbm_block blk = lbm_block_make(4, 3, 2, 5);
  blk.i0 = 2;
  blk.j0 = 1;
  const lbm_box b = lbm_box_make(&p, &blk);
  std::vector<double> f(b.total);
  for (size_t e = 0; e < b.total; ++e) f[e] = 0.5 + (double)e;  // every element its own value
  Dev df(b.total), dbuf(b.total);
  for (int n = 0; n < LBM_LINKS; ++n)
    for (int ghost = 0; ghost < 2; ++ghost) {
      const size_t count = lbm_box_link_count(&b, n);
      std::vector<double> host(count);
      lbm_box_pack(&b, f.data(), n, ghost, host.data());
      df.put(f);
      launch_lbm_box_link_copy(&b, df.p, n, ghost, dbuf.p, 1, 0);
      const std::vector<double> dev = dbuf.get(count);
      ASSERT_EQ(0, std::memcmp(host.data(), dev.data(), count * 8))
          << "pack link " << n << " ghost " << ghost;
      // Unpack marks into the lattice: exactly the host unpack's elements change.
      std::vector<double> marks(count), want = f;
      for (size_t k = 0; k < count; ++k) marks[k] = -1.0 - (double)k;
      lbm_box_unpack(&b, want.data(), n, ghost, marks.data());
      std::vector<double> pad(b.total, 0.0);
      std::copy(marks.begin(), marks.end(), pad.begin());
      dbuf.put(pad);
      launch_lbm_box_link_copy(&b, df.p, n, ghost, dbuf.p, 0, 0);
      const std::vector<double> got = df.get(b.total);
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), b.total * 8))
          << "unpack link " << n << " ghost " << ghost;
    }
}
