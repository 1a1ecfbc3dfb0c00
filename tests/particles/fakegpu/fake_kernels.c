/* fake_kernels.c: host versions of the particles kernels (miniapps/particles/kernels.h), for
 * the fake-GPU test binary (fake_cuda.c). Each launcher queues its work on the stream; the
 * work runs when the stream is forced, like a kernel. The physics are the same lj.h, walls.h
 * and binning.h functions kernels.cu calls; where the GPU's result order depends on atomics
 * (leaver slots, slots inside a cell) these run the particles in REVERSE order, so a missing
 * sort by id would show. Every array extent a kernel touches is checked against its device
 * allocation (fk_extent). Test code only. */
#include <stdlib.h>
#include <string.h>

#include "binning.h"
#include "fake_gpu.h"
#include "kernels.h"
#include "lj.h"
#include "walls.h"

#define ARG(type)                 \
  type *a = calloc(1, sizeof *a); \
  if (!a) fk_fail("out of memory")
#define NEED(ptr, count, what)                                                         \
  do {                                                                                 \
    if ((size_t)(count) * sizeof *(ptr) > fk_extent((ptr), (what)))                    \
      fk_fail("%s: %lld elements overrun the allocation", (what), (long long)(count)); \
  } while (0)

/* ---- kick, drift, reflect, bin --------------------------------------------------------- */
typedef struct {
  int n;
  const int64_t *id;
  double *x, *v;
  const double *f;
  double half, dt;
  pt_walls w;
  pt_binner b;
  int fe;
  int *cell;
  double *leave;
  unsigned long long *st;
} kdb_arg;
static void kdb_run(void *p) {
  kdb_arg *a = p;
  if (a->n <= 0) return;
  NEED(a->id, a->n, "kick_drift id");
  NEED(a->x, 3 * a->n, "kick_drift x");
  NEED(a->v, 3 * a->n, "kick_drift v");
  NEED(a->f, 3 * a->n, "kick_drift f");
  NEED(a->cell, a->n, "kick_drift cell");
  NEED(a->leave, 8 * a->n, "kick_drift leave");
  NEED(a->st, PT_ST_N, "kick_drift status");
  NEED(a->b.cells, a->b.ncells, "kick_drift cells");
  if (a->w.mask) NEED(a->w.mask, (size_t)a->w.nv[0] * a->w.nv[1] * a->w.nv[2], "kick_drift mask");
  for (int i = a->n - 1; i >= 0; --i) {
    double *xi = a->x + 3 * (size_t)i, *vi = a->v + 3 * (size_t)i;
    const double x0[3] = {xi[0], xi[1], xi[2]};
    vv_kick(vi, a->f + 3 * (size_t)i, a->half);
    vv_drift(xi, vi, a->dt);
    if (a->w.mask) {
      const int r = pt_wall_reflect(&a->w, x0, xi, vi);
      a->st[PT_ST_WALL_HITS] += r > 0;
      if (r < 0) {
        a->st[PT_ST_UNREFLECTED]++;
        if ((unsigned long long)a->id[i] < a->st[PT_ST_UNREFLECTED_ID])
          a->st[PT_ST_UNREFLECTED_ID] = (unsigned long long)a->id[i];
      }
    }
    const int c = pt_bin(&a->b, xi);
    if (c < 0) {
      a->st[PT_ST_LOST]++;
      if ((unsigned long long)a->id[i] < a->st[PT_ST_LOST_ID])
        a->st[PT_ST_LOST_ID] = (unsigned long long)a->id[i];
      a->cell[i] = -1;
    } else if (c >= a->fe) {
      double *r = a->leave + 8 * (size_t)a->st[PT_ST_LEAVERS]++;
      r[0] = (double)a->id[i];
      r[1] = xi[0], r[2] = xi[1], r[3] = xi[2], r[4] = vi[0], r[5] = vi[1], r[6] = vi[2];
      r[7] = (double)c;
      a->cell[i] = -1;
    } else {
      a->cell[i] = c;
    }
  }
}
void launch_pt_kick_drift_bin(int n, const int64_t *id, double *x, double *v, const double *f, double half_dt,
                              double dt, pt_walls w, pt_binner b, int first_external, int *cell,
                              double *leave, unsigned long long *status, cudaStream_t stream) {
  if (n <= 0) return;
  ARG(kdb_arg);
  *a = (kdb_arg){n, id, x, v, f, half_dt, dt, w, b, first_external, cell, leave, status};
  const void *t[] = {id, x, v, f, cell, leave, status, b.cells, w.mask};
  fk_enqueue(stream, "kick_drift_bin", kdb_run, a, t, w.mask ? 9 : 8);
}

/* ---- the counting sort --------------------------------------------------------------- */
typedef struct {
  int n;
  const int *cell;
  int *count;
} cnt_arg;
static void cnt_run(void *p) {
  cnt_arg *a = p;
  NEED(a->cell, a->n, "count cell");
  const size_t ext = fk_extent(a->count, "count count") / sizeof(int);
  for (int i = 0; i < a->n; ++i)
    if (a->cell[i] >= 0) {
      if ((size_t)a->cell[i] >= ext) fk_fail("count: cell %d beyond the counters", a->cell[i]);
      a->count[a->cell[i]]++;
    }
}
void launch_pt_count(int n, const int *cell, int *count, cudaStream_t stream) {
  if (n <= 0) return;
  ARG(cnt_arg);
  *a = (cnt_arg){n, cell, count};
  const void *t[] = {cell, count};
  fk_enqueue(stream, "count", cnt_run, a, t, 2);
}

size_t pt_scan_temp_bytes(int n) {
  (void)n;
  return 256;
}

typedef struct {
  const int *in;
  int *out;
  int n;
  void *tmp;
} scan_arg;
static void scan_run(void *p) {
  scan_arg *a = p;
  NEED(a->in, a->n, "scan in");
  NEED(a->out, a->n, "scan out");
  if (fk_extent(a->tmp, "scan temp") < 256) fk_fail("scan: temporary storage too small");
  int s = 0;
  for (int i = 0; i < a->n; ++i) {
    const int v = a->in[i];
    a->out[i] = s;
    s += v;
  }
}
void launch_pt_scan(const int *in, int *out, int n, void *temp, size_t temp_bytes, cudaStream_t stream) {
  if (n <= 0) return;
  if (temp_bytes < pt_scan_temp_bytes(n)) fk_fail("scan: %zu temporary bytes given", temp_bytes);
  ARG(scan_arg);
  *a = (scan_arg){in, out, n, temp};
  const void *t[] = {in, out, temp};
  fk_enqueue(stream, "scan", scan_run, a, t, 3);
}

typedef struct {
  int n;
  const int *cell, *cstart;
  int *fill, *perm;
} sc_arg;
static void sc_run(void *p) {
  sc_arg *a = p;
  NEED(a->cell, a->n, "scatter cell");
  const size_t np = fk_extent(a->perm, "scatter perm") / sizeof(int);
  for (int i = a->n - 1; i >= 0; --i) { /* reverse: the atomics' order is arbitrary */
    const int c = a->cell[i];
    if (c < 0) continue;
    NEED(a->fill, c + 1, "scatter fill");
    NEED(a->cstart, c + 1, "scatter cstart");
    const size_t slot = (size_t)a->cstart[c] + (size_t)a->fill[c]++;
    if (slot >= np) fk_fail("scatter: slot %zu beyond the permutation", slot);
    a->perm[slot] = i;
  }
}
void launch_pt_scatter(int n, const int *cell, const int *cstart, int *fill, int *perm, cudaStream_t stream) {
  if (n <= 0) return;
  ARG(sc_arg);
  *a = (sc_arg){n, cell, cstart, fill, perm};
  const void *t[] = {cell, cstart, fill, perm};
  fk_enqueue(stream, "scatter", sc_run, a, t, 4);
}

typedef struct {
  int ncells;
  const int *cstart;
  const int64_t *id;
  int *perm;
} sr_arg;
static void sr_run(void *p) {
  sr_arg *a = p;
  NEED(a->cstart, a->ncells + 1, "sort_rows cstart");
  const size_t nid = fk_extent(a->id, "sort_rows id") / sizeof(int64_t);
  NEED(a->perm, a->cstart[a->ncells], "sort_rows perm");
  for (int c = 0; c < a->ncells; ++c) {
    const int b = a->cstart[c], e = a->cstart[c + 1];
    for (int i = b + 1; i < e; ++i) {
      const int q = a->perm[i];
      if ((size_t)q >= nid) fk_fail("sort_rows: particle %d beyond the ids", q);
      const int64_t key = a->id[q];
      int j = i;
      while (j > b && a->id[a->perm[j - 1]] > key) {
        a->perm[j] = a->perm[j - 1];
        --j;
      }
      a->perm[j] = q;
    }
  }
}
void launch_pt_sort_rows(int ncells, const int *cstart, const int64_t *id, int *perm, cudaStream_t stream) {
  if (ncells <= 0) return;
  ARG(sr_arg);
  *a = (sr_arg){ncells, cstart, id, perm};
  const void *t[] = {cstart, id, perm};
  fk_enqueue(stream, "sort_rows", sr_run, a, t, 3);
}

typedef struct {
  int n;
  const int *perm;
  const int64_t *id;
  const double *x, *v;
  const int *cell;
  int64_t *id2;
  double *x2, *v2;
  int *cell2;
} ga_arg;
static void ga_run(void *p) {
  ga_arg *a = p;
  NEED(a->perm, a->n, "gather perm");
  NEED(a->id2, a->n, "gather id2");
  NEED(a->x2, 3 * a->n, "gather x2");
  NEED(a->v2, 3 * a->n, "gather v2");
  NEED(a->cell2, a->n, "gather cell2");
  const size_t src = fk_extent(a->id, "gather id") / sizeof(int64_t);
  for (int s = 0; s < a->n; ++s) {
    const int i = a->perm[s];
    if (i < 0 || (size_t)i >= src) fk_fail("gather: particle %d beyond the arrays", i);
    NEED(a->x, 3 * (size_t)i + 3, "gather x");
    a->id2[s] = a->id[i];
    a->cell2[s] = a->cell[i];
    memcpy(a->x2 + 3 * (size_t)s, a->x + 3 * (size_t)i, 3 * sizeof(double));
    memcpy(a->v2 + 3 * (size_t)s, a->v + 3 * (size_t)i, 3 * sizeof(double));
  }
}
void launch_pt_gather(int n, const int *perm, const int64_t *id, const double *x, const double *v,
                      const int *cell, int64_t *id2, double *x2, double *v2, int *cell2,
                      cudaStream_t stream) {
  if (n <= 0) return;
  ARG(ga_arg);
  *a = (ga_arg){n, perm, id, x, v, cell, id2, x2, v2, cell2};
  const void *t[] = {perm, id, x, v, cell, id2, x2, v2, cell2};
  fk_enqueue(stream, "gather", ga_run, a, t, 9);
}

/* ---- forces, kick, thermo ------------------------------------------------------------ */
typedef struct {
  int i0, i1;
  const int *cell;
  const double *x;
  const int *nbr, *cstart;
  double rc2, es;
  double *f, *pe, *vir;
} fo_arg;
static void fo_run(void *p) {
  fo_arg *a = p;
  NEED(a->cell, a->i1, "forces cell");
  NEED(a->f, 3 * (size_t)a->i1, "forces f");
  NEED(a->pe, a->i1, "forces pe");
  NEED(a->vir, a->i1, "forces vir");
  const size_t nx = fk_extent(a->x, "forces x") / (3 * sizeof(double));
  const size_t nnbr = fk_extent(a->nbr, "forces nbr") / sizeof(int),
               ncs = fk_extent(a->cstart, "forces cstart") / sizeof(int);
  for (int i = a->i0; i < a->i1; ++i) {
    const int c = a->cell[i];
    if (c < 0 || 27 * (size_t)c + 27 > nnbr)
      fk_fail("forces: particle %d in cell %d, beyond the neighbour table", i, c);
    for (int m = 0; m < 27; ++m) {
      const int nb = a->nbr[27 * c + m];
      if (nb < 0 || (size_t)nb + 1 >= ncs) fk_fail("forces: neighbour cell %d beyond the rows", nb);
      if (a->cstart[nb + 1] < a->cstart[nb] || (size_t)a->cstart[nb + 1] > nx)
        fk_fail("forces: rows of cell %d [%d, %d) beyond the positions", nb, a->cstart[nb],
                a->cstart[nb + 1]);
    }
    lj_force_on(i, c, a->x, a->nbr, a->cstart, a->rc2, a->es, a->f + 3 * (size_t)i, a->pe + i, a->vir + i);
  }
}
void launch_pt_forces(int i0, int i1, const int *cell, const double *x, const int *nbr, const int *cstart,
                      double rc2, double eshift, double *f, double *pe, double *vir, cudaStream_t stream) {
  if (i1 <= i0) return;
  ARG(fo_arg);
  *a = (fo_arg){i0, i1, cell, x, nbr, cstart, rc2, eshift, f, pe, vir};
  const void *t[] = {cell, x, nbr, cstart, f, pe, vir};
  fk_enqueue(stream, "forces", fo_run, a, t, 7);
}

typedef struct {
  int n;
  double *v;
  const double *f;
  double half;
} ki_arg;
static void ki_run(void *p) {
  ki_arg *a = p;
  NEED(a->v, 3 * (size_t)a->n, "kick v");
  NEED(a->f, 3 * (size_t)a->n, "kick f");
  for (int i = 0; i < a->n; ++i) vv_kick(a->v + 3 * (size_t)i, a->f + 3 * (size_t)i, a->half);
}
void launch_pt_kick(int n, double *v, const double *f, double half_dt, cudaStream_t stream) {
  if (n <= 0) return;
  ARG(ki_arg);
  *a = (ki_arg){n, v, f, half_dt};
  const void *t[] = {v, f};
  fk_enqueue(stream, "kick", ki_run, a, t, 2);
}

/* The kernel's own reduction order: PT_THERMO_PARTIALS blocks of 256 threads, a grid-stride
 * loop, a tree per block, a tree over the partials. */
typedef struct {
  int n;
  const double *v, *pe, *vir;
  double *partials, *row;
} th_arg;
static void tree(double sh[6][256]) {
  for (int s = 128; s > 0; s >>= 1)
    for (int t = 0; t < s; ++t)
      for (int k = 0; k < 6; ++k) sh[k][t] += sh[k][t + s];
}
static void th_run(void *p) {
  th_arg *a = p;
  NEED(a->v, 3 * (size_t)a->n, "thermo v");
  NEED(a->pe, a->n, "thermo pe");
  NEED(a->vir, a->n, "thermo vir");
  NEED(a->partials, 6 * PT_THERMO_PARTIALS, "thermo partials");
  NEED(a->row, 6, "thermo row");
  static double sh[6][256];
  for (int b = 0; b < PT_THERMO_PARTIALS; ++b) {
    for (int t = 0; t < 256; ++t) {
      double s[6] = {0, 0, 0, 0, 0, 0};
      for (int i = b * 256 + t; i < a->n; i += PT_THERMO_PARTIALS * 256) {
        const double *vi = a->v + 3 * (size_t)i;
        s[0] += a->pe[i];
        s[1] += 0.5 * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
        s[2] += a->vir[i];
        s[3] += vi[0];
        s[4] += vi[1];
        s[5] += vi[2];
      }
      for (int k = 0; k < 6; ++k) sh[k][t] = s[k];
    }
    tree(sh);
    for (int k = 0; k < 6; ++k) a->partials[6 * b + k] = sh[k][0];
  }
  for (int t = 0; t < 256; ++t)
    for (int k = 0; k < 6; ++k) sh[k][t] = t < PT_THERMO_PARTIALS ? a->partials[6 * t + k] : 0.0;
  tree(sh);
  for (int k = 0; k < 6; ++k) a->row[k] = sh[k][0];
}
void launch_pt_thermo(int n, const double *v, const double *pe, const double *vir, double *partials,
                      double *row, cudaStream_t stream) {
  ARG(th_arg);
  *a = (th_arg){n, v, pe, vir, partials, row};
  const void *t[] = {v, pe, vir, partials, row};
  fk_enqueue(stream, "thermo", th_run, a, t, 5);
}
