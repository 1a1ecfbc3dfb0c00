/* box.h: an lbm rank's box on a process grid (--procs PxQxR other than 1x1xN; README.md
 * "Process grids"), written once for C and CUDA like d3q19.h: the padded storage, the
 * streaming step of a box cell, and the 18 links of Risso Sec. 4.2 in 3D: a D3Q19 population
 * moves to a face neighbour or an edge neighbour of its cell, never to a corner one, so a box
 * exchanges with up to 6 face and 12 edge neighbours. Through a face travel the 5 populations
 * whose velocity points through it (the z-slab's lbm_zdir, for every axis); through an edge the
 * one population whose velocity is the edge's diagonal. The index of a packed link message
 * (lbm_box_link_offset) is the one the host pack and unpack use (box.c), and the one a GPU
 * kernel will use, so the unit tests of the host pair cover it.
 *
 * Storage: structure of arrays, population q of local cell (i, j, l), each of i, j, l in
 * [0, n + 1] (0 and n + 1 the ghost layers), at f[q * qs + l * sz + j * sy + i]. A row's
 * stride sy is nx + 2 rounded up to LBM_BOX_ALIGN doubles (the tail is padding, zero on the
 * host, never read), and a device lattice starts LBM_BOX_ALIGN - 1 doubles into its allocation
 * (lbm_dev_box_init), so every row's first interior cell (i = 1) opens a 128-byte line, as a
 * z-slab's rows do: a warp's stores of a row then fill whole sectors and lines. With rows of
 * nx + 2 doubles every row began mid-sector, and a 1x2x1 grid's step at 256^3 a GPU took 28%
 * longer on two H200s. Local cell
 * (i, j, l) is global cell (i0 - 1 + i, j0 - 1 + j, k0 - 1 + l): x and y 0-based, z 1-based,
 * lbm_initial_cell's convention. A ghost cell holds the populations its owner sent through the
 * link that faces it; ghosts beyond a wall are never read (the wall bounces back). */
#ifndef LBM_BOX_H
#define LBM_BOX_H
#include <stddef.h>

#include "d3q19.h"
#include "kit/boxsplit.h"

#define LBM_BOX_ALIGN 16 /* doubles: one 128-byte line */

/* A box row's stride for nx interior cells: nx + 2, rounded up to LBM_BOX_ALIGN doubles. */
static inline KIT_HD size_t lbm_box_row_stride(int nx) {
  return ((size_t)nx + 2 + LBM_BOX_ALIGN - 1) / LBM_BOX_ALIGN * LBM_BOX_ALIGN;
}

typedef struct lbm_box {
  int nx, ny, nz; /* interior cells per axis */
  int i0, j0, k0; /* global index of interior cell (1, 1, 1): x, y 0-based, z 1-based */
  int NX, NY, NZ; /* the whole lattice */
  size_t sy, sz;  /* strides of a row (nx + 2, rounded up to LBM_BOX_ALIGN) and of a plane
                     (sy (ny + 2)), in doubles */
  size_t qs;      /* (nz + 2) sz: doubles per population array */
  size_t total;   /* LBM_Q qs: doubles per lattice */
  double lid;     /* velocity of the wall above plane NZ in +x */
} lbm_box;

/* A box's step split for overlap (Risso Sec. 4.3 in 3D): the outer layer, every cell next to a
 * face with a neighbour rank (every cell a link sends from), as up to six disjoint boxes
 * [lo[f], hi[f]) (local, half-open; the x ones whole, the y ones within the inner x range, the
 * z ones within the inner x and y ranges; empty where a face has no neighbour), and the inner
 * box [in_lo, in_hi), the rest. Together they partition the box's cells. The split is the kit's
 * (kit/boxsplit.h, laplace's too), cut x first. */
typedef kit_box_split lbm_box_regions;

/* The links: 0-5 the faces -x +x -y +y -z +z, 6-17 the edges (-x-y) (+x+y) (-x+y) (+x-y),
 * (-x-z) (+x+z) (-x+z) (+x-z), (-y-z) (+y+z) (-y+z) (+y-z). The opposite of link n is n ^ 1. */
#define LBM_LINKS 18
#define LBM_FACE_LINKS 6

/* Link n's offset along axis a: -1, 0 or +1. */
static inline KIT_HD int lbm_link_dir(int n, int a) {
  if (n < LBM_FACE_LINKS) return a == n / 2 ? (n % 2 ? 1 : -1) : 0;
  const int e = n - LBM_FACE_LINKS, pair = e / 4, w = e % 4;
  const int first = pair == 2 ? 1 : 0, second = pair == 0 ? 1 : 2; /* xy, xz, yz */
  if (a == first) return w % 2 ? 1 : -1;                           /* w: (-,-) (+,+) (-,+) (+,-) */
  if (a == second) return w == 1 || w == 2 ? 1 : -1;
  return 0;
}

/* Velocity component a of D3Q19 direction q (the table in d3q19.h). */
static inline KIT_HD int lbm_e(int q, int a) {
  switch (q) {
    case 1:
      return a == 0 ? 1 : 0;
    case 2:
      return a == 0 ? -1 : 0;
    case 3:
      return a == 1 ? 1 : 0;
    case 4:
      return a == 1 ? -1 : 0;
    case 5:
      return a == 2 ? 1 : 0;
    case 6:
      return a == 2 ? -1 : 0;
    case 7:
      return a == 2 ? 0 : 1;
    case 8:
      return a == 2 ? 0 : -1;
    case 9:
      return a == 0 ? 1 : (a == 1 ? -1 : 0);
    case 10:
      return a == 0 ? -1 : (a == 1 ? 1 : 0);
    case 11:
      return a == 1 ? 0 : 1;
    case 12:
      return a == 1 ? 0 : -1;
    case 13:
      return a == 0 ? 1 : (a == 2 ? -1 : 0);
    case 14:
      return a == 0 ? -1 : (a == 2 ? 1 : 0);
    case 15:
      return a == 0 ? 0 : 1;
    case 16:
      return a == 0 ? 0 : -1;
    case 17:
      return a == 1 ? 1 : (a == 2 ? -1 : 0);
    case 18:
      return a == 1 ? -1 : (a == 2 ? 1 : 0);
    default:
      return 0;
  }
}

/* Populations that cross link n: 5 through a face, 1 through an edge. */
static inline KIT_HD int lbm_link_pops(int n) {
  return n < LBM_FACE_LINKS ? LBM_ZQ : 1;
}

/* The m-th population (ascending q) that crosses link n outwards (ghost 0: what this rank sends
 * through it, velocity along n's offset on each of its axes) or inwards (ghost 1: what arrives
 * through it, velocity against it). Sender and receiver list the same populations in the same
 * order: what leaves through n arrives through the neighbour's n ^ 1. */
static inline KIT_HD int lbm_link_q(int n, int ghost, int m) {
  for (int q = 1; q < LBM_Q; ++q) {
    int match = 1;
    for (int a = 0; a < 3; ++a) {
      const int d = lbm_link_dir(n, a);
      if (d != 0 && lbm_e(q, a) != (ghost ? -d : d)) match = 0;
    }
    if (match && m-- == 0) return q;
  }
  return -1;
}

/* The cells of link n's layer: ghost 0 the interior cells next to the link (what is sent),
 * ghost 1 the ghost cells beyond it (where what arrives goes). lo[a]: first local index along
 * axis a, cnt[a]: cells along it (1 across the link, the box's along an axis it does not cross). */
static inline KIT_HD void lbm_box_link_layer(const lbm_box *b, int n, int ghost, int lo[3], int cnt[3]) {
  const int len[3] = {b->nx, b->ny, b->nz};
  for (int a = 0; a < 3; ++a) {
    const int d = lbm_link_dir(n, a);
    cnt[a] = d == 0 ? len[a] : 1;
    lo[a] = d == 0 ? 1 : (d > 0 ? (ghost ? len[a] + 1 : len[a]) : (ghost ? 0 : 1));
  }
}

/* Cells of link n's layer (the same for ghost 0 and 1). */
static inline KIT_HD size_t lbm_box_link_cells(const lbm_box *b, int n) {
  int lo[3], cnt[3];
  lbm_box_link_layer(b, n, 0, lo, cnt);
  return (size_t)cnt[0] * (size_t)cnt[1] * (size_t)cnt[2];
}

/* The packed message of link n: lbm_link_pops(n) populations lbm_link_q(n, ghost, m), each the
 * layer's cells, x fastest, then y, then z. Element m * cells + c of the message is lattice
 * element lbm_box_link_offset(b, n, ghost, m, c). */
static inline KIT_HD size_t lbm_box_link_offset(const lbm_box *b, int n, int ghost, int m, size_t c) {
  int lo[3], cnt[3];
  lbm_box_link_layer(b, n, ghost, lo, cnt);
  const size_t i = (size_t)lo[0] + c % (size_t)cnt[0],
               j = (size_t)lo[1] + c / (size_t)cnt[0] % (size_t)cnt[1],
               l = (size_t)lo[2] + c / ((size_t)cnt[0] * (size_t)cnt[1]);
  return (size_t)lbm_link_q(n, ghost, m) * b->qs + l * b->sz + j * b->sy + i;
}

/* lbm_pull_q on a box: population q (opposite o, velocity e, weight w) arriving at local cell
 * (i, j, l). Walls are where the upstream cell's global index leaves the lattice (the cavity:
 * no periodic axis on a grid); elsewhere the upstream cell is an interior or ghost cell of the
 * box. The bounce-back and the lid's term are lbm_pull_q's expressions, so the bits are. */
static inline KIT_HD double lbm_box_pull_q(const double *f, const lbm_box *b, int i, int j, int l, int q,
                                           int o, int ex, int ey, int ez, double w) {
  const int gi = b->i0 - 1 + i - ex, gj = b->j0 - 1 + j - ey, gk = b->k0 - 1 + l - ez;
  const int wall = gk < 1 || gk > b->NZ || gi < 0 || gi >= b->NX || gj < 0 || gj >= b->NY;
  if (wall) {
    const double back = f[(size_t)o * b->qs + (size_t)l * b->sz + (size_t)j * b->sy + (size_t)i];
    return gk > b->NZ ? back + 6.0 * w * ((double)ex * b->lid) : back;
  }
  return f[(size_t)q * b->qs + (size_t)(l - ez) * b->sz + (size_t)(j - ey) * b->sy + (size_t)(i - ex)];
}

/* All 19 populations arriving at local cell (i, j, l) of a box (lbm_pull's order). */
static inline KIT_HD void lbm_box_pull(const double *f, const lbm_box *b, int i, int j, int l, double *out) {
  out[0] = f[(size_t)l * b->sz + (size_t)j * b->sy + (size_t)i];
  out[1] = lbm_box_pull_q(f, b, i, j, l, 1, 2, 1, 0, 0, LBM_W1);
  out[2] = lbm_box_pull_q(f, b, i, j, l, 2, 1, -1, 0, 0, LBM_W1);
  out[3] = lbm_box_pull_q(f, b, i, j, l, 3, 4, 0, 1, 0, LBM_W1);
  out[4] = lbm_box_pull_q(f, b, i, j, l, 4, 3, 0, -1, 0, LBM_W1);
  out[5] = lbm_box_pull_q(f, b, i, j, l, 5, 6, 0, 0, 1, LBM_W1);
  out[6] = lbm_box_pull_q(f, b, i, j, l, 6, 5, 0, 0, -1, LBM_W1);
  out[7] = lbm_box_pull_q(f, b, i, j, l, 7, 8, 1, 1, 0, LBM_W2);
  out[8] = lbm_box_pull_q(f, b, i, j, l, 8, 7, -1, -1, 0, LBM_W2);
  out[9] = lbm_box_pull_q(f, b, i, j, l, 9, 10, 1, -1, 0, LBM_W2);
  out[10] = lbm_box_pull_q(f, b, i, j, l, 10, 9, -1, 1, 0, LBM_W2);
  out[11] = lbm_box_pull_q(f, b, i, j, l, 11, 12, 1, 0, 1, LBM_W2);
  out[12] = lbm_box_pull_q(f, b, i, j, l, 12, 11, -1, 0, -1, LBM_W2);
  out[13] = lbm_box_pull_q(f, b, i, j, l, 13, 14, 1, 0, -1, LBM_W2);
  out[14] = lbm_box_pull_q(f, b, i, j, l, 14, 13, -1, 0, 1, LBM_W2);
  out[15] = lbm_box_pull_q(f, b, i, j, l, 15, 16, 0, 1, 1, LBM_W2);
  out[16] = lbm_box_pull_q(f, b, i, j, l, 16, 15, 0, -1, -1, LBM_W2);
  out[17] = lbm_box_pull_q(f, b, i, j, l, 17, 18, 0, 1, -1, LBM_W2);
  out[18] = lbm_box_pull_q(f, b, i, j, l, 18, 17, 0, -1, 1, LBM_W2);
}

/* The box's strides as an lbm_geom, for lbm_pull_bulk and lbm_collide_store (which read only
 * nx as the row stride, plane and qs): a bulk cell's 18 upstream cells are at the same offsets
 * in a box as in a slab, one row being sy doubles. */
static inline KIT_HD lbm_geom lbm_box_geom(const lbm_box *b) {
  lbm_geom g;
  g.nx = (int)b->sy;
  g.ny = b->ny + 2;
  g.nz = b->nz;
  g.k0 = b->k0;
  g.NZ = b->NZ;
  g.periodic_xy = 0;
  g.plane = b->sz;
  g.qs = b->qs;
  g.lid = b->lid;
  return g;
}
#endif
