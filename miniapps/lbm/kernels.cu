/* kernels.cu: the D3Q19 update on the GPU (Risso Sec. 4.1: one thread per cell, structure of
 * arrays so a warp's loads of one population are contiguous). The per-cell work is d3q19.h's,
 * the same functions the host update calls, so the bits agree with the oracle: bulk cells
 * take lbm_pull_bulk (fixed offsets, no branches), cells next to a wall or a wrap-around
 * take lbm_pull, exactly as lbm_update_rows splits them. The pack and unpack kernels (Risso
 * Sec. 4.2, Listing 4.1) move a face's five crossing populations between the lattice and one
 * contiguous buffer, indexed by d3q19.h's lbm_face_offset, the host lbm_pack's own index. */
#include "kernels.h"
#include "kit/check.h"

__global__ void lbm_update_kernel(lbm_geom g, const double *__restrict__ f, double *__restrict__ fn, int l0,
                                  int l1, double omega, double Fx, double Fy, double Fz) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y;
  const int l = l0 + (int)blockIdx.z;
  if (i >= g.nx || l >= l1) return;
  if (lbm_row_is_bulk(&g, j, l) && g.nx >= 3 && i >= 1 && i <= g.nx - 2) {
    const size_t c = (size_t)l * g.plane + (size_t)j * (size_t)g.nx + (size_t)i;
    double q[LBM_Q];
    lbm_pull_bulk(f, &g, c, q);
    lbm_collide_store(q, fn, &g, c, omega, Fx, Fy, Fz);
  } else {
    lbm_update_cell(f, fn, &g, i, j, l, omega, Fx, Fy, Fz);
  }
}

extern "C" void launch_lbm_update(const lbm_geom *g, const double *f, double *fn, int l0, int l1,
                                  double omega, double Fx, double Fy, double Fz, cudaStream_t stream) {
  if (l1 <= l0) return;
  const int bx = 128;
  /* x across threads, a row per block in y, a plane per block in z (the driver refuses
   * ny or nz above 65535, the grid's y and z limits). */
  const dim3 grid((unsigned)((g->nx + bx - 1) / bx), (unsigned)g->ny, (unsigned)(l1 - l0));
  lbm_update_kernel<<<grid, bx, 0, stream>>>(*g, f, fn, l0, l1, omega, Fx, Fy, Fz);
  KIT_CUDA_CHECK(cudaGetLastError());
}

/* One thread per (cell, population) of the face: x over the plane's cells, y over the five
 * populations, so both the lattice and the buffer are read and written contiguously. */
__global__ void lbm_pack_kernel(const double *__restrict__ f, double *__restrict__ buf, size_t plane,
                                size_t qs, int l, int up) {
  const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int m = (int)blockIdx.y;
  if (c < plane) buf[(size_t)m * plane + c] = f[lbm_face_offset(plane, qs, l, up, m, c)];
}

__global__ void lbm_unpack_kernel(double *__restrict__ f, const double *__restrict__ buf, size_t plane,
                                  size_t qs, int l, int up) {
  const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int m = (int)blockIdx.y;
  if (c < plane) f[lbm_face_offset(plane, qs, l, up, m, c)] = buf[(size_t)m * plane + c];
}

/* The driver caps a plane at (2^31 - 1) / 5 cells (one MPI message), so x fits the grid. */
static dim3 face_grid(size_t plane, int bx) {
  return dim3((unsigned)((plane + bx - 1) / bx), LBM_ZQ, 1);
}

extern "C" void launch_lbm_pack(const double *f, double *buf, size_t plane, size_t qs, int l, int up,
                                cudaStream_t stream) {
  if (plane == 0) return;
  const int bx = 256;
  lbm_pack_kernel<<<face_grid(plane, bx), bx, 0, stream>>>(f, buf, plane, qs, l, up);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_lbm_unpack(double *f, const double *buf, size_t plane, size_t qs, int l, int up,
                                  cudaStream_t stream) {
  if (plane == 0) return;
  const int bx = 256;
  lbm_unpack_kernel<<<face_grid(plane, bx), bx, 0, stream>>>(f, buf, plane, qs, l, up);
  KIT_CUDA_CHECK(cudaGetLastError());
}
