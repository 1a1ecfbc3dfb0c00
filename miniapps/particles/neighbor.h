/* neighbor.h: the Verlet neighbour list of --neighbor list, written once for C and CUDA: which
 * image of a neighbour a force uses, the order the pairs are summed in, one particle's list
 * build and its force. nlist.c runs them on the host; a GPU kernel can call the same ones.
 *
 * The order. lj.h's lj_force_on sums particle i's pairs over the 27 cells around i's cell in
 * (dz, dy, dx) order, the particles of a cell by id. Those cells are i's cell plus offsets, so
 * the order is that of the neighbour's cell offset (z, then y, then x; a copy across a periodic
 * face has its image's cell), then of the neighbour's id, in the tiling of side >= rc that
 * --neighbor cells runs on (the "order cells", p->knc). A pair beyond rc adds nothing, so the
 * sum depends only on the order of the pairs within rc. A list sorted by (pt_order_code, id)
 * sums the same pairs in the same order as --neighbor cells: forces, and so the trajectory,
 * bit for bit, though its own cells (of side >= rc + skin, p->nc) are coarser. A list is kept
 * between builds; a neighbour that moves into another order cell moves in the order, so each
 * step pt_list_reorder puts back in order the lists that hold a particle whose order cells
 * changed (an insertion sort: linear when only a few entries are out of place).
 *
 * The positions. Between builds the particles keep their slots: no migration, no sort. A
 * particle that crosses a periodic face is wrapped in place with migration's arithmetic
 * (cpu.c), so every owned position equals --neighbor cells' bit for bit; the copies of other
 * ranks' particles hold their owners' positions unshifted. The image a pair needs is the
 * nearest, x_j - s L with s = -1, 0, +1 per axis (pt_image), computed as the cells path's
 * sender computes a copy, so dx is the same double. See README.md, "Neighbour lists". */
#ifndef PARTICLES_NEIGHBOR_H
#define PARTICLES_NEIGHBOR_H
#include <stdint.h>

#include "images.h"
#include "kit/hd.h"
#include "lj.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What ordering needs, by value (a kernel argument): the order cells and the box. */
typedef struct pt_order {
  double inv_side[3]; /* knc / L: the order cells, of side >= rc */
  double box[3], half[3];
  int nc[3];    /* order cells per axis */
  int periodic; /* 1: the periodic box; 0: walls (no images) */
} pt_order;

/* A code holds the offset of the neighbour's order cell from the particle's, -2 .. 2 per axis:
 * a pair within rc is at most one cell apart, and one farther than two cells (more than 2 rc
 * apart) adds nothing, so its offset is clamped to 2 and its place among the others does not
 * matter. 5^3 codes. */
#define PT_ORDER_REACH 2
#define PT_ORDER_CODES 125

/* The image of a neighbour at xj that a particle at xi sums along one axis: the copy
 * xj - s L, s = -1, 0 or +1, the nearest one (within rc only one is, as the box holds at least
 * three cells of side >= rc). Walls: 0. */
static inline KIT_HD int pt_image(double xi, double xj, double half, int periodic) {
  const double d = xi - xj;
  return !periodic ? 0 : d > half ? -1 : d < -half ? 1 : 0;
}

/* The order cells of the copies of a particle at x: kc[3 a + s + 1] is the cell coordinate
 * along axis a of x_a - s L, s = -1, 0, 1, binned as the cells path bins a copy (lj.h's
 * cell_coord of the shifted double). Walls: only s = 0 (the others 0). */
static inline KIT_HD void pt_order_cells(const pt_order *o, const double x[3], int kc[9]) {
  for (int a = 0; a < 3; ++a)
    for (int s = -1; s <= 1; ++s)
      kc[3 * a + s + 1] = (s != 0 && !o->periodic)
                              ? 0
                              : cell_coord(x[a] - s * o->box[a], o->inv_side[a], o->box[a], o->nc[a]);
}

/* pt_order_cells of x into kc; 1 if they changed (the list step's moved flag). */
static inline KIT_HD int pt_order_cells_update(const pt_order *o, const double x[3], int kc[9]) {
  int now[9], changed = 0;
  pt_order_cells(o, x, now);
  for (int k = 0; k < 9; ++k) {
    changed |= now[k] != kc[k];
    kc[k] = now[k];
  }
  return changed;
}

/* Between builds, after the drift: a particle that left the periodic box is wrapped in place
 * with migration's arithmetic (pt_migrant_coord), so it holds the position --neighbor cells
 * gives it at this step. Walls: nothing. */
static inline KIT_HD void pt_list_wrap(const pt_order *o, double x[3]) {
  if (!o->periodic) return;
  for (int a = 0; a < 3; ++a) {
    const int sh = x[a] < 0.0 ? -1 : x[a] >= o->box[a] ? 1 : 0;
    if (sh) x[a] = pt_migrant_coord(x[a], sh, o->box[a]);
  }
}

/* 1 if a particle at x moved more than sqrt(lim) (skin/2) from xb, its position at the last
 * build (the nearest image: it may have been wrapped across a face since), or x is not a
 * number: the test for a build. */
static inline KIT_HD int pt_list_far_one(const pt_order *o, const double x[3], const double xb[3],
                                         double lim) {
  double d2 = 0.0;
  for (int a = 0; a < 3; ++a) {
    double u = x[a] - xb[a];
    if (o->periodic) {
      if (u > o->half[a]) u -= o->box[a];
      if (u < -o->half[a]) u += o->box[a];
    }
    d2 += u * u;
  }
  return !(d2 <= lim); /* NaN too */
}

/* The code of the offset cj - ci between two order cells (x, y, z coordinates), as one number
 * in [0, PT_ORDER_CODES) in (z, y, x) lexicographic order. */
static inline KIT_HD int pt_order_offset_code(const int ci[3], const int cj[3]) {
  const int r = PT_ORDER_REACH, w = 2 * PT_ORDER_REACH + 1;
  int c[3];
  for (int a = 0; a < 3; ++a) {
    const int off = cj[a] - ci[a];
    c[a] = (off < -r ? -r : off > r ? r : off) + r;
  }
  return (c[2] * w + c[1]) * w + c[0];
}

/* The code of neighbour j in particle i's sum: the offset of the order cell of the copy i
 * sums from i's own order cell. kci, kcj: their pt_order_cells. Ties (one cell) go by id. */
static inline KIT_HD int pt_order_code(const pt_order *o, const double *xi, const int *kci, const double *xj,
                                       const int *kcj) {
  int ci[3], cj[3];
  for (int a = 0; a < 3; ++a) {
    ci[a] = kci[3 * a + 1];
    cj[a] = kcj[3 * a + pt_image(xi[a], xj[a], o->half[a], o->periodic) + 1];
  }
  return pt_order_offset_code(ci, cj);
}

/* The layout of a list. Entry k of a list is at list[k * st] (and its code at code[k * st]):
 * st = 1 on the host, where each list is contiguous; on the GPU the lists are transposed, entry
 * k of particle i at k n + i (st = n), so the threads of a warp, consecutive particles, touch
 * one line per entry instead of 32. */
#define PT_AT(a, k, st) ((a)[(size_t)(k) * (size_t)(st)])

/* Insertion sort of entries [b, e) by (code, id), code[] travelling with it: linear when at
 * most a few entries are out of place, as from one step to the next. */
static inline KIT_HD void pt_list_sort(int *list, int *code, int st, const int64_t *id, int b, int e) {
  for (int k = b + 1; k < e; ++k) {
    const int j = PT_AT(list, k, st), cj = PT_AT(code, k, st);
    const int cp = PT_AT(code, k - 1, st);
    if (cp < cj || (cp == cj && id[PT_AT(list, k - 1, st)] < id[j])) continue;
    int m = k;
    while (m > b) {
      const int cm = PT_AT(code, m - 1, st), jm = PT_AT(list, m - 1, st);
      if (!(cm > cj || (cm == cj && id[jm] > id[j]))) break;
      PT_AT(list, m, st) = jm;
      PT_AT(code, m, st) = cm;
      --m;
    }
    PT_AT(list, m, st) = j;
    PT_AT(code, m, st) = cj;
  }
}

/* Sorts entries [0, n) by (code, id) from any order: by code (a counting sort, tl and tc
 * scratch of n entries in the same layout, count of PT_ORDER_CODES + 1), then by id within a
 * code. */
static inline KIT_HD void pt_list_sort_fresh(int *list, int *code, int st, const int64_t *id, int n, int *tl,
                                             int *tc, int *count) {
  for (int q = 0; q <= PT_ORDER_CODES; ++q) count[q] = 0;
  for (int k = 0; k < n; ++k) count[PT_AT(code, k, st) + 1]++;
  for (int q = 0; q < PT_ORDER_CODES; ++q) count[q + 1] += count[q];
  for (int k = 0; k < n; ++k) {
    const int at = count[PT_AT(code, k, st)]++;
    PT_AT(tl, at, st) = PT_AT(list, k, st);
    PT_AT(tc, at, st) = PT_AT(code, k, st);
  }
  for (int k = 0; k < n; ++k) {
    PT_AT(list, k, st) = PT_AT(tl, k, st);
    PT_AT(code, k, st) = PT_AT(tc, k, st);
  }
  pt_list_sort(list, code, st, id, 0, n);
}

/* Puts particle i's entries [b, e) back in order after a step: the codes of the entries whose
 * order cells changed (moved[j]), or of all when i's own did (a new own cell, or a wrap that
 * changes every image), then the sort. Returns 1 if anything was recomputed. x: 3 doubles per
 * slot; kc: pt_order_cells of every slot; id: every slot's particle id. */
static inline KIT_HD int pt_list_reorder(const pt_order *o, int i, const double *x, const int *kc,
                                         const unsigned char *moved, const int64_t *id, int *list, int *code,
                                         int st, int b, int e) {
  const double *xi = x + 3 * i;
  const int *kci = kc + 9 * i;
  const int all = moved[i];
  int changed = 0;
  for (int k = b; k < e; ++k) {
    const int j = PT_AT(list, k, st);
    if (!all && !moved[j]) continue;
    PT_AT(code, k, st) = pt_order_code(o, xi, kci, x + 3 * j, kc + 9 * j);
    changed = 1;
  }
  if (changed) pt_list_sort(list, code, st, id, b, e);
  return changed;
}

/* 1 if a slot at xj is within sqrt(rl2) of (xi, yi, zi): a build's test, written once for
 * pt_list_build_one and the GPU's warp build (kernels.cu), so both keep the same pairs. */
static inline KIT_HD int pt_list_within(double xi, double yi, double zi, const double *xj, double rl2) {
  const double dx = xi - xj[0], dy = yi - xj[1], dz = zi - xj[2];
  return dx * dx + dy * dy + dz * dz < rl2;
}

/* One particle's list: the slots j != i of the 27 cells around its cell c (nbr, cstart: the
 * cell matrix of the cells of side >= rc + skin, as lj_force_on walks it) nearer than
 * sqrt(rl2), at positions x where the copies are shifted next to the subdomain as the cells
 * path holds them, so the copy a pair finds is the one it sums; kx: the order cell of each
 * slot at x (3 per slot). Written to entries [0 ..) of list (layout st) with their codes in
 * code, in (code, id) order (scratch tl, tc of `cap` entries in the same layout and count of
 * PT_ORDER_CODES + 1, pt_list_sort_fresh). Returns the count; beyond cap, the count it would
 * need (then nothing is in order). *checked: the distances it computed. The host's build
 * (nlist.c); a GPU builds the same lists a warp per particle (kernels.cu). */
static inline KIT_HD int pt_list_build_one(int i, int c, const double *x, const int *kx, const int64_t *id,
                                           const int *nbr, const int *cstart, double rl2, int *list,
                                           int *code, int st, int cap, int *tl, int *tc, int *count,
                                           long long *checked) {
  const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
  int n = 0;
  long long tested = 0;
  for (int m = 0; m < 27; ++m) {
    const int nb = nbr[27 * c + m], j0 = cstart[nb], j1 = cstart[nb + 1]; /* not reread after a store */
    tested += j1 - j0;
    for (int j = j0; j < j1; ++j) {
      if (n < cap) PT_AT(list, n, st) = j; /* kept or overwritten: no branch on the distance */
      n += pt_list_within(xi, yi, zi, x + 3 * j, rl2) & (j != i);
    }
  }
  *checked += tested - 1; /* i itself is no pair */
  if (n > cap) return n;
  for (int k = 0; k < n; ++k)
    PT_AT(code, k, st) = pt_order_offset_code(kx + 3 * i, kx + 3 * PT_AT(list, k, st));
  pt_list_sort_fresh(list, code, st, id, n, tl, tc, count);
  return n;
}

/* The force, potential energy and virial of particle i from its entries [b, e) (layout st):
 * lj_force_on's sum (lj.h) term for term, the neighbour's copy being x_j - s L (pt_image) as
 * the cells path's sender computes it. With the list in (code, id) order the result is
 * lj_force_on's bit for bit (tests/particles: ListForceEqualsCellForce). Keep the two in
 * step. */
static inline KIT_HD void lj_force_list(int i, const double *x, const int *list, int st, int b, int e,
                                        const pt_order *o, double rc2, double eshift, double *f, double *pe,
                                        double *vir) {
  double fx = 0.0, fy = 0.0, fz = 0.0, e_sum = 0.0, w = 0.0;
  const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
  for (int k = b; k < e; ++k) {
    const int j = PT_AT(list, k, st);
    double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
    if (o->periodic) { /* across a periodic face: the copy x_j - s L, then the difference */
      if (dx > o->half[0] || dx < -o->half[0])
        dx = xi - (x[3 * j] - pt_image(xi, x[3 * j], o->half[0], 1) * o->box[0]);
      if (dy > o->half[1] || dy < -o->half[1])
        dy = yi - (x[3 * j + 1] - pt_image(yi, x[3 * j + 1], o->half[1], 1) * o->box[1]);
      if (dz > o->half[2] || dz < -o->half[2])
        dz = zi - (x[3 * j + 2] - pt_image(zi, x[3 * j + 2], o->half[2], 1) * o->box[2]);
    }
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (!(r2 < rc2)) continue;
    double fr;
    const double en = lj_pair(r2, rc2, eshift, &fr);
    fx += fr * dx;
    fy += fr * dy;
    fz += fr * dz;
    e_sum += 0.5 * en;  /* each pair is seen from both ends */
    w += 0.5 * fr * r2; /* r . f */
  }
  f[0] = fx;
  f[1] = fy;
  f[2] = fz;
  *pe = e_sum;
  *vir = w;
}

#ifdef __cplusplus
}
#endif
#endif
