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
#include "images.h"
#include "kernels.h"
#include "lj.h"
#include "neighbor.h"
#include "walls.h"

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
  const int *wrap;
  int *cell;
  double *leave;
  unsigned long long *st;
} kdb_arg;
static void kdb_run(void *p) {
  kdb_arg *a = p;
  if (a->n <= 0) return;
  FK_NEED(a->id, a->n, "kick_drift id");
  FK_NEED(a->x, 3 * a->n, "kick_drift x");
  FK_NEED(a->v, 3 * a->n, "kick_drift v");
  FK_NEED(a->f, 3 * a->n, "kick_drift f");
  FK_NEED(a->cell, a->n, "kick_drift cell");
  FK_NEED(a->leave, 8 * a->n, "kick_drift leave");
  FK_NEED(a->st, PT_ST_N, "kick_drift status");
  FK_NEED(a->b.cells, a->b.ncells, "kick_drift cells");
  if (a->w.mask) FK_NEED(a->w.mask, (size_t)a->w.nv[0] * a->w.nv[1] * a->w.nv[2], "kick_drift mask");
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
    /* An external cell whose connection is this rank itself: wrapped in place (images.h). */
    const int *wr = a->wrap && c >= a->fe ? a->wrap + 4 * (size_t)(c - a->fe) : NULL;
    if (wr) FK_NEED(a->wrap, 4 * (size_t)(c - a->fe) + 4, "kick_drift wrap");
    const int w = wr && wr[0] ? pt_wrap_migrant(&a->b, wr + 1, a->fe, xi) : -1;
    if (c < 0) {
      a->st[PT_ST_LOST]++;
      if ((unsigned long long)a->id[i] < a->st[PT_ST_LOST_ID])
        a->st[PT_ST_LOST_ID] = (unsigned long long)a->id[i];
      a->cell[i] = -1;
    } else if (w >= 0) {
      a->st[PT_ST_WRAPPED]++;
      a->cell[i] = w;
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
                              double dt, pt_walls w, pt_binner b, int first_external, const int *wrap,
                              int *cell, double *leave, unsigned long long *status, cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(kdb_arg);
  *a = (kdb_arg){n, id, x, v, f, half_dt, dt, w, b, first_external, wrap, cell, leave, status};
  const void *t[10] = {id, x, v, f, cell, leave, status, b.cells};
  int nt = 8;
  if (wrap) t[nt++] = wrap;
  if (w.mask) t[nt++] = w.mask;
  fk_enqueue(stream, "kick_drift_bin", kdb_run, a, t, nt);
}

/* ---- the counting sort --------------------------------------------------------------- */
typedef struct {
  int n;
  const int *cell;
  int *count;
} cnt_arg;
static void cnt_run(void *p) {
  cnt_arg *a = p;
  FK_NEED(a->cell, a->n, "count cell");
  const size_t ext = fk_extent(a->count, "count count") / sizeof(int);
  for (int i = 0; i < a->n; ++i)
    if (a->cell[i] >= 0) {
      if ((size_t)a->cell[i] >= ext) fk_fail("count: cell %d beyond the counters", a->cell[i]);
      a->count[a->cell[i]]++;
    }
}
void launch_pt_count(int n, const int *cell, int *count, cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(cnt_arg);
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
  FK_NEED(a->in, a->n, "scan in");
  FK_NEED(a->out, a->n, "scan out");
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
  FK_ARG(scan_arg);
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
  FK_NEED(a->cell, a->n, "scatter cell");
  const size_t np = fk_extent(a->perm, "scatter perm") / sizeof(int);
  for (int i = a->n - 1; i >= 0; --i) { /* reverse: the atomics' order is arbitrary */
    const int c = a->cell[i];
    if (c < 0) continue;
    FK_NEED(a->fill, c + 1, "scatter fill");
    FK_NEED(a->cstart, c + 1, "scatter cstart");
    const size_t slot = (size_t)a->cstart[c] + (size_t)a->fill[c]++;
    if (slot >= np) fk_fail("scatter: slot %zu beyond the permutation", slot);
    a->perm[slot] = i;
  }
}
void launch_pt_scatter(int n, const int *cell, const int *cstart, int *fill, int *perm, cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(sc_arg);
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
  FK_NEED(a->cstart, a->ncells + 1, "sort_rows cstart");
  const size_t nid = fk_extent(a->id, "sort_rows id") / sizeof(int64_t);
  FK_NEED(a->perm, a->cstart[a->ncells], "sort_rows perm");
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
  FK_ARG(sr_arg);
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
  FK_NEED(a->perm, a->n, "gather perm");
  FK_NEED(a->id2, a->n, "gather id2");
  FK_NEED(a->x2, 3 * a->n, "gather x2");
  FK_NEED(a->v2, 3 * a->n, "gather v2");
  FK_NEED(a->cell2, a->n, "gather cell2");
  const size_t src = fk_extent(a->id, "gather id") / sizeof(int64_t);
  for (int s = 0; s < a->n; ++s) {
    const int i = a->perm[s];
    if (i < 0 || (size_t)i >= src) fk_fail("gather: particle %d beyond the arrays", i);
    FK_NEED(a->x, 3 * (size_t)i + 3, "gather x");
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
  FK_ARG(ga_arg);
  *a = (ga_arg){n, perm, id, x, v, cell, id2, x2, v2, cell2};
  const void *t[] = {perm, id, x, v, cell, id2, x2, v2, cell2};
  fk_enqueue(stream, "gather", ga_run, a, t, 9);
}

/* ---- one rank's own images (images.h) --------------------------------------------------- */
typedef struct {
  int npairs;
  const int *pair, *cstart;
  int *len;
} il_arg;
static void il_run(void *p) {
  il_arg *a = p;
  FK_NEED(a->pair, 4 * (size_t)a->npairs, "image_lengths pair");
  FK_NEED(a->len, a->npairs + 1, "image_lengths len");
  const size_t ncs = fk_extent(a->cstart, "image_lengths cstart") / sizeof(int);
  for (int q = 0; q < a->npairs; ++q) {
    const int c = a->pair[4 * q];
    if (c < 0 || (size_t)c + 1 >= ncs) fk_fail("image_lengths: cell %d beyond the rows", c);
    a->len[q] = a->cstart[c + 1] - a->cstart[c];
  }
  a->len[a->npairs] = 0;
}
void launch_pt_image_lengths(int npairs, const int *pair, const int *cstart, int *len, cudaStream_t stream) {
  FK_ARG(il_arg);
  *a = (il_arg){npairs, pair, cstart, len};
  const void *t[] = {pair, cstart, len};
  fk_enqueue(stream, "image_lengths", il_run, a, t, npairs > 0 ? 3 : 0);
}

typedef struct {
  int npairs;
  const int *pair, *off, *cstart;
  const int64_t *id;
  const double *x;
  pt_binner b;
  int fe;
  int64_t *cid;
  double *cx;
  int *csrc, *ce;
} ic_arg;
static void ic_run(void *p) {
  ic_arg *a = p;
  FK_NEED(a->pair, 4 * (size_t)a->npairs, "image_candidates pair");
  FK_NEED(a->off, a->npairs, "image_candidates off");
  FK_NEED(a->b.cells, a->b.ncells, "image_candidates cells");
  const size_t nc = fk_extent(a->ce, "image_candidates cand_e") / sizeof(int);
  const size_t nx = fk_extent(a->x, "image_candidates x") / (3 * sizeof(double));
  for (int q = a->npairs - 1; q >= 0; --q) { /* any order: each pair writes its own slots */
    const int c = a->pair[4 * q];
    FK_NEED(a->cstart, c + 2, "image_candidates cstart");
    int k = a->off[q];
    for (int i = a->cstart[c]; i < a->cstart[c + 1]; ++i, ++k) {
      if (k < 0 || (size_t)k >= nc) fk_fail("image_candidates: candidate %d beyond the arrays", k);
      if (i < 0 || (size_t)i >= nx) fk_fail("image_candidates: particle %d beyond the positions", i);
      FK_NEED(a->cid, k + 1, "image_candidates cand_id");
      FK_NEED(a->cx, 3 * (size_t)k + 3, "image_candidates cand_x");
      FK_NEED(a->csrc, k + 1, "image_candidates cand_src");
      a->cid[k] = a->id[i];
      a->csrc[k] = i;
      a->ce[k] = pt_image_of(&a->b, a->pair + 4 * q + 1, a->fe, a->x + 3 * (size_t)i, a->cx + 3 * (size_t)k);
    }
  }
}
void launch_pt_image_candidates(int npairs, const int *pair, const int *off, const int *cstart,
                                const int64_t *id, const double *x, pt_binner b, int first_external,
                                int64_t *cand_id, double *cand_x, int *cand_src, int *cand_e,
                                cudaStream_t stream) {
  if (npairs <= 0) return;
  FK_ARG(ic_arg);
  *a = (ic_arg){npairs, pair, off, cstart, id, x, b, first_external, cand_id, cand_x, cand_src, cand_e};
  const void *t[] = {pair, off, cstart, id, x, b.cells, cand_id, cand_x, cand_src, cand_e};
  fk_enqueue(stream, "image_candidates", ic_run, a, t, 10);
}

typedef struct {
  int ncand, ne;
  const int *rows, *perm;
  const double *cx;
  const int64_t *cid;
  const int *csrc;
  int base;
  double *x;
  int64_t *id;
  int *src, *cse;
} pi_arg;
static void pi_run(void *p) {
  pi_arg *a = p;
  FK_NEED(a->rows, a->ne + 1, "place_images rows");
  FK_NEED(a->cse, a->ne + 1, "place_images cstart");
  const int kept = a->rows[a->ne];
  if (kept < 0 || kept > a->ncand) fk_fail("place_images: %d kept of %d candidates", kept, a->ncand);
  FK_NEED(a->perm, kept, "place_images perm");
  FK_NEED(a->x, 3 * ((size_t)a->base + kept), "place_images x");
  FK_NEED(a->id, (size_t)a->base + kept, "place_images id");
  FK_NEED(a->src, kept, "place_images src");
  const size_t nc = fk_extent(a->cx, "place_images cand_x") / (3 * sizeof(double));
  for (int s = 0; s < kept; ++s) {
    const int k = a->perm[s];
    if (k < 0 || (size_t)k >= nc) fk_fail("place_images: candidate %d beyond the arrays", k);
    memcpy(a->x + 3 * ((size_t)a->base + s), a->cx + 3 * (size_t)k, 3 * sizeof(double));
    a->id[a->base + s] = a->cid[k];
    a->src[s] = a->csrc[k];
  }
  for (int e = 1; e <= a->ne; ++e) a->cse[e] = a->base + a->rows[e];
}
void launch_pt_place_images(int ncand, int ne, const int *rows, const int *perm, const double *cand_x,
                            const int64_t *cand_id, const int *cand_src, int base, double *x, int64_t *id,
                            int *src, int *cstart_ext, cudaStream_t stream) {
  FK_ARG(pi_arg);
  *a = (pi_arg){ncand, ne, rows, perm, cand_x, cand_id, cand_src, base, x, id, src, cstart_ext};
  const void *t[] = {rows, perm, cand_x, cand_id, cand_src, x, id, src, cstart_ext};
  fk_enqueue(stream, "place_images", pi_run, a, t, 9);
}

/* ---- --neighbor list (neighbor.h) -------------------------------------------------------- */
typedef struct {
  int n;
  const int64_t *id;
  const double *x;
  pt_binner b;
  int fe;
  int *cell;
  unsigned long long *st;
} bin_arg;
static void bin_run(void *p) {
  bin_arg *a = p;
  FK_NEED(a->id, a->n, "bin id");
  FK_NEED(a->x, 3 * (size_t)a->n, "bin x");
  FK_NEED(a->cell, a->n, "bin cell");
  FK_NEED(a->st, PT_ST_N, "bin status");
  for (int i = a->n - 1; i >= 0; --i) {
    const int c = pt_bin(&a->b, a->x + 3 * (size_t)i);
    if (c < 0 || c >= a->fe) {
      a->st[PT_ST_LOST]++;
      if ((unsigned long long)a->id[i] < a->st[PT_ST_LOST_ID])
        a->st[PT_ST_LOST_ID] = (unsigned long long)a->id[i];
      a->cell[i] = -1;
    } else {
      a->cell[i] = c;
    }
  }
}
void launch_pt_bin(int n, const int64_t *id, const double *x, pt_binner b, int first_external, int *cell,
                   unsigned long long *status, cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(bin_arg);
  *a = (bin_arg){n, id, x, b, first_external, cell, status};
  const void *t[] = {id, x, b.cells, cell, status};
  fk_enqueue(stream, "bin", bin_run, a, t, 5);
}

typedef struct {
  int n;
  double *x, *v;
  const double *f;
  double half, dt;
  pt_order o;
  const double *xb;
  double lim;
  unsigned long long *st;
} kdw_arg;
static void kdw_run(void *p) {
  kdw_arg *a = p;
  FK_NEED(a->x, 3 * (size_t)a->n, "kick_drift_wrap x");
  FK_NEED(a->v, 3 * (size_t)a->n, "kick_drift_wrap v");
  FK_NEED(a->f, 3 * (size_t)a->n, "kick_drift_wrap f");
  FK_NEED(a->xb, 3 * (size_t)a->n, "kick_drift_wrap xb");
  FK_NEED(a->st, PT_ST_N, "kick_drift_wrap status");
  for (int i = a->n - 1; i >= 0; --i) {
    double *xi = a->x + 3 * (size_t)i, *vi = a->v + 3 * (size_t)i;
    vv_kick(vi, a->f + 3 * (size_t)i, a->half);
    vv_drift(xi, vi, a->dt);
    pt_list_wrap(&a->o, xi);
    a->st[PT_ST_FAR] += (unsigned long long)pt_list_far_one(&a->o, xi, a->xb + 3 * (size_t)i, a->lim);
  }
}
void launch_pt_kick_drift_wrap(int n, double *x, double *v, const double *f, double half_dt, double dt,
                               pt_order o, const double *xb, double half_skin2, unsigned long long *status,
                               cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(kdw_arg);
  *a = (kdw_arg){n, x, v, f, half_dt, dt, o, xb, half_skin2, status};
  const void *t[] = {x, v, f, xb, status};
  fk_enqueue(stream, "kick_drift_wrap", kdw_run, a, t, 5);
}

typedef struct {
  int n;
  const double *x;
  pt_order o;
  int *kx;
} os_arg;
static void os_run(void *p) {
  os_arg *a = p;
  FK_NEED(a->x, 3 * (size_t)a->n, "order_slots x");
  FK_NEED(a->kx, 3 * (size_t)a->n, "order_slots kx");
  for (int j = 0; j < a->n; ++j)
    for (int q = 0; q < 3; ++q)
      a->kx[3 * j + q] = cell_coord(a->x[3 * j + q], a->o.inv_side[q], a->o.box[q], a->o.nc[q]);
}
void launch_pt_order_slots(int nslots, const double *x, pt_order o, int *kx, cudaStream_t stream) {
  if (nslots <= 0) return;
  FK_ARG(os_arg);
  *a = (os_arg){nslots, x, o, kx};
  const void *t[] = {x, kx};
  fk_enqueue(stream, "order_slots", os_run, a, t, 2);
}

/* One list build (count: list NULL) of particle i, in layout st, with the bounds a kernel
 * would need: its cell's 27 neighbours' rows within the positions, ids and order cells. */
static int fake_build_one(int i, const int *cell, const double *x, const int *kx, const int64_t *id,
                          const int *nbr, const int *cstart, double rl2, int *list, int *code, int st,
                          int cap, int *tl, int *tc) {
  const size_t nx = fk_extent(x, "list x") / (3 * sizeof(double)),
               nk = fk_extent(kx, "list kx") / (3 * sizeof(int)),
               nid = fk_extent(id, "list id") / sizeof(int64_t),
               nn = fk_extent(nbr, "list nbr") / sizeof(int),
               ncs = fk_extent(cstart, "list cstart") / sizeof(int);
  const int c = cell[i];
  if (c < 0 || 27 * (size_t)c + 27 > nn)
    fk_fail("list: particle %d in cell %d, beyond the neighbour table", i, c);
  for (int m = 0; m < 27; ++m) {
    const int nb = nbr[27 * c + m];
    if (nb < 0 || (size_t)nb + 1 >= ncs) fk_fail("list: neighbour cell %d beyond the rows", nb);
    const size_t e = (size_t)cstart[nb + 1];
    if (cstart[nb + 1] < cstart[nb] || e > nx || e > nk || e > nid)
      fk_fail("list: rows of cell %d [%d, %d) beyond the slots", nb, cstart[nb], cstart[nb + 1]);
  }
  int bucket[PT_ORDER_CODES + 1];
  long long checked = 0;
  return pt_list_build_one(i, c, x, kx, id, nbr, cstart, rl2, list, code, st, cap, tl, tc, bucket, &checked);
}

typedef struct {
  int n;
  const int *cell;
  const double *x;
  const int *kx;
  const int64_t *id;
  const int *nbr, *cstart;
  double rl2;
  int *count;
  unsigned long long *stat;
  int st;
  int *list, *code, *tl, *tc;
  const int *src;
  int cap;
} lb_arg;
/* The warp build's contract (kernels.cu): every list counted; those within cap written in
 * (code, id) order with copies named by the particle they copy; longer ones only counted. */
static void lbuild_run(void *p) {
  lb_arg *a = p;
  FK_NEED(a->cell, a->n, "list_build cell");
  FK_NEED(a->count, a->n, "list_build count");
  FK_NEED(a->stat, 2, "list_build stat");
  if (a->st < a->n) fk_fail("list_build: stride %d below the %d particles", a->st, a->n);
  const size_t nsrc = fk_extent(a->src, "list_build src") / sizeof(int);
  int longest = 1;
  for (int i = 0; i < a->n; ++i) {
    const int m = fake_build_one(i, a->cell, a->x, a->kx, a->id, a->nbr, a->cstart, a->rl2, NULL, NULL, 1, 0,
                                 NULL, NULL);
    a->count[i] = m;
    a->stat[0] += (unsigned long long)m;
    if ((unsigned long long)m > a->stat[1]) a->stat[1] = (unsigned long long)m;
    if (m > longest) longest = m;
    if (m > 0 && m <= a->cap) { /* the entries a kernel writes: k st + i, k < m */
      FK_NEED(a->list, (size_t)(m - 1) * a->st + i + 1, "list_build list");
      FK_NEED(a->code, (size_t)(m - 1) * a->st + i + 1, "list_build code");
    }
  }
  /* Each list built contiguously in scratch (pt_list_build_one), then stored transposed. */
  int *scr[4];
  for (int k = 0; k < 4; ++k)
    if (!(scr[k] = malloc((size_t)longest * sizeof(int)))) fk_fail("list_build: out of host memory");
  for (int i = a->n - 1; i >= 0; --i) {
    const int m = a->count[i];
    if (m > a->cap) continue;
    fake_build_one(i, a->cell, a->x, a->kx, a->id, a->nbr, a->cstart, a->rl2, scr[0], scr[1], 1, m, scr[2],
                   scr[3]);
    for (int k = 0; k < m; ++k) {
      int e = scr[0][k];
      if (e >= a->n) {
        if ((size_t)(e - a->n) >= nsrc) fk_fail("list_build: copy slot %d beyond src", e);
        e = a->src[e - a->n];
      }
      PT_AT(a->list + i, k, a->st) = e;
      PT_AT(a->code + i, k, a->st) = scr[1][k];
    }
  }
  for (int k = 0; k < 4; ++k) free(scr[k]);
}
void launch_pt_list_build(int n, const int *cell, const double *x, const int *kx, const int64_t *id,
                          const int *nbr, const int *cstart, double rl2, int cap, int st, int *count,
                          int *list, int *code, const int *src, unsigned long long *stat,
                          cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(lb_arg);
  *a = (lb_arg){n, cell, x, kx, id, nbr, cstart, rl2, count, stat, st, list, code, NULL, NULL, src, cap};
  const void *t[] = {cell, x, kx, id, nbr, cstart, count, list, code, src, stat};
  fk_enqueue(stream, "list_build", lbuild_run, a, t, 11);
}
size_t pt_list_build_shared(int cap) {
  return (size_t)PT_LIST_BUILD_WARPS * (size_t)cap * 12; /* kernels.cu's: a key and a slot an entry */
}

typedef struct {
  int n;
  const double *x;
  pt_order o;
  int *kc;
  unsigned char *moved;
  double *xb;
} lp_arg;
static void lpos_run(void *p) {
  lp_arg *a = p;
  FK_NEED(a->x, 3 * (size_t)a->n, "list_positions x");
  FK_NEED(a->kc, 9 * (size_t)a->n, "list_positions kc");
  FK_NEED(a->moved, a->n, "list_positions moved");
  FK_NEED(a->xb, 3 * (size_t)a->n, "list_positions xb");
  for (int i = 0; i < a->n; ++i) {
    pt_order_cells(&a->o, a->x + 3 * (size_t)i, a->kc + 9 * (size_t)i);
    a->moved[i] = 0;
    memcpy(a->xb + 3 * (size_t)i, a->x + 3 * (size_t)i, 3 * sizeof(double));
  }
}
void launch_pt_list_positions(int n, const double *x, pt_order o, int *kc, unsigned char *moved, double *xb,
                              cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(lp_arg);
  *a = (lp_arg){n, x, o, kc, moved, xb};
  const void *t[] = {x, kc, moved, xb};
  fk_enqueue(stream, "list_positions", lpos_run, a, t, 4);
}
static void lcells_run(void *p) {
  lp_arg *a = p;
  FK_NEED(a->x, 3 * (size_t)a->n, "list_cells x");
  FK_NEED(a->kc, 9 * (size_t)a->n, "list_cells kc");
  FK_NEED(a->moved, a->n, "list_cells moved");
  for (int i = 0; i < a->n; ++i)
    a->moved[i] = (unsigned char)pt_order_cells_update(&a->o, a->x + 3 * (size_t)i, a->kc + 9 * (size_t)i);
}
void launch_pt_list_cells(int n, const double *x, pt_order o, int *kc, unsigned char *moved,
                          cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(lp_arg);
  *a = (lp_arg){n, x, o, kc, moved, NULL};
  const void *t[] = {x, kc, moved};
  fk_enqueue(stream, "list_cells", lcells_run, a, t, 3);
}

typedef struct {
  int i0, i1;
  const double *x;
  pt_order o;
  const int *kc;
  const unsigned char *moved;
  const int64_t *id;
  const int *count;
  int st;
  int *list, *code;
  double rc2, es;
  double *f, *pe, *vir;
} lf_arg;
static void lforces_run(void *p) {
  lf_arg *a = p;
  FK_NEED(a->count, a->i1, "list_forces count");
  FK_NEED(a->f, 3 * (size_t)a->i1, "list_forces f");
  FK_NEED(a->pe, a->i1, "list_forces pe");
  FK_NEED(a->vir, a->i1, "list_forces vir");
  if (a->st < a->i1) fk_fail("list_forces: stride %d below the %d particles", a->st, a->i1);
  const size_t nx = fk_extent(a->x, "list_forces x") / (3 * sizeof(double));
  const size_t nkc = fk_extent(a->kc, "list_forces kc") / (9 * sizeof(int));
  for (int i = a->i1 - 1; i >= a->i0; --i) { /* any order: each particle writes its own */
    const int m = a->count[i];
    if (m > 0) {
      FK_NEED(a->list, (size_t)(m - 1) * a->st + i + 1, "list_forces list");
      FK_NEED(a->code, (size_t)(m - 1) * a->st + i + 1, "list_forces code");
    }
    for (int k = 0; k < m; ++k) {
      const int j = PT_AT(a->list + i, k, a->st);
      if (j < 0 || (size_t)j >= nx || (size_t)j >= nkc || j >= a->i1)
        fk_fail("list_forces: entry %d of particle %d names slot %d", k, i, j);
    }
    pt_list_reorder(&a->o, i, a->x, a->kc, a->moved, a->id, a->list + i, a->code + i, a->st, 0, m);
    lj_force_list(i, a->x, a->list + i, a->st, 0, m, &a->o, a->rc2, a->es, a->f + 3 * (size_t)i, a->pe + i,
                  a->vir + i);
  }
}
void launch_pt_list_forces(int i0, int i1, const double *x, pt_order o, const int *kc,
                           const unsigned char *moved, const int64_t *id, const int *count, int st, int *list,
                           int *code, double rc2, double eshift, double *f, double *pe, double *vir,
                           cudaStream_t stream) {
  if (i1 <= i0) return;
  FK_ARG(lf_arg);
  *a = (lf_arg){i0, i1, x, o, kc, moved, id, count, st, list, code, rc2, eshift, f, pe, vir};
  const void *t[] = {x, kc, moved, id, count, list, code, f, pe, vir};
  fk_enqueue(stream, "list_forces", lforces_run, a, t, 10);
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
  FK_NEED(a->cell, a->i1, "forces cell");
  FK_NEED(a->f, 3 * (size_t)a->i1, "forces f");
  FK_NEED(a->pe, a->i1, "forces pe");
  FK_NEED(a->vir, a->i1, "forces vir");
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
  FK_ARG(fo_arg);
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
  FK_NEED(a->v, 3 * (size_t)a->n, "kick v");
  FK_NEED(a->f, 3 * (size_t)a->n, "kick f");
  for (int i = 0; i < a->n; ++i) vv_kick(a->v + 3 * (size_t)i, a->f + 3 * (size_t)i, a->half);
}
void launch_pt_kick(int n, double *v, const double *f, double half_dt, cudaStream_t stream) {
  if (n <= 0) return;
  FK_ARG(ki_arg);
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
  FK_NEED(a->v, 3 * (size_t)a->n, "thermo v");
  FK_NEED(a->pe, a->n, "thermo pe");
  FK_NEED(a->vir, a->n, "thermo vir");
  FK_NEED(a->partials, 6 * PT_THERMO_PARTIALS, "thermo partials");
  FK_NEED(a->row, 6, "thermo row");
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
  FK_ARG(th_arg);
  *a = (th_arg){n, v, pe, vir, partials, row};
  const void *t[] = {v, pe, vir, partials, row};
  fk_enqueue(stream, "thermo", th_run, a, t, 5);
}
