/* lj.h: the physics of one particle update, written once for C and CUDA.
 * Lennard-Jones 12-6 with epsilon = sigma = mass = 1, truncated at rc (optionally shifted so
 * the energy is continuous at rc), the sum of them on one particle over its 27 neighbouring
 * cells, and the velocity-Verlet half-kick and drift, as used by the short-range particle
 * dynamics of Bernaschi et al. Sec. 3.2. The cpu variant, the hybrid variant's CPU part and
 * the GPU kernels (kernels.cu) call these functions, so they evaluate the same expressions in
 * the same order. The independent all-pairs reference (reference.c) deliberately does NOT use them:
 * it writes the potential out again, so a wrong sign here cannot agree with itself. */
#ifndef PARTICLES_LJ_H
#define PARTICLES_LJ_H
#include "kit/hd.h"

/* The pair interaction at squared distance r2 < rc2: returns the energy 4 (r^-12 - r^-6)
 * - eshift and writes f/r = 24 (2 r^-12 - r^-6) / r^2 (the force on i is (f/r) (x_i - x_j)).
 * Beyond the cutoff both are zero. f/r is what the caller needs: no square root. */
static inline KIT_HD double lj_pair(double r2, double rc2, double eshift, double *f_over_r) {
  if (!(r2 < rc2)) {
    *f_over_r = 0.0;
    return 0.0;
  }
  const double inv2 = 1.0 / r2;
  const double inv6 = inv2 * inv2 * inv2;
  *f_over_r = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0);
  return 4.0 * inv6 * (inv6 - 1.0) - eshift;
}

/* The force, potential energy and virial of particle i of local cell c: the pairs with every
 * particle j of the 27 neighbouring cells nbr[27 c .. 27 c + 26] (a fixed order of offsets),
 * the particles of a cell in the order of the cell matrix rows cstart[] (sorted by id), i
 * itself skipped, and no Newton's-third-law halving: each particle's force is one sequential
 * sum in an order fixed by the global cells and the ids, whoever computes it (a CPU thread or
 * a GPU thread) and whatever the rank grid, so it is bitwise reproducible and needs no
 * atomics. pe and vir get half of each pair's energy and r . f (each pair is seen from both
 * ends). x holds 3 doubles per particle, owned particles and received copies alike.
 * neighbor.h's lj_force_list is its twin over a Verlet list (--neighbor list), term for term:
 * keep the two in step. */
static inline KIT_HD void lj_force_on(int i, int c, const double *x, const int *nbr, const int *cstart,
                                      double rc2, double eshift, double *f, double *pe, double *vir) {
  double fx = 0.0, fy = 0.0, fz = 0.0, e_sum = 0.0, w = 0.0;
  const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
  for (int m = 0; m < 27; ++m) {
    const int nb = nbr[27 * c + m];
    for (int j = cstart[nb]; j < cstart[nb + 1]; ++j) {
      if (j == i) continue;
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (!(r2 < rc2)) continue;
      double fr;
      const double e = lj_pair(r2, rc2, eshift, &fr);
      fx += fr * dx;
      fy += fr * dy;
      fz += fr * dz;
      e_sum += 0.5 * e;   /* each pair is seen from both ends */
      w += 0.5 * fr * r2; /* r . f */
    }
  }
  f[0] = fx;
  f[1] = fy;
  f[2] = fz;
  *pe = e_sum;
  *vir = w;
}

/* The energy shift that makes the truncated potential zero at rc (--shift), else 0. */
static inline KIT_HD double lj_shift_at(double rc, int shift) {
  if (!shift) return 0.0;
  const double inv2 = 1.0 / (rc * rc);
  const double inv6 = inv2 * inv2 * inv2;
  return 4.0 * inv6 * (inv6 - 1.0);
}

/* Velocity Verlet, mass 1: v += (dt/2) f, before and after the drift x += dt v. */
static inline KIT_HD void vv_kick(double *v, const double *f, double half_dt) {
  v[0] += half_dt * f[0];
  v[1] += half_dt * f[1];
  v[2] += half_dt * f[2];
}
static inline KIT_HD void vv_drift(double *x, const double *v, double dt) {
  x[0] += dt * v[0];
  x[1] += dt * v[1];
  x[2] += dt * v[2];
}

/* The cell coordinate of position x along one axis of length len cut into nc cells:
 * floor(x / side) as in the paper's gid formula (Sec. 3.2.1), made consistent with the box at
 * its two faces despite rounding: x < 0 gives a coordinate < 0, x >= len one >= nc, and
 * 0 <= x < len one in [0, nc). So the rank that owns a cell and the periodic shift of a
 * particle never disagree, and a migrant always lands in an owned cell (cpu.c). */
static inline KIT_HD int cell_coord(double x, double inv_side, double len, int nc) {
  if (x != x) return -2; /* NaN */
  const double t0 = x * inv_side;
  /* Far outside (a blown-up run, NaN) maps to -2 or nc + 2: not a cell of any rank. */
  const double t = !(t0 >= -2.0) ? -2.0 : t0 > nc + 2.0 ? nc + 2.0 : t0;
  int c = (int)t;
  if ((double)c > t) c -= 1; /* floor without libm, for negative x too */
  if (x < 0.0) {
    if (c >= 0) c = -1;
  } else if (x >= len) {
    if (c < nc) c = nc;
  } else {
    if (c < 0) c = 0;
    if (c >= nc) c = nc - 1;
  }
  return c;
}
#endif
