/* binning.h: which local cell a particle is in, written once for C and CUDA.
 * Bernaschi et al. Sec. 3.2.1: a cell's global index is c_k N_j N_i + c_j N_i + c_i (here over
 * the grid extended by the one-cell shell), a rank keeps its cells in an array sorted by
 * global index, and "the local index ... is found by a binary search". cells.c (the cpu
 * variant's migration and receive filter) and kernels.cu (the GPU variants' drift kernel)
 * both bin through pt_bin, so a particle lands in the same cell on the host and the device.
 * No MPI, no libm: includable from kernels.cu. See README.md in this folder. */
#ifndef PARTICLES_BINNING_H
#define PARTICLES_BINNING_H
#include <stdint.h>

#include "kit/hd.h"
#include "lj.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of the cell array: the global index and the local index. */
typedef struct pt_cell_entry {
  int64_t gid;
  int lid;
} pt_cell_entry;

/* What binning needs, by value (a kernel argument): the global tiling and this rank's cell
 * array (host or device memory, whichever side calls pt_bin). */
typedef struct pt_binner {
  double inv_side[3];         /* nc / L per axis */
  double box[3];              /* box edges */
  int nc[3];                  /* global cells per axis */
  int ncells;                 /* entries of `cells` */
  const pt_cell_entry *cells; /* sorted by gid */
} pt_binner;

/* Sec. 3.2.1's global index over the (nc + 2)^3 extended grid; c[a] in [-1, nc[a]]. */
static inline KIT_HD int64_t pt_gid_hd(const int nc[3], const int c[3]) {
  const int64_t gx = nc[0] + 2, gy = nc[1] + 2;
  return ((int64_t)(c[2] + 1) * gy + (c[1] + 1)) * gx + (c[0] + 1);
}

/* Binary search of the cell array: the local index of gid, or -1. */
static inline KIT_HD int pt_lookup_hd(const pt_cell_entry *a, int n, int64_t gid) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    const int64_t g = a[mid].gid;
    if (g == gid) return a[mid].lid;
    if (g < gid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* The local cell of position x (this rank's frame), or -1 when it is in none of this rank's
 * cells (beyond the shell: a particle that moved more than a cell, or a copy to drop). */
static inline KIT_HD int pt_bin(const pt_binner *b, const double x[3]) {
  int c[3];
  for (int a = 0; a < 3; ++a) {
    c[a] = cell_coord(x[a], b->inv_side[a], b->box[a], b->nc[a]);
    if (c[a] < -1 || c[a] > b->nc[a]) return -1;
  }
  return pt_lookup_hd(b->cells, b->ncells, pt_gid_hd(b->nc, c));
}

#ifdef __cplusplus
}
#endif
#endif
