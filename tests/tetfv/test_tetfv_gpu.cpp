// The tetfv GPU kernels against the host, bit for bit (label gpu; skipped without a device):
// Paper III's blocked column-major rows and the row-major remainder (kernels.cu) against
// tetfv_row on the row-major matrix, for launch ranges that start on and off a block boundary;
// the send-list pack kernel against the host pack.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_block.h"
#include "kit/runtime.h"
#include "params.h"
#include "tetfv.h"

#define SKIP_WITHOUT_GPU() \
  if (kit_gpu_count() == 0) GTEST_SKIP() << "no CUDA device"

namespace {

// Rank 0's part of the box split over two ranks (so it has send lists and ghosts), and a
// random field over its rows and ghosts.
struct Part {
  tetfv_mesh m;
  tetfv_matrix g;
  tetfv_local l;
  std::vector<double> u;
  explicit Part(int n) {
    tetfv_mesh_box(&m, n, 0.3, 1, 11);
    char err[256];
    EXPECT_EQ(tetfv_mesh_connect(&m, err, sizeof err), 0) << err;
    tetfv_params p = tetfv_test_params("corrected", "neumann", 3.0, "random");
    tetfv_assembly_info info;
    tetfv_assemble(&p, &m, &g, &info);
    std::vector<int> part(m.ncells);
    EXPECT_EQ(tetfv_partition(&m, 2, part.data(), err, sizeof err), 0) << err;
    tetfv_local_build(&g, part.data(), 0, "metis", 64, &l);
    u.resize((size_t)l.nown + l.nghost);
    for (size_t a = 0; a < u.size(); ++a) u[a] = tetfv_initial(&p, l.gid[a], m.centroid + 3 * l.gid[a]);
  }
  ~Part() {
    tetfv_local_free(&l);
    tetfv_matrix_free(&g);
    tetfv_mesh_free(&m);
  }
};

}  // namespace

TEST(tetfvGpu, BlockedRowsMatchTheHostBitForBit) {
  SKIP_WITHOUT_GPU();
  Part pt(7);  // about 1000 rows per rank: several blocks of 128 and a remainder
  const tetfv_local &l = pt.l;
  ASSERT_GT(l.nown, 3 * TETFV_GPU_B);
  const int n = l.nown + l.nghost;
  std::vector<double> host(n), dev(n);
  for (int split : {0, 1, 5, TETFV_GPU_B, 2 * TETFV_GPU_B + 17, l.nown}) {
    const int cut[3] = {0, split, l.nown};
    tetfv_gpu g;
    tetfv_gpu_init(&g, 0, &l, pt.u.data(), 2, cut, 1);
    ASSERT_EQ(cudaMemcpy(g.u, pt.u.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(g.un, 0, n * sizeof(double)), cudaSuccess);
    for (int k = 0; k < 2; ++k) tetfv_gpu_rows(&g, k, g.u, g.un, 0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dev.data(), g.un, l.nown * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < l.nown; ++i) {
      host[i] = tetfv_row(l.m.D, l.m.A, l.m.I, pt.u.data(), i);
      ASSERT_EQ(std::memcmp(&host[i], &dev[i], sizeof(double)), 0) << "row " << i << " split " << split;
    }
    // The pack kernel gathers the send lists of u.
    double *pinned = nullptr;
    ASSERT_EQ(cudaMallocHost((void **)&pinned, (g.npack + 1) * sizeof(double)), cudaSuccess);
    ASSERT_GT(g.npack, 0);
    tetfv_gpu_pack(&g, g.u, pinned, 0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int k = 0; k < g.npack; ++k) ASSERT_EQ(pinned[k], pt.u[l.send_idx[k]]) << "entry " << k;
    cudaFreeHost(pinned);
    tetfv_gpu_free(&g);
  }
}
