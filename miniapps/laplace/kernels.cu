/* kernels.cu: the 7-point sweep on the GPU (Sourouri Paper II Sec. 2.2, "ComputeInterior-
 * Points"/"ComputeBoundary"; one kernel serves both, given a plane range).
 * A 2D grid of threads covers the xy-plane; each thread marches up a run of z-planes and
 * keeps the plane below, its own and the plane above in registers, so every point of u is
 * read from DRAM about once (x/y neighbours come from L1/L2) and un is written once:
 * 16 bytes per point, the bytes model the app reports. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"
#include "kit/check.h"
#include "stencil.h"

template <int UNROLL>
__global__ void laplace_sweep_kernel(const double *__restrict__ u, double *__restrict__ un, int nx, int ny,
                                     size_t sy, size_t sz, int l0, int l1, int run, double alpha,
                                     double beta) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i > nx || j > ny) return;
  const int lb = l0 + blockIdx.z * run;
  const int le = min(lb + run, l1);
  if (lb >= le) return;
  size_t c = (size_t)lb * sz + (size_t)j * sy + (size_t)i;
  double below = u[c - sz], here = u[c];
  /* Unrolling lets the compiler issue several planes' loads before the first store. */
#pragma unroll UNROLL
  for (int l = lb; l < le; ++l, c += sz) {
    const double above = u[c + sz];
    un[c] = laplace_update(here, u[c + 1], u[c + sy], above, u[c - 1], u[c - sy], below, alpha, beta);
    below = here;
    here = above;
  }
}

/* Tile shape: LAPLACE_TILE="bx,by,run[,unroll]" overrides the default for tuning
 * experiments (labs/scripts/laplace_sweep.sh tune). */
struct laplace_tile {
  int bx, by, run, unroll;
};
static laplace_tile read_tile() {
  const laplace_tile fallback = {128, 2, 16, 1};
  laplace_tile t = fallback;
  const char *e = getenv("LAPLACE_TILE");
  if (e && (sscanf(e, "%d,%d,%d,%d", &t.bx, &t.by, &t.run, &t.unroll) < 3 || t.bx < 1 || t.by < 1 ||
            t.bx * t.by > 1024 || t.run < 1 || (t.unroll != 1 && t.unroll != 4)))
    t = fallback;
  return t;
}

extern "C" void launch_laplace_sweep(const laplace_block *b, const double *u, double *un, int l0, int l1,
                                     double alpha, double beta, cudaStream_t stream) {
  const int nx = b->nx, ny = b->ny;
  if (l1 <= l0) return;
  static const laplace_tile t = read_tile(); /* C++ static: initialised once, thread-safe */
  const int bx = t.bx, by = t.by, run = t.run;
  const dim3 block(bx, by, 1);
  const dim3 grid((nx + bx - 1) / bx, (ny + by - 1) / by, (l1 - l0 + run - 1) / run);
  if (t.unroll == 4)
    laplace_sweep_kernel<4>
        <<<grid, block, 0, stream>>>(u, un, nx, ny, b->sy, b->sz, l0, l1, run, alpha, beta);
  else
    laplace_sweep_kernel<1>
        <<<grid, block, 0, stream>>>(u, un, nx, ny, b->sy, b->sz, l0, l1, run, alpha, beta);
  KIT_CUDA_CHECK(cudaGetLastError());
}
