/* kernels.cu: the 7-point sweep on the GPU (Sourouri Paper II Sec. 2.2, "ComputeInterior-
 * Points"/"ComputeBoundary"; one kernel serves both, given a box of points), and the copy
 * between a strided x or y face and its packed buffer (a process grid's exchange, Paper II
 * Figs. 3-5; Risso Sec. 4.3's pack and unpack kernels).
 * A 2D grid of threads covers the xy-plane; each thread marches up a run of z-planes and
 * keeps the plane below, its own and the plane above in registers, so every point of u is
 * read from DRAM about once (x/y neighbours come from L1/L2) and un is written once:
 * 16 bytes per point, the bytes model the app reports. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"
#include "kit/check.h"
#include "stencil.h"

/* Points [i0, i1) x [j0, j1) of planes [l0, l1). A wide box: threads laid out in x from a
 * multiple of the block's width above column 1 (x0), so a warp's first point stays at the
 * start of a 128-byte line (gpu_block.h); the columns below i0 idle. A thin box (thin:
 * narrower than a warp with more rows than columns, as an x face's one-column layer): the
 * block's threads across y, a column per block in x, not a block of mostly idle columns per
 * few rows. (For boxes 2-31 wide the wide mapping may be the faster; not measured.) */
template <int UNROLL>
__global__ void laplace_sweep_kernel(const double *__restrict__ u, double *__restrict__ un, int i0, int i1,
                                     int j0, int j1, size_t sy, size_t sz, int l0, int l1, int run,
                                     double alpha, double beta, int x0, int thin) {
  int i, j;
  if (thin) {
    i = i0 + (int)blockIdx.x;
    j = j0 + (int)(blockIdx.y * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x);
  } else {
    i = x0 + (int)(blockIdx.x * blockDim.x + threadIdx.x) + 1;
    j = (int)(blockIdx.y * blockDim.y + threadIdx.y) + j0;
  }
  if (i < i0 || i >= i1 || j >= j1) return;
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

extern "C" void launch_laplace_sweep_box(const laplace_block *b, const double *u, double *un, const int r[6],
                                         double alpha, double beta, cudaStream_t stream) {
  const int i0 = r[0], i1 = r[1], j0 = r[2], j1 = r[3], l0 = r[4], l1 = r[5];
  if (i1 <= i0 || j1 <= j0 || l1 <= l0) return;
  static const laplace_tile t = read_tile(); /* C++ static: initialised once, thread-safe */
  const int bx = t.bx, by = t.by, run = t.run;
  const dim3 block(bx, by, 1);
  const int thin = i1 - i0 < 32 && j1 - j0 > i1 - i0;
  const int x0 = (i0 - 1) / bx * bx; /* the first block's first column, less 1 */
  const int zb = (l1 - l0 + run - 1) / run;
  /* Grid y: rows / by or / (bx by), below 65535 for any ny the driver takes (laplace_check). */
  const dim3 grid = thin ? dim3(i1 - i0, (j1 - j0 + bx * by - 1) / (bx * by), zb)
                         : dim3((i1 - 1 - x0 + bx - 1) / bx, (j1 - j0 + by - 1) / by, zb);
  if (t.unroll == 4)
    laplace_sweep_kernel<4>
        <<<grid, block, 0, stream>>>(u, un, i0, i1, j0, j1, b->sy, b->sz, l0, l1, run, alpha, beta, x0, thin);
  else
    laplace_sweep_kernel<1>
        <<<grid, block, 0, stream>>>(u, un, i0, i1, j0, j1, b->sy, b->sz, l0, l1, run, alpha, beta, x0, thin);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_laplace_sweep(const laplace_block *b, const double *u, double *un, int l0, int l1,
                                     double alpha, double beta, cudaStream_t stream) {
  const int r[6] = {1, b->nx + 1, 1, b->ny + 1, l0, l1};
  launch_laplace_sweep_box(b, u, un, r, alpha, beta, stream);
}

/* One thread per face point: x fastest within the face's row or column, then planes. */
__global__ void laplace_face_copy_kernel(laplace_face_shape f, double *__restrict__ u,
                                         double *__restrict__ buf, int to_buf) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x, l = blockIdx.y;
  if (a >= f.n1) return;
  const size_t n = (size_t)l * (size_t)f.n1 + (size_t)a;
  if (to_buf)
    buf[n] = u[laplace_face_at(&f, a, l)];
  else
    u[laplace_face_at(&f, a, l)] = buf[n];
}

extern "C" void launch_laplace_face_copy(const laplace_block *b, double *u, int face, int ghost, double *buf,
                                         int to_buf, cudaStream_t stream) {
  const laplace_face_shape f = laplace_face_shape_of(b, face, ghost);
  if (f.n1 == 0 || f.n2 == 0) return;
  const int block = 128;
  const dim3 grid((f.n1 + block - 1) / block, f.n2); /* n2 = nz <= 65535 (laplace_check) */
  laplace_face_copy_kernel<<<grid, block, 0, stream>>>(f, u, buf, to_buf);
  KIT_CUDA_CHECK(cudaGetLastError());
}
