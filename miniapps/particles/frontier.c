/* frontier.c: the host side of the GPU variants' communication (frontier.h): migrants out and
 * in (Bernaschi et al. Sec. 3.2.2) and the frontier copies out and in (Sec. 3.2.1, the
 * connection matrix and the receive filter). Every record and every shift is computed as in
 * cpu.c, so a copy that crosses a periodic face carries the same bits whichever variant sent
 * it, and the per-particle forces of the GPU variants can equal the cpu oracle's.
 *   used by naive.c, two_stream.c, multi_thread.c, hybrid.c; tested in tests/particles */
#include "frontier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "kit/check.h"

static void *xalloc(size_t bytes, const char *what) {
  return kit_malloc(bytes > 0 ? bytes : 1, what);
}

void pt_set_reserve(pt_set *s, long long cap) {
  if (cap <= s->cap) return;
  long long c = s->cap > 0 ? s->cap : 256;
  while (c < cap) c *= 2;
  int64_t *id = xalloc((size_t)c * sizeof *id, "particle set");
  double *x = xalloc((size_t)c * 3 * sizeof *x, "particle set"),
         *v = xalloc((size_t)c * 3 * sizeof *v, "particle set");
  int *cell = xalloc((size_t)c * sizeof *cell, "particle set");
  if (s->n > 0) {
    memcpy(id, s->id, (size_t)s->n * sizeof *id);
    memcpy(x, s->x, (size_t)s->n * 3 * sizeof *x);
    memcpy(v, s->v, (size_t)s->n * 3 * sizeof *v);
    memcpy(cell, s->cell, (size_t)s->n * sizeof *cell);
  }
  free(s->id), free(s->x), free(s->v), free(s->cell);
  s->id = id, s->x = x, s->v = v, s->cell = cell;
  s->cap = c;
}

void pt_set_free(pt_set *s) {
  free(s->id), free(s->x), free(s->v), free(s->cell);
  memset(s, 0, sizeof *s);
}

void pt_ghosts_free(pt_ghosts *g) {
  free(g->id), free(g->x), free(g->cell), free(g->count);
  free(g->sid), free(g->sx), free(g->scell);
  free(g->at), free(g->kept);
  memset(g, 0, sizeof *g);
}

static int cmp_leaver(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void pt_sort_leavers(double *rec, long long m) {
  if (m > 1) qsort(rec, (size_t)m, PT_LEAVER_W * sizeof *rec, cmp_leaver);
}

void pt_pack_migrants(const pt_params *p, const pt_decomp *d, const double *rec, long long m, px_plan *migr,
                      pt_traffic *tr) {
  px_clear(migr);
  for (long long i = 0; i < m; ++i) {
    const double *l = rec + (size_t)i * PT_LEAVER_W;
    const int c = (int)l[7];
    if (c < d->first[2] || c >= d->ncells)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "leaver %.17g has cell %d, not an external cell", l[0],
              c);
    /* Over the connection owning the external cell, shifted into the receiver's frame;
     * x + L may round up to L itself, which belongs to no cell of [0, L) (cpu.c's rule). */
    const int k = d->ext_conn[c - d->first[2]];
    if (k < 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "leaver %.17g went through a wall into a cell no rank owns", l[0]);
    const int *sh = d->conn[k].shift;
    double *r = px_send_slot(migr, k);
    r[0] = l[0];
    for (int a = 0; a < 3; ++a) {
      r[1 + a] = pt_migrant_coord(l[1 + a], sh[a], p->box[a]);
      r[4 + a] = l[4 + a];
    }
    tr->migrated++;
  }
}

void pt_unpack_migrants(const pt_params *p, const pt_decomp *d, const px_plan *migr, pt_set *arr) {
  for (int k = 0; k < migr->n; ++k)
    for (size_t m = 0; m < migr->rcount[k]; ++m) {
      const double *r = migr->rbuf[k] + m * PT_MIGRANT_W;
      const int c = pt_cell_of(p, d, r + 1);
      if (c < 0 || pt_group(d, c) == PT_EXTERNAL) continue; /* the membership test */
      pt_set_reserve(arr, arr->n + 1);
      arr->id[arr->n] = (int64_t)r[0];
      memcpy(arr->x + 3 * arr->n, r + 1, 3 * sizeof(double));
      memcpy(arr->v + 3 * arr->n, r + 4, 3 * sizeof(double));
      arr->cell[arr->n++] = c;
    }
}

void pt_pack_frontier(const pt_params *p, const pt_decomp *d, const int *cstart, const int64_t *id,
                      const double *x, px_plan *ghost, pt_traffic *tr) {
  px_clear(ghost);
  /* Two passes, so that the copying runs in parallel and the buffers come out exactly as a
   * serial append would write them (frontier cells in order, particles in order): first
   * where each (frontier cell, connection) pair starts in its connection's buffer, then the
   * copies. At 4 M atoms on one rank the serial append took 4.3 ms of a 14 ms GPU step. */
  const int nf = d->first[2] - d->first[1], npairs = d->conn_start[nf];
  size_t *at = kit_malloc(((size_t)npairs + 1) * sizeof *at, "frontier offsets");
  size_t *count = kit_malloc(((size_t)d->nconn + 1) * sizeof *count, "frontier counts");
  for (int k = 0; k < d->nconn; ++k) count[k] = 0;
  for (int f = 0; f < nf; ++f) {
    const int c = d->first[1] + f, np = cstart[c + 1] - cstart[c];
    for (int q = d->conn_start[f]; q < d->conn_start[f + 1]; ++q) {
      at[q] = count[d->conn_list[q]];
      count[d->conn_list[q]] += (size_t)np;
    }
  }
  pt_count_frontier(d, cstart, tr);
  for (int k = 0; k < d->nconn; ++k) px_send_reserve(ghost, k, count[k]);
#pragma omp parallel for schedule(dynamic, 64) if (nf > 64)
  for (int f = 0; f < nf; ++f) {
    const int c = d->first[1] + f;
    /* An empty cell copies nothing, and a connection that gets nothing has no buffer to
     * point into (NULL + 0 is undefined: the fuzzer's set-up found it). */
    if (cstart[c] == cstart[c + 1]) continue;
    for (int q = d->conn_start[f]; q < d->conn_start[f + 1]; ++q) {
      const int k = d->conn_list[q];
      const int *sh = d->conn[k].shift;
      double *r = ghost->sbuf[k] + at[q] * (size_t)ghost->width;
      for (int i = cstart[c]; i < cstart[c + 1]; ++i, r += ghost->width) {
        r[0] = (double)id[i];
        for (int a = 0; a < 3; ++a) r[1 + a] = pt_image_coord(x[3 * (size_t)i + a], sh[a], p->box[a]);
      }
    }
  }
  free(at);
  free(count);
}

static void ghosts_reserve(pt_ghosts *g, long long need) {
  if (need <= g->cap) return;
  long long c = g->cap > 0 ? g->cap : 1024;
  while (c < need) c *= 2;
  free(g->id), free(g->x), free(g->cell), free(g->sid), free(g->sx), free(g->scell);
  g->id = xalloc((size_t)c * sizeof *g->id, "ghosts");
  g->x = xalloc((size_t)c * 3 * sizeof *g->x, "ghosts");
  g->cell = xalloc((size_t)c * sizeof *g->cell, "ghosts");
  g->sid = xalloc((size_t)c * sizeof *g->sid, "ghost sort");
  g->sx = xalloc((size_t)c * 3 * sizeof *g->sx, "ghost sort");
  g->scell = xalloc((size_t)c * sizeof *g->scell, "ghost sort");
  g->cap = g->scap = c;
}

/* *a with room for n entries (grown, never shrunk: the unpack runs every step). */
static long long *scratch(long long **a, long long *cap, long long n, const char *what) {
  if (n > *cap) {
    free(*a);
    *a = xalloc((size_t)n * sizeof **a, what);
    *cap = n;
  }
  return *a;
}

/* Copies per block of the filter: one thread bins, counts and compacts a whole block. */
#define UNPACK_BLOCK 512

/* Copy q of the received buffers taken as one sequence (connection k holds copies at[k] ..
 * at[k + 1]); *k, the connection of an earlier copy, is moved on past the empty ones. */
static const double *ghost_copy(const px_plan *ghost, const long long *at, int *k, long long q) {
  while (q >= at[*k + 1]) ++*k;
  return ghost->rbuf[*k] + (size_t)(q - at[*k]) * PT_GHOST_W;
}

void pt_unpack_ghosts(const pt_params *p, const pt_decomp *d, const px_plan *ghost, pt_ghosts *g,
                      pt_traffic *tr) {
  const int e0 = d->first[2], ne = d->ncells - d->first[2];
  long long *at = scratch(&g->at, &g->atcap, (long long)ghost->n + 1, "ghost offsets");
  at[0] = 0;
  for (int k = 0; k < ghost->n; ++k) at[k + 1] = at[k] + (long long)ghost->rcount[k];
  const long long total = at[ghost->n], nblk = (total + UNPACK_BLOCK - 1) / UNPACK_BLOCK;
  ghosts_reserve(g, total);
  if (g->next < ne || !g->count) {
    free(g->count);
    g->count = xalloc((size_t)(ne + 1) * sizeof *g->count, "ghost rows");
    g->next = ne;
  }
  long long *kept = scratch(&g->kept, &g->keptcap, nblk + 1, "ghost blocks");
  int *bin = g->cell, *cnt = g->count; /* g->cell is the bins' scratch until the scatter */
  /* One parallel region for the whole unpack, over the received buffers of every connection
   * as one sequence: a region per connection cost a team start each, and libgomp starts a
   * nested team's threads (a multi-thread tile thread's) afresh every time. */
#pragma omp parallel if (total > 4096)
  {
    /* Filter (Sec. 3.2.1: keep what falls in an external cell): the bin of every copy, a
     * binary search of the cell array each, the costliest host loop of a GPU step (25 of 33
     * ms per step at 4 M atoms on one H200 when it ran serially); what each block keeps. */
#pragma omp for schedule(static)
    for (long long b = 0; b < nblk; ++b) {
      const long long q0 = b * UNPACK_BLOCK, q1 = q0 + UNPACK_BLOCK < total ? q0 + UNPACK_BLOCK : total;
      long long n = 0;
      int k = 0;
      for (long long q = q0; q < q1; ++q) {
        const int c = pt_cell_of(p, d, ghost_copy(ghost, at, &k, q) + 1);
        bin[q] = c >= 0 && pt_group(d, c) == PT_EXTERNAL ? c : -1;
        n += bin[q] >= 0;
      }
      kept[b + 1] = n;
    }
#pragma omp single
    {
      kept[0] = 0;
      for (long long b = 0; b < nblk; ++b) kept[b + 1] += kept[b];
    }
    /* The kept copies compacted in arrival order (block b from kept[b]), into the scratch
     * arrays: the result does not depend on the thread count. */
#pragma omp for schedule(static)
    for (long long b = 0; b < nblk; ++b) {
      const long long q0 = b * UNPACK_BLOCK, q1 = q0 + UNPACK_BLOCK < total ? q0 + UNPACK_BLOCK : total;
      long long m = kept[b];
      int k = 0;
      for (long long q = q0; q < q1; ++q) {
        if (bin[q] < 0) continue;
        const double *r = ghost_copy(ghost, at, &k, q);
        g->sid[m] = (int64_t)r[0];
        memcpy(g->sx + 3 * m, r + 1, 3 * sizeof(double));
        g->scell[m++] = bin[q];
      }
    }
    /* Counting sort by cell (stable), then insertion sort by id inside a cell (a few dozen
     * copies): the order depends only on which copies a cell holds, as in cpu.c. */
#pragma omp single
    {
      const long long m = kept[nblk];
      for (int e = 0; e <= ne; ++e) cnt[e] = 0;
      for (long long i = 0; i < m; ++i) cnt[g->scell[i] - e0 + 1]++;
      for (int e = 0; e < ne; ++e) cnt[e + 1] += cnt[e];
      for (long long i = 0; i < m; ++i) {
        const long long to = cnt[g->scell[i] - e0]++;
        g->id[to] = g->sid[i];
        g->cell[to] = g->scell[i];
        memcpy(g->x + 3 * to, g->sx + 3 * i, 3 * sizeof(double));
      }
      /* cnt[e] is now the end of row e: turn it back into the start of row e + 1. */
      for (int e = ne; e > 0; --e) cnt[e] = cnt[e - 1];
      cnt[0] = 0;
    }
    /* Rows are independent: sorted in parallel. */
#pragma omp for schedule(dynamic, 256)
    for (int e = 0; e < ne; ++e)
      for (long long i = cnt[e] + 1; i < cnt[e + 1]; ++i)
        for (long long j = i; j > cnt[e] && g->id[j - 1] > g->id[j]; --j) {
          const int64_t t = g->id[j];
          g->id[j] = g->id[j - 1];
          g->id[j - 1] = t;
          for (int a = 0; a < 3; ++a) {
            const double u = g->x[3 * j + a];
            g->x[3 * j + a] = g->x[3 * (j - 1) + a];
            g->x[3 * (j - 1) + a] = u;
          }
        }
  }
  g->n = kept[nblk];
  tr->ghosts_discarded += total - g->n;
}

void pt_place_ghosts(const pt_decomp *d, const pt_ghosts *g, long long base, int64_t *id, double *x,
                     int *cstart) {
  const int e0 = d->first[2], ne = d->ncells - d->first[2];
  if (g->n > 0) {
    memcpy(id + base, g->id, (size_t)g->n * sizeof *id);
    memcpy(x + 3 * base, g->x, (size_t)g->n * 3 * sizeof *x);
  }
  for (int e = 0; e <= ne; ++e) cstart[e0 + e] = (int)(base + (g->count && g->n > 0 ? g->count[e] : 0));
}
