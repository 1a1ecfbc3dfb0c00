/* grid.c: block geometry, derived parameters, initial state, the host update and the
 * halo packing shared by the cpu variant and the oracle's set-up (lbm.h). Risso Sec. 2.4
 * (the update), Sec. 4.2 (only the populations that cross a face travel). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "d3q19.h"
#include "kit/philox.h"
#include "lbm.h"

const char *const lbm_halo_names[2] = {"copies", "pack"};

void lbm_derive(lbm_params *p) {
  p->halo_mode = LBM_HALO_COPIES;
  for (int m = 0; m < 2; ++m)
    if (p->halo && strcmp(p->halo, lbm_halo_names[m]) == 0) p->halo_mode = (lbm_halo_mode)m;
  const int poiseuille = strcmp(p->flow, "poiseuille") == 0;
  p->u_ref = poiseuille ? p->peak_velocity : p->lid_velocity;
  /* Re = U L / nu with L the cavity side along the lid (nx) or the plate gap (nz). */
  const double L = poiseuille ? (double)p->size[2] : (double)p->size[0];
  p->nu = p->u_ref * L / p->re;
  p->tau = 3.0 * p->nu + 0.5;
  p->omega = 1.0 / p->tau;
  p->force[0] = p->force[1] = p->force[2] = 0.0;
  /* Plates half a cell outside planes 1 and NZ, gap H = NZ: u(z) = F z (H - z) / (2 nu rho),
   * whose peak F H^2 / (8 nu rho) is U for F = 8 nu U / H^2 (rho = 1). */
  if (poiseuille) p->force[0] = 8.0 * p->nu * p->u_ref / (L * L);
  p->lid = poiseuille ? 0.0 : p->lid_velocity;
  p->periodic_xy = poiseuille;
}

lbm_block lbm_block_make(int nx, int ny, int k0, int nz) {
  lbm_block b;
  b.nx = nx;
  b.ny = ny;
  b.i0 = b.j0 = 0;
  b.k0 = k0;
  b.nz = nz;
  b.plane = (size_t)nx * (size_t)ny;
  b.qs = ((size_t)nz + 2) * b.plane;
  b.total = (size_t)LBM_Q * b.qs;
  return b;
}

lbm_geom lbm_geom_of(const lbm_params *p, const lbm_block *b) {
  lbm_geom g;
  g.nx = b->nx;
  g.ny = b->ny;
  g.nz = b->nz;
  g.k0 = b->k0;
  g.NZ = p->size[2];
  g.periodic_xy = p->periodic_xy;
  g.plane = b->plane;
  g.qs = b->qs;
  g.lid = p->lid;
  return g;
}

void lbm_initial_cell(const lbm_params *p, int i, int j, int k, double *rho, double *u) {
  *rho = 1.0;
  u[0] = u[1] = u[2] = 0.0;
  if (strcmp(p->init, "random") == 0) {
    /* Keyed by the global cell index: the same field for every decomposition. Amplitudes
     * small enough to stay far from the lattice's Mach limit. */
    const uint32_t key0 = (uint32_t)p->run.seed, key1 = (uint32_t)(p->run.seed >> 32);
    const uint64_t gid =
        (uint64_t)i + (uint64_t)p->size[0] * ((uint64_t)j + (uint64_t)p->size[1] * (uint64_t)k);
    kit_philox4x32 c = {{(uint32_t)gid, (uint32_t)(gid >> 32), 0x4c424du, 0}};
    kit_philox_key key = {{key0, key1}};
    const kit_philox4x32 r = kit_philox4x32_10(c, key);
    *rho = 1.0 + 0.02 * (kit_u01(r.v[0]) - 0.5);
    for (int a = 0; a < 3; ++a) u[a] = 0.02 * (kit_u01(r.v[a + 1]) - 0.5);
  }
}

void lbm_fill(const lbm_params *p, const lbm_block *b, double *f) {
  const int NZ = p->size[2];
  memset(f, 0, b->total * sizeof *f); /* ghost planes beyond the walls: never read, defined */
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = 0; l < b->nz + 2; ++l)
    for (int j = 0; j < b->ny; ++j) {
      const int k = b->k0 - 1 + l;
      if (k < 1 || k > NZ) continue;
      const int from_ckpt = p->restart && k >= p->restart_k0 && k < p->restart_k0 + p->restart_nz;
      for (int i = 0; i < b->nx; ++i) {
        double rho, u[3], feq[LBM_Q];
        const size_t c = (size_t)l * b->plane + (size_t)j * (size_t)b->nx + (size_t)i;
        if (from_ckpt) {
          const double *src =
              p->restart + (size_t)(k - p->restart_k0) * LBM_Q * b->plane + (size_t)j * b->nx + i;
          for (int q = 0; q < LBM_Q; ++q) f[(size_t)q * b->qs + c] = src[(size_t)q * b->plane];
          continue;
        }
        lbm_initial_cell(p, i, j, k, &rho, u);
        lbm_equilibrium(rho, u[0], u[1], u[2], feq);
        for (int q = 0; q < LBM_Q; ++q) f[(size_t)q * b->qs + c] = feq[q];
      }
    }
}

void lbm_update_rows(const lbm_params *p, const lbm_block *b, const double *f, double *fn, int l0, int l1) {
  const lbm_geom g = lbm_geom_of(p, b);
  const double omega = p->omega, Fx = p->force[0], Fy = p->force[1], Fz = p->force[2];
#pragma omp for collapse(2) schedule(static)
  for (int l = l0; l < l1; ++l)
    for (int j = 0; j < b->ny; ++j) {
      if (!lbm_row_is_bulk(&g, j, l) || b->nx < 3) {
        for (int i = 0; i < b->nx; ++i) lbm_update_cell(f, fn, &g, i, j, l, omega, Fx, Fy, Fz);
        continue;
      }
      /* The row's two end cells touch the x walls (or wrap); the rest is bulk. */
      lbm_update_cell(f, fn, &g, 0, j, l, omega, Fx, Fy, Fz);
      const size_t row = (size_t)l * b->plane + (size_t)j * (size_t)b->nx;
      /* Cells of a row are independent (f is read, fn written): vectorise across them. */
#pragma omp simd
      for (int i = 1; i < b->nx - 1; ++i) {
        double c[LBM_Q];
        lbm_pull_bulk(f, &g, row + (size_t)i, c);
        lbm_collide_store(c, fn, &g, row + (size_t)i, omega, Fx, Fy, Fz);
      }
      lbm_update_cell(f, fn, &g, b->nx - 1, j, l, omega, Fx, Fy, Fz);
    }
}

void lbm_update_host(const lbm_params *p, const lbm_block *b, const double *f, double *fn, int l0, int l1,
                     int threads) {
  if (l1 <= l0) return;
#pragma omp parallel num_threads(threads)
  lbm_update_rows(p, b, f, fn, l0, l1);
}

void lbm_macroscopic(const lbm_params *p, const lbm_block *b, const double *f, int l0, int l1, double *out) {
  const lbm_geom g = lbm_geom_of(p, b);
#pragma omp parallel for collapse(2) schedule(static)
  for (int l = l0; l < l1; ++l)
    for (int j = 0; j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i) {
        double c[LBM_Q];
        lbm_pull(f, &g, i, j, l, c);
        double *o = out + 4 * (((size_t)(l - l0) * (size_t)b->ny + (size_t)j) * (size_t)b->nx + (size_t)i);
        lbm_moments(c, p->force[0], p->force[1], p->force[2], &o[0], &o[1], &o[2], &o[3]);
      }
}

/* Element by element through lbm_face_offset, the index the GPU kernels use (kernels.cu), so
 * the unit tests of this pair check theirs; the inner loop is a contiguous copy all the same. */
void lbm_pack(const lbm_block *b, const double *f, int l, int up, double *buf) {
  for (int m = 0; m < LBM_ZQ; ++m)
    for (size_t c = 0; c < b->plane; ++c)
      buf[(size_t)m * b->plane + c] = f[lbm_face_offset(b->plane, b->qs, l, up, m, c)];
}

void lbm_lattice_planes(const lbm_block *b, const double *f, double *out) {
  for (int l = 1; l <= b->nz; ++l)
    for (int q = 0; q < LBM_Q; ++q)
      memcpy(out + ((size_t)(l - 1) * LBM_Q + (size_t)q) * b->plane,
             f + (size_t)q * b->qs + (size_t)l * b->plane, b->plane * sizeof *out);
}

void lbm_unpack(const lbm_block *b, double *f, int l, int up, const double *buf) {
  for (int m = 0; m < LBM_ZQ; ++m)
    for (size_t c = 0; c < b->plane; ++c)
      f[lbm_face_offset(b->plane, b->qs, l, up, m, c)] = buf[(size_t)m * b->plane + c];
}
