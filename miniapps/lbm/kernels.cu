/* kernels.cu: the D3Q19 update on the GPU (Risso Sec. 4.1: one thread per cell, structure of
 * arrays so a warp's loads of one population are contiguous). The per-cell work is d3q19.h's,
 * the same functions the host update calls, so the bits agree with the oracle: bulk cells
 * take lbm_pull_bulk (fixed offsets, no branches), cells next to a wall or a wrap-around
 * take lbm_pull, exactly as lbm_update_rows splits them. The pack and unpack kernels (Risso
 * Sec. 4.2, Listing 4.1) move a face's five crossing populations between the lattice and one
 * contiguous buffer, indexed by d3q19.h's lbm_face_offset, the host lbm_pack's own index.
 * On a process grid (box.h) a box cell is updated as lbm_box_update updates it (lbm_pull_bulk
 * where the 18 upstream cells are all fluid, lbm_box_pull otherwise), and a link's message is
 * packed and unpacked through lbm_box_link_offset, the host lbm_box_pack's index. */
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

/* One thread per cell of [lo, hi), a plane per block in z. A wide box (the inner box, a y or z
 * face's layer): x across threads and a row per block in y, the threads starting at the
 * line boundary at or below lo[0] (box.h: local i = 1 mod LBM_BOX_ALIGN opens a line), so
 * that a warp's stores fill whole sectors even where the box starts at i = 2 beside a -x
 * neighbour. A thin box (narrower than a warp and with more rows than columns: an x face's
 * one-column layer, or a small box of a fine grid): y across threads and an x column per
 * block, not a 128-thread block per row with one thread busy. (For boxes 2-31 wide the wide
 * mapping, partly idle but coalesced, may be the faster; not measured.) The bulk rule is
 * lbm_box_update's: global x in [1, NX-2], y in [1, NY-2], z in [2, NZ-1]. */
__global__ void lbm_box_update_kernel(lbm_box b, const double *__restrict__ f, double *__restrict__ fn,
                                      int i0, int i1, int j0, int j1, int l0, int thin, double omega,
                                      double Fx, double Fy, double Fz) {
  const int t = (int)(blockIdx.x * blockDim.x + threadIdx.x), l = l0 + (int)blockIdx.z;
  int i, j;
  if (thin) {
    i = i0 + (int)blockIdx.y;
    j = j0 + t;
    if (j >= j1) return;
  } else {
    i = i0 - (i0 - 1) % LBM_BOX_ALIGN + t;
    j = j0 + (int)blockIdx.y;
    if (i < i0 || i >= i1) return;
  }
  const lbm_geom g = lbm_box_geom(&b);
  const int gi = b.i0 - 1 + i, gj = b.j0 - 1 + j, k = b.k0 - 1 + l;
  const size_t c = (size_t)l * b.sz + (size_t)j * b.sy + (size_t)i;
  double q[LBM_Q];
  if (gi >= 1 && gi <= b.NX - 2 && gj >= 1 && gj <= b.NY - 2 && k >= 2 && k <= b.NZ - 1)
    lbm_pull_bulk(f, &g, c, q);
  else
    lbm_box_pull(f, &b, i, j, l, q);
  lbm_collide_store(q, fn, &g, c, omega, Fx, Fy, Fz);
}

extern "C" void launch_lbm_box_update(const lbm_box *b, const double *f, double *fn, const int lo[3],
                                      const int hi[3], double omega, double Fx, double Fy, double Fz,
                                      cudaStream_t stream) {
  if (hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]) return;
  const int bx = 128, nx = hi[0] - lo[0], ny = hi[1] - lo[1];
  const int thin = nx < 32 && ny > nx;
  const int span = thin ? ny : nx + (lo[0] - 1) % LBM_BOX_ALIGN;
  /* Grid y: nx below 32 (thin) or the box's ny; z the box's nz; lbm_check caps ny and nz at
   * 65535. */
  const dim3 grid((unsigned)((span + bx - 1) / bx), (unsigned)(thin ? nx : ny), (unsigned)(hi[2] - lo[2]));
  lbm_box_update_kernel<<<grid, bx, 0, stream>>>(*b, f, fn, lo[0], hi[0], lo[1], hi[1], lo[2], thin, omega,
                                                 Fx, Fy, Fz);
  KIT_CUDA_CHECK(cudaGetLastError());
}

/* One thread per (cell, population) of link n's message: x over the layer's cells, y over its
 * populations (5 through a face, 1 through an edge). */
__global__ void lbm_box_link_kernel(lbm_box b, double *__restrict__ f, int n, int ghost,
                                    double *__restrict__ buf, int to_buf, size_t cells) {
  const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int m = (int)blockIdx.y;
  if (c >= cells) return;
  const size_t at = lbm_box_link_offset(&b, n, ghost, m, c);
  if (to_buf)
    buf[(size_t)m * cells + c] = f[at];
  else
    f[at] = buf[(size_t)m * cells + c];
}

extern "C" void launch_lbm_box_link_copy(const lbm_box *b, double *f, int n, int ghost, double *buf,
                                         int to_buf, cudaStream_t stream) {
  const size_t cells = lbm_box_link_cells(b, n);
  if (cells == 0) return;
  const int bx = 256;
  /* A face's cells fit one MPI message (lbm_check), so x fits the grid. */
  const dim3 grid((unsigned)((cells + bx - 1) / bx), (unsigned)lbm_link_pops(n), 1);
  lbm_box_link_kernel<<<grid, bx, 0, stream>>>(*b, f, n, ghost, buf, to_buf, cells);
  KIT_CUDA_CHECK(cudaGetLastError());
}
