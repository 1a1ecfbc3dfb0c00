/* d3q19.h: the physics of one lattice-Boltzmann cell update, written once for C and CUDA.
 * D3Q19 velocities and weights, the BGK equilibrium and collision (Risso Sec. 2.4, eqs.
 * 2.1-2.6), Guo's body-force term (for the Poiseuille case), and pull streaming of one
 * population with half-way bounce-back and the moving-lid correction (Sec. 2.5). The
 * oracle, the cpu variant and (later) the GPU kernels call these functions, so every one of
 * them evaluates the same expressions in the same order and agrees bit for bit
 * (DESIGN.md Sec. 6). Arguments are values or a read-only pointer, never globals, so nvcc
 * can compile them as __host__ __device__ without constant-memory tables.
 *
 * Directions (e_x, e_y, e_z), weights w: 0 rest (1/3); 1-6 faces (1/18); 7-18 edges (1/36).
 *   1 (+1, 0, 0)   2 (-1, 0, 0)   3 ( 0,+1, 0)   4 ( 0,-1, 0)   5 ( 0, 0,+1)   6 ( 0, 0,-1)
 *   7 (+1,+1, 0)   8 (-1,-1, 0)   9 (+1,-1, 0)  10 (-1,+1, 0)
 *  11 (+1, 0,+1)  12 (-1, 0,-1)  13 (+1, 0,-1)  14 (-1, 0,+1)
 *  15 ( 0,+1,+1)  16 ( 0,-1,-1)  17 ( 0,+1,-1)  18 ( 0,-1,+1)
 * Opposite pairs are (1,2) (3,4) ... (17,18): opp(q) = q odd ? q + 1 : q - 1. The five that
 * cross a z-face upwards are 5 11 14 15 18, downwards 6 12 13 16 17 (lbm_zdir). */
#ifndef LBM_D3Q19_H
#define LBM_D3Q19_H
#include <stddef.h>

#include "kit/hd.h"

#define LBM_Q 19
#define LBM_W0 (1.0 / 3.0)
#define LBM_W1 (1.0 / 18.0)
#define LBM_W2 (1.0 / 36.0)
/* Populations that cross one z-face in one direction. */
#define LBM_ZQ 5

/* Population lbm_zdir(up, m), m = 0..4: the m-th direction with e_z = +1 (up) or -1. */
static inline KIT_HD int lbm_zdir(int up, int m) {
  switch (m) {
    case 0:
      return up ? 5 : 6;
    case 1:
      return up ? 11 : 12;
    case 2:
      return up ? 14 : 13;
    case 3:
      return up ? 15 : 16;
    default:
      return up ? 18 : 17;
  }
}

/* The packed face buffer of one z-face (Risso Sec. 4.2, Listing 4.1): the LBM_ZQ populations
 * lbm_zdir(up, m), m = 0..4, of local plane l that cross the face upwards (up = 1) or
 * downwards, one plane of `plane` cells after the other, x fastest. Element m * plane + c of
 * the buffer is lattice element lbm_face_offset(plane, qs, l, up, m, c) (qs: doubles per
 * population array). The host's lbm_pack/lbm_unpack and the GPU's pack/unpack kernels both
 * index through it, so the tests of the host pair cover the kernels' index logic. */
static inline KIT_HD size_t lbm_face_offset(size_t plane, size_t qs, int l, int up, int m, size_t c) {
  return (size_t)lbm_zdir(up, m) * qs + (size_t)l * plane + c;
}

/* Where one block's populations live: structure of arrays, population q of local cell
 * (i, j, l) at f[q * qs + l * plane + j * nx + i]; local planes 0 and nz + 1 are ghosts. */
typedef struct lbm_geom {
  int nx, ny;      /* cells per row, rows per plane */
  int nz;          /* planes of the block, ghosts excluded */
  int k0;          /* global index (1-based) of local plane 1 */
  int NZ;          /* global number of planes */
  int periodic_xy; /* 1: x and y wrap around (Poiseuille); 0: walls (cavity) */
  size_t plane;    /* nx * ny */
  size_t qs;       /* doubles per population array: (nz + 2) * plane */
  double lid;      /* velocity of the wall above plane NZ in +x (0: at rest) */
} lbm_geom;

/* BGK equilibrium of one direction: w rho (1 + 3 e.u + 4.5 (e.u)^2 - 1.5 u.u). */
static inline KIT_HD double lbm_feq(double w, double rho, double eu, double usq) {
  return w * rho * (1.0 + 3.0 * eu + 4.5 * eu * eu - 1.5 * usq);
}

/* One population after collision: BGK relaxation with omega = 1/tau plus Guo's forcing term
 * c w (3 (e - u).F + 9 (e.u)(e.F)), c = 1 - omega/2 (zero when F = 0). */
static inline KIT_HD double lbm_relax(double fq, double w, double rho, double eu, double eF, double usq,
                                      double uF, double omega, double c) {
  const double feq = lbm_feq(w, rho, eu, usq);
  return fq + omega * (feq - fq) + c * w * (3.0 * (eF - uF) + 9.0 * eu * eF);
}

/* Density and velocity of a cell's (post-streaming) populations; with a body force the
 * velocity is shifted by half the force (Guo et al. 2002), which makes it second order. */
static inline KIT_HD void lbm_moments(const double *f, double Fx, double Fy, double Fz, double *rho,
                                      double *ux, double *uy, double *uz) {
  const double r = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8] + f[9] + f[10] + f[11] +
                   f[12] + f[13] + f[14] + f[15] + f[16] + f[17] + f[18];
  const double jx = f[1] - f[2] + f[7] - f[8] + f[9] - f[10] + f[11] - f[12] + f[13] - f[14];
  const double jy = f[3] - f[4] + f[7] - f[8] - f[9] + f[10] + f[15] - f[16] + f[17] - f[18];
  const double jz = f[5] - f[6] + f[11] - f[12] - f[13] + f[14] + f[15] - f[16] - f[17] + f[18];
  *rho = r;
  *ux = (jx + 0.5 * Fx) / r;
  *uy = (jy + 0.5 * Fy) / r;
  *uz = (jz + 0.5 * Fz) / r;
}

/* The equilibrium populations of (rho, u): the initial state. */
static inline KIT_HD void lbm_equilibrium(double rho, double ux, double uy, double uz, double *f) {
  const double usq = ux * ux + uy * uy + uz * uz;
  f[0] = lbm_feq(LBM_W0, rho, 0.0, usq);
  f[1] = lbm_feq(LBM_W1, rho, ux, usq);
  f[2] = lbm_feq(LBM_W1, rho, -ux, usq);
  f[3] = lbm_feq(LBM_W1, rho, uy, usq);
  f[4] = lbm_feq(LBM_W1, rho, -uy, usq);
  f[5] = lbm_feq(LBM_W1, rho, uz, usq);
  f[6] = lbm_feq(LBM_W1, rho, -uz, usq);
  f[7] = lbm_feq(LBM_W2, rho, ux + uy, usq);
  f[8] = lbm_feq(LBM_W2, rho, -(ux + uy), usq);
  f[9] = lbm_feq(LBM_W2, rho, ux - uy, usq);
  f[10] = lbm_feq(LBM_W2, rho, -(ux - uy), usq);
  f[11] = lbm_feq(LBM_W2, rho, ux + uz, usq);
  f[12] = lbm_feq(LBM_W2, rho, -(ux + uz), usq);
  f[13] = lbm_feq(LBM_W2, rho, ux - uz, usq);
  f[14] = lbm_feq(LBM_W2, rho, -(ux - uz), usq);
  f[15] = lbm_feq(LBM_W2, rho, uy + uz, usq);
  f[16] = lbm_feq(LBM_W2, rho, -(uy + uz), usq);
  f[17] = lbm_feq(LBM_W2, rho, uy - uz, usq);
  f[18] = lbm_feq(LBM_W2, rho, -(uy - uz), usq);
}

/* BGK collision of a cell's 19 populations in place, with body force F (0 for the cavity).
 * The moments are taken from the incoming populations, so mass is conserved exactly in
 * exact arithmetic and momentum changes by exactly F. */
static inline KIT_HD void lbm_collide(double *f, double omega, double Fx, double Fy, double Fz) {
  double rho, ux, uy, uz;
  lbm_moments(f, Fx, Fy, Fz, &rho, &ux, &uy, &uz);
  const double usq = ux * ux + uy * uy + uz * uz;
  const double uF = ux * Fx + uy * Fy + uz * Fz;
  const double c = 1.0 - 0.5 * omega;
  f[0] = lbm_relax(f[0], LBM_W0, rho, 0.0, 0.0, usq, uF, omega, c);
  f[1] = lbm_relax(f[1], LBM_W1, rho, ux, Fx, usq, uF, omega, c);
  f[2] = lbm_relax(f[2], LBM_W1, rho, -ux, -Fx, usq, uF, omega, c);
  f[3] = lbm_relax(f[3], LBM_W1, rho, uy, Fy, usq, uF, omega, c);
  f[4] = lbm_relax(f[4], LBM_W1, rho, -uy, -Fy, usq, uF, omega, c);
  f[5] = lbm_relax(f[5], LBM_W1, rho, uz, Fz, usq, uF, omega, c);
  f[6] = lbm_relax(f[6], LBM_W1, rho, -uz, -Fz, usq, uF, omega, c);
  f[7] = lbm_relax(f[7], LBM_W2, rho, ux + uy, Fx + Fy, usq, uF, omega, c);
  f[8] = lbm_relax(f[8], LBM_W2, rho, -(ux + uy), -(Fx + Fy), usq, uF, omega, c);
  f[9] = lbm_relax(f[9], LBM_W2, rho, ux - uy, Fx - Fy, usq, uF, omega, c);
  f[10] = lbm_relax(f[10], LBM_W2, rho, -(ux - uy), -(Fx - Fy), usq, uF, omega, c);
  f[11] = lbm_relax(f[11], LBM_W2, rho, ux + uz, Fx + Fz, usq, uF, omega, c);
  f[12] = lbm_relax(f[12], LBM_W2, rho, -(ux + uz), -(Fx + Fz), usq, uF, omega, c);
  f[13] = lbm_relax(f[13], LBM_W2, rho, ux - uz, Fx - Fz, usq, uF, omega, c);
  f[14] = lbm_relax(f[14], LBM_W2, rho, -(ux - uz), -(Fx - Fz), usq, uF, omega, c);
  f[15] = lbm_relax(f[15], LBM_W2, rho, uy + uz, Fy + Fz, usq, uF, omega, c);
  f[16] = lbm_relax(f[16], LBM_W2, rho, -(uy + uz), -(Fy + Fz), usq, uF, omega, c);
  f[17] = lbm_relax(f[17], LBM_W2, rho, uy - uz, Fy - Fz, usq, uF, omega, c);
  f[18] = lbm_relax(f[18], LBM_W2, rho, -(uy - uz), -(Fy - Fz), usq, uF, omega, c);
}

/* Population q (opposite o, velocity e, weight w) arriving at local cell (i, j, l) in the
 * pull scheme: the post-collision value of the upstream cell (i, j, l) - e. Where that cell
 * lies behind a wall, the wall sits half-way between the two cell centres and the population
 * that left (i, j, l) towards it in direction o comes straight back (half-way bounce-back).
 * Behind the lid (global plane NZ + 1) it also picks up the wall's momentum:
 * f_q = f_o + 6 w rho_w (e_q . u_w) with rho_w = 1, u_w = (lid, 0, 0) (Ladd 1994); over the
 * five directions that cross the lid the terms sum to zero, so mass is conserved, edge
 * cells included (which is why a population crossing lid and side wall at once takes the
 * lid's velocity). Poiseuille: x and y wrap around, z walls at rest. */
static inline KIT_HD double lbm_pull_q(const double *f, const lbm_geom *g, int i, int j, int l, int q, int o,
                                       int ex, int ey, int ez, double w) {
  int si = i - ex, sj = j - ey;
  const int sk = g->k0 - 1 + l - ez; /* global plane of the upstream cell */
  int wall = sk < 1 || sk > g->NZ;
  if (g->periodic_xy) {
    si = si < 0 ? si + g->nx : (si >= g->nx ? si - g->nx : si);
    sj = sj < 0 ? sj + g->ny : (sj >= g->ny ? sj - g->ny : sj);
  } else {
    wall = wall || si < 0 || si >= g->nx || sj < 0 || sj >= g->ny;
  }
  if (wall) {
    const double back = f[(size_t)o * g->qs + (size_t)l * g->plane + (size_t)j * (size_t)g->nx + (size_t)i];
    return sk > g->NZ ? back + 6.0 * w * ((double)ex * g->lid) : back;
  }
  return f[(size_t)q * g->qs + (size_t)(l - ez) * g->plane + (size_t)sj * (size_t)g->nx + (size_t)si];
}

/* All 19 populations arriving at local cell (i, j, l): the streaming step. */
static inline KIT_HD void lbm_pull(const double *f, const lbm_geom *g, int i, int j, int l, double *out) {
  out[0] = f[(size_t)l * g->plane + (size_t)j * (size_t)g->nx + (size_t)i];
  out[1] = lbm_pull_q(f, g, i, j, l, 1, 2, 1, 0, 0, LBM_W1);
  out[2] = lbm_pull_q(f, g, i, j, l, 2, 1, -1, 0, 0, LBM_W1);
  out[3] = lbm_pull_q(f, g, i, j, l, 3, 4, 0, 1, 0, LBM_W1);
  out[4] = lbm_pull_q(f, g, i, j, l, 4, 3, 0, -1, 0, LBM_W1);
  out[5] = lbm_pull_q(f, g, i, j, l, 5, 6, 0, 0, 1, LBM_W1);
  out[6] = lbm_pull_q(f, g, i, j, l, 6, 5, 0, 0, -1, LBM_W1);
  out[7] = lbm_pull_q(f, g, i, j, l, 7, 8, 1, 1, 0, LBM_W2);
  out[8] = lbm_pull_q(f, g, i, j, l, 8, 7, -1, -1, 0, LBM_W2);
  out[9] = lbm_pull_q(f, g, i, j, l, 9, 10, 1, -1, 0, LBM_W2);
  out[10] = lbm_pull_q(f, g, i, j, l, 10, 9, -1, 1, 0, LBM_W2);
  out[11] = lbm_pull_q(f, g, i, j, l, 11, 12, 1, 0, 1, LBM_W2);
  out[12] = lbm_pull_q(f, g, i, j, l, 12, 11, -1, 0, -1, LBM_W2);
  out[13] = lbm_pull_q(f, g, i, j, l, 13, 14, 1, 0, -1, LBM_W2);
  out[14] = lbm_pull_q(f, g, i, j, l, 14, 13, -1, 0, 1, LBM_W2);
  out[15] = lbm_pull_q(f, g, i, j, l, 15, 16, 0, 1, 1, LBM_W2);
  out[16] = lbm_pull_q(f, g, i, j, l, 16, 15, 0, -1, -1, LBM_W2);
  out[17] = lbm_pull_q(f, g, i, j, l, 17, 18, 0, 1, -1, LBM_W2);
  out[18] = lbm_pull_q(f, g, i, j, l, 18, 17, 0, -1, 1, LBM_W2);
}

/* The same streaming for a cell whose 18 upstream neighbours are all fluid cells of the
 * block (no wall, no wrap-around): plain loads at fixed offsets, no branches, so the
 * compiler can vectorise along x. The loads are the same as lbm_pull's, so are the bits. */
static inline KIT_HD void lbm_pull_bulk(const double *f, const lbm_geom *g, size_t c, double *out) {
  const size_t qs = g->qs, X = 1, Y = (size_t)g->nx, Z = g->plane;
  out[0] = f[c];
  out[1] = f[1 * qs + c - X];
  out[2] = f[2 * qs + c + X];
  out[3] = f[3 * qs + c - Y];
  out[4] = f[4 * qs + c + Y];
  out[5] = f[5 * qs + c - Z];
  out[6] = f[6 * qs + c + Z];
  out[7] = f[7 * qs + c - X - Y];
  out[8] = f[8 * qs + c + X + Y];
  out[9] = f[9 * qs + c - X + Y];
  out[10] = f[10 * qs + c + X - Y];
  out[11] = f[11 * qs + c - X - Z];
  out[12] = f[12 * qs + c + X + Z];
  out[13] = f[13 * qs + c - X + Z];
  out[14] = f[14 * qs + c + X - Z];
  out[15] = f[15 * qs + c - Y - Z];
  out[16] = f[16 * qs + c + Y + Z];
  out[17] = f[17 * qs + c - Y + Z];
  out[18] = f[18 * qs + c + Y - Z];
}

/* 1 if every upstream neighbour of the cells 1 .. nx-2 of row j of local plane l is a fluid
 * cell of the block: rows away from the y walls (or wrap), planes away from the z walls. */
static inline KIT_HD int lbm_row_is_bulk(const lbm_geom *g, int j, int l) {
  const int k = g->k0 - 1 + l;
  return j >= 1 && j <= g->ny - 2 && k >= 2 && k <= g->NZ - 1;
}

/* Collide the streamed populations c and store them as cell `at` of fn. */
static inline KIT_HD void lbm_collide_store(double *c, double *fn, const lbm_geom *g, size_t at, double omega,
                                            double Fx, double Fy, double Fz) {
  lbm_collide(c, omega, Fx, Fy, Fz);
  for (int q = 0; q < LBM_Q; ++q) fn[(size_t)q * g->qs + at] = c[q];
}

/* One full update of local cell (i, j, l): pull from f, collide, store into fn. */
static inline KIT_HD void lbm_update_cell(const double *f, double *fn, const lbm_geom *g, int i, int j, int l,
                                          double omega, double Fx, double Fy, double Fz) {
  double c[LBM_Q];
  lbm_pull(f, g, i, j, l, c);
  lbm_collide_store(c, fn, g, (size_t)l * g->plane + (size_t)j * (size_t)g->nx + (size_t)i, omega, Fx, Fy,
                    Fz);
}
#endif
