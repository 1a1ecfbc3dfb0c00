/* box.c: the host side of an lbm box on a process grid (box.h, lbm.h): its geometry, initial
 * state, update of a region of cells, macroscopic fields, checkpoint planes, the pack and
 * unpack of the 18 link messages (through lbm_box_link_offset, the GPU kernels' index to be)
 * and the plan of links (kit_exchange_init_links). README.md "Process grids". */
#include "box.h"

#include <stdint.h>
#include <string.h>

#include "kit/exchange.h"
#include "kit/procgrid.h"
#include "lbm.h"

lbm_box lbm_box_make(const lbm_params *p, const lbm_block *blk) {
  lbm_box b;
  b.nx = blk->nx;
  b.ny = blk->ny;
  b.nz = blk->nz;
  b.i0 = blk->i0;
  b.j0 = blk->j0;
  b.k0 = blk->k0;
  b.NX = p->size[0];
  b.NY = p->size[1];
  b.NZ = p->size[2];
  b.sy = lbm_box_row_stride(b.nx);
  b.sz = b.sy * ((size_t)b.ny + 2);
  b.qs = ((size_t)b.nz + 2) * b.sz;
  b.total = (size_t)LBM_Q * b.qs;
  b.lid = p->lid;
  return b;
}

void lbm_box_fill(const lbm_params *p, const lbm_box *b, double *f) {
  memset(f, 0, b->total * sizeof *f); /* ghosts beyond the walls: never read, defined */
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = 0; l < b->nz + 2; ++l)
    for (int j = 0; j < b->ny + 2; ++j) {
      const int k = b->k0 - 1 + l, gj = b->j0 - 1 + j;
      if (k < 1 || k > b->NZ || gj < 0 || gj >= b->NY) continue;
      const int from_ckpt = p->restart && k >= p->restart_k0 && k < p->restart_k0 + p->restart_nz;
      const size_t plane = (size_t)b->NX * (size_t)b->NY;
      for (int i = 0; i < b->nx + 2; ++i) {
        const int gi = b->i0 - 1 + i;
        if (gi < 0 || gi >= b->NX) continue;
        const size_t c = (size_t)l * b->sz + (size_t)j * b->sy + (size_t)i;
        if (from_ckpt) {
          const double *src = p->restart + (size_t)(k - p->restart_k0) * LBM_Q * plane +
                              (size_t)gj * (size_t)b->NX + (size_t)gi;
          for (int q = 0; q < LBM_Q; ++q) f[(size_t)q * b->qs + c] = src[(size_t)q * plane];
          continue;
        }
        double rho, u[3], feq[LBM_Q];
        lbm_initial_cell(p, gi, gj, k, &rho, u);
        lbm_equilibrium(rho, u[0], u[1], u[2], feq);
        for (int q = 0; q < LBM_Q; ++q) f[(size_t)q * b->qs + c] = feq[q];
      }
    }
}

void lbm_box_update(const lbm_params *p, const lbm_box *b, const double *f, double *fn, const int lo[3],
                    const int hi[3], int threads) {
  if (hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]) return;
  const lbm_geom g = lbm_box_geom(b);
  const double omega = p->omega, Fx = p->force[0], Fy = p->force[1], Fz = p->force[2];
  /* Cells whose 18 upstream cells all lie inside the lattice: global x in [1, NX-2] of rows
   * with global y in [1, NY-2] of planes with global z in [2, NZ-1] (lbm_row_is_bulk's rule). */
  const int ib = lo[0] > 2 - b->i0 ? lo[0] : 2 - b->i0, ie = hi[0] < b->NX - b->i0 ? hi[0] : b->NX - b->i0;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (int l = lo[2]; l < hi[2]; ++l)
    for (int j = lo[1]; j < hi[1]; ++j) {
      const int gj = b->j0 - 1 + j, k = b->k0 - 1 + l;
      const int bulk = gj >= 1 && gj <= b->NY - 2 && k >= 2 && k <= b->NZ - 1 && ib < ie;
      const size_t row = (size_t)l * b->sz + (size_t)j * b->sy;
      for (int i = lo[0]; i < (bulk ? ib : hi[0]); ++i) {
        double c[LBM_Q];
        lbm_box_pull(f, b, i, j, l, c);
        lbm_collide_store(c, fn, &g, row + (size_t)i, omega, Fx, Fy, Fz);
      }
      if (!bulk) continue;
        /* Cells of a row are independent (f is read, fn written): vectorise across them. */
#pragma omp simd
      for (int i = ib; i < ie; ++i) {
        double c[LBM_Q];
        lbm_pull_bulk(f, &g, row + (size_t)i, c);
        lbm_collide_store(c, fn, &g, row + (size_t)i, omega, Fx, Fy, Fz);
      }
      for (int i = ie; i < hi[0]; ++i) {
        double c[LBM_Q];
        lbm_box_pull(f, b, i, j, l, c);
        lbm_collide_store(c, fn, &g, row + (size_t)i, omega, Fx, Fy, Fz);
      }
    }
}

void lbm_box_macroscopic(const lbm_params *p, const lbm_box *b, const double *f, double *out) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = 1; l <= b->nz; ++l)
    for (int j = 1; j <= b->ny; ++j)
      for (int i = 1; i <= b->nx; ++i) {
        double c[LBM_Q];
        lbm_box_pull(f, b, i, j, l, c);
        double *o =
            out + 4 * (((size_t)(l - 1) * (size_t)b->ny + (size_t)(j - 1)) * (size_t)b->nx + (size_t)(i - 1));
        lbm_moments(c, p->force[0], p->force[1], p->force[2], &o[0], &o[1], &o[2], &o[3]);
      }
}

void lbm_box_lattice_planes(const lbm_box *b, const double *f, double *out) {
  const size_t plane = (size_t)b->nx * (size_t)b->ny;
  for (int l = 1; l <= b->nz; ++l)
    for (int q = 0; q < LBM_Q; ++q)
      for (int j = 1; j <= b->ny; ++j)
        memcpy(out + ((size_t)(l - 1) * LBM_Q + (size_t)q) * plane + (size_t)(j - 1) * (size_t)b->nx,
               f + (size_t)q * b->qs + (size_t)l * b->sz + (size_t)j * b->sy + 1,
               (size_t)b->nx * sizeof *out);
}

lbm_box_regions lbm_box_regions_of(const lbm_box *b, const int side[LBM_FACE_LINKS]) {
  const int len[3] = {b->nx, b->ny, b->nz}, xyz[3] = {0, 1, 2};
  return kit_box_split_make(len, side, xyz);
}

size_t lbm_box_link_count(const lbm_box *b, int n) {
  return (size_t)lbm_link_pops(n) * lbm_box_link_cells(b, n);
}

/* Element by element through lbm_box_link_offset, the index a GPU kernel is to use, so the
 * unit tests of this pair check it. The one copy loop of both directions: to_buf 1 packs. */
static void link_copy(const lbm_box *b, double *f, int n, int ghost, double *buf, int to_buf) {
  const size_t cells = lbm_box_link_cells(b, n);
  const int pops = lbm_link_pops(n);
  for (int m = 0; m < pops; ++m)
    for (size_t c = 0; c < cells; ++c) {
      const size_t at = lbm_box_link_offset(b, n, ghost, m, c);
      if (to_buf)
        buf[(size_t)m * cells + c] = f[at];
      else
        f[at] = buf[(size_t)m * cells + c];
    }
}

void lbm_box_pack(const lbm_box *b, const double *f, int n, int ghost, double *buf) {
  link_copy(b, (double *)f, n, ghost, buf, 1);
}

void lbm_box_unpack(const lbm_box *b, double *f, int n, int ghost, const double *buf) {
  link_copy(b, f, n, ghost, (double *)buf, 0);
}

void lbm_box_links(const lbm_box *b, const int procs[3], int rank, struct kit_link *links) {
  for (int n = 0; n < LBM_LINKS; ++n) {
    const int dir[3] = {lbm_link_dir(n, 0), lbm_link_dir(n, 1), lbm_link_dir(n, 2)};
    const int nbr = kit_procs_neighbour(procs, rank, dir);
    const size_t count = nbr == MPI_PROC_NULL ? 0 : lbm_box_link_count(b, n);
    /* What leaves through n arrives on the neighbour's n ^ 1: tag n out, n ^ 1 in. */
    links[n] =
        (kit_link){.rank = nbr, .send_count = count, .recv_count = count, .send_tag = n, .recv_tag = n ^ 1};
  }
}
