/* build.c: Graph500 kernel 1 on the 2D grid, and what the driver derives from its product:
 * the search keys and the edge count of a search (the m of TEPS).
 * Kernel 1 (timed by the driver): every undirected edge {u, v} becomes the two directed
 * entries u -> v and v -> u; entry u -> v lives on the process in the grid row of v's owner
 * and the grid column of u's owner (partition.h, Bernaschi Sec. 3.3). One all-to-all moves
 * the entries there; each process then builds a CSR of its N/C x N/R block, indexed by the
 * column-local source, holding row-local destinations in arrival order. Repeated edges are
 * kept (they count in TEPS and are harmless to BFS); self-loops are counted at their owner,
 * not stored. Every pass runs on the rank's OpenMP threads (kernel 1 is timed). */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "bitmap.h"
#include "kit/check.h"
#include "kit/philox.h"
#include "kronecker.h"
#include "partition.h"

static int to_int(int64_t v, const char *what) {
  if (v > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: %lld values exceed one MPI message", what,
            (long long)v);
  return (int)v;
}

/* World rank storing the directed entry u -> v. */
static int entry_rank(const bfs_graph *g, int64_t u, int64_t v) {
  const int64_t P = (int64_t)g->R * g->C;
  const int64_t bu = bfs_block_of(g->n, P, u), bv = bfs_block_of(g->n, P, v);
  const int ju = (int)(bu / g->R), iv = (int)(bv % g->R);
  return iv * g->C + ju;
}

static void grid_setup(bfs_graph *g, int64_t n, int R, int C, const kit_env *env) {
  memset(g, 0, sizeof *g);
  g->R = R;
  g->C = C;
  g->i = env->rank / C;
  g->j = env->rank % C;
  g->n = n;
  KIT_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, g->i, g->j, &g->row));
  KIT_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, g->j, g->i, &g->col));
  const int64_t P = (int64_t)R * C;
  const int64_t b = bfs_grid_block(R, g->i, g->j);
  g->own_begin = bfs_block_begin(n, P, b);
  g->own_count = bfs_block_count(n, P, b);
  g->own_pad = bfs_pad32(g->own_count);
  g->row_off = kit_malloc((size_t)(C + 1) * sizeof(int64_t), "grid");
  g->row_begin = kit_malloc((size_t)C * sizeof(int64_t), "grid");
  g->row_count = kit_malloc((size_t)C * sizeof(int64_t), "grid");
  g->col_off = kit_malloc((size_t)(R + 1) * sizeof(int64_t), "grid");
  g->col_begin = kit_malloc((size_t)R * sizeof(int64_t), "grid");
  g->col_count = kit_malloc((size_t)R * sizeof(int64_t), "grid");
  g->row_off[0] = 0;
  for (int jj = 0; jj < C; ++jj) {
    const int64_t bb = bfs_grid_block(R, g->i, jj);
    g->row_begin[jj] = bfs_block_begin(n, P, bb);
    g->row_count[jj] = bfs_block_count(n, P, bb);
    g->row_off[jj + 1] = g->row_off[jj] + bfs_pad32(g->row_count[jj]);
  }
  g->col_off[0] = 0;
  for (int ii = 0; ii < R; ++ii) {
    const int64_t bb = bfs_grid_block(R, ii, g->j);
    g->col_begin[ii] = bfs_block_begin(n, P, bb);
    g->col_count[ii] = bfs_block_count(n, P, bb);
    g->col_off[ii + 1] = g->col_off[ii] + bfs_pad32(g->col_count[ii]);
  }
  g->nrow = g->row_off[C];
  g->ncol = g->col_off[R];
}

/* The threads' share of the input: thread t of T takes entries [m t / T, m (t + 1) / T), the
 * same slices in the count and the place loops, so the send buffer is laid out exactly as a
 * serial loop would lay it out. */
static int64_t slice_at(int64_t m, int t, int T) {
  return (int64_t)((__int128)m * t / T);
}

void bfs_build(const bfs_edges *e, int R, int C, const kit_env *env, bfs_graph *g) {
  grid_setup(g, e->n, R, C, env);
  const int P = env->nranks, T = omp_get_max_threads();
  int *scount = calloc((size_t)P, sizeof(int)), *rcount = calloc((size_t)P, sizeof(int));
  int *sdispl = calloc((size_t)P + 1, sizeof(int)), *rdispl = calloc((size_t)P + 1, sizeof(int));
  /* cnt[t * P + r]: thread t's entries (two int64 each) for rank r; then its first slot. */
  int64_t *cnt = calloc((size_t)T * P, sizeof(int64_t));
  /* Count, then place. A self-loop travels once, to its owner, as (u, u). */
#pragma omp parallel num_threads(T)
  for (int t = omp_get_thread_num(); t < T; t += omp_get_num_threads()) {
    int64_t *c = cnt + (size_t)t * P;
    for (int64_t k = slice_at(e->m, t, T); k < slice_at(e->m, t + 1, T); ++k) {
      const int64_t u = e->uv[2 * k], v = e->uv[2 * k + 1];
      c[entry_rank(g, u, v)] += 2;
      if (u != v) c[entry_rank(g, v, u)] += 2;
    }
  }
  for (int r = 0; r < P; ++r) {
    int64_t total = 0;
    for (int t = 0; t < T; ++t) {
      const int64_t c = cnt[(size_t)t * P + r];
      cnt[(size_t)t * P + r] = total; /* thread t's offset inside rank r's part */
      total += c;
    }
    scount[r] = to_int(total, "kernel 1 entries");
    sdispl[r + 1] = to_int((int64_t)sdispl[r] + scount[r], "kernel 1 entries");
  }
  KIT_MPI_CHECK(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < P; ++r) rdispl[r + 1] = to_int((int64_t)rdispl[r] + rcount[r], "kernel 1 entries");
  int64_t *sbuf = kit_malloc((size_t)(sdispl[P] + 1) * sizeof(int64_t), "kernel 1 send buffer");
  /* One rank sends everything to itself: the send buffer is already what it would receive
   * (at scale 24 that saves a copy of 8.6 GB and as much memory). */
  int64_t *rbuf =
      P == 1 ? sbuf : kit_malloc((size_t)(rdispl[P] + 1) * sizeof(int64_t), "kernel 1 receive buffer");
#pragma omp parallel num_threads(T)
  for (int t = omp_get_thread_num(); t < T; t += omp_get_num_threads()) {
    int64_t *c = cnt + (size_t)t * P;
    for (int r = 0; r < P; ++r) c[r] += sdispl[r];
    for (int64_t k = slice_at(e->m, t, T); k < slice_at(e->m, t + 1, T); ++k) {
      const int64_t u = e->uv[2 * k], v = e->uv[2 * k + 1];
      int r = entry_rank(g, u, v);
      sbuf[c[r]++] = u;
      sbuf[c[r]++] = v;
      if (u != v) {
        r = entry_rank(g, v, u);
        sbuf[c[r]++] = v;
        sbuf[c[r]++] = u;
      }
    }
  }
  if (P > 1) {
    KIT_MPI_CHECK(
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_INT64_T, rbuf, rcount, rdispl, MPI_INT64_T, MPI_COMM_WORLD));
    free(sbuf);
  }

  /* CSR by column-local source. The counts are sums, so the threads add them atomically.
   * The placement keeps the order in which the entries arrived, as a serial loop would:
   * thread t owns the sources [split[t], split[t+1]) (about equal shares of the entries),
   * reads every entry in order and places only its own. Each thread reads all of xs, but
   * writes without atomics, and the CSR is the same for every thread count. */
  const int64_t P64 = P, nent = rdispl[P] / 2;
  g->loops = calloc((size_t)(g->own_count > 0 ? g->own_count : 1), sizeof(int32_t));
  g->xoff = calloc((size_t)g->ncol + 1, sizeof(int64_t));
  int64_t *xs = kit_malloc((size_t)(nent + 1) * sizeof(int64_t), "kernel 1 sources");
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < nent; ++k) {
    const int64_t u = rbuf[2 * k], v = rbuf[2 * k + 1];
    if (u == v) {
      __atomic_fetch_add(&g->loops[u - g->own_begin], 1, __ATOMIC_RELAXED);
      xs[k] = -1;
      continue;
    }
    const int64_t bu = bfs_block_of(g->n, P64, u), ii = bu % g->R;
    xs[k] = g->col_off[ii] + (u - g->col_begin[ii]);
    __atomic_fetch_add(&g->xoff[xs[k] + 1], 1, __ATOMIC_RELAXED);
  }
  for (int64_t x = 0; x < g->ncol; ++x) g->xoff[x + 1] += g->xoff[x];
  g->adj = kit_malloc((size_t)(g->xoff[g->ncol] + 1) * sizeof(uint32_t), "adjacency");
  int64_t *fill = kit_malloc((size_t)(g->ncol + 1) * sizeof(int64_t), "kernel 1 fill");
  memcpy(fill, g->xoff, (size_t)g->ncol * sizeof(int64_t));
  int64_t *split = kit_malloc((size_t)(T + 1) * sizeof(int64_t), "kernel 1 split");
  int64_t x = 0;
  for (int t = 0; t <= T; ++t) { /* the first source whose list starts at or after t/T of the entries */
    const int64_t want = slice_at(g->xoff[g->ncol], t, T);
    while (x < g->ncol && g->xoff[x] < want) ++x;
    split[t] = t == T ? g->ncol : x;
  }
#pragma omp parallel num_threads(T)
  for (int t = omp_get_thread_num(); t < T; t += omp_get_num_threads()) {
    const int64_t lo = split[t], hi = split[t + 1];
    for (int64_t k = 0; k < nent; ++k) {
      const int64_t x = xs[k];
      if (x < lo || x >= hi) continue; /* also skips self-loops (-1) */
      const int64_t v = rbuf[2 * k + 1];
      const int64_t jj = bfs_block_of(g->n, P64, v) / g->R;
      g->adj[fill[x]++] = (uint32_t)(g->row_off[jj] + (v - g->row_begin[jj]));
    }
  }
  free(split);
  free(fill);
  free(xs);
  free(rbuf);
  free(cnt);
  free(scount);
  free(rcount);
  free(sdispl);
  free(rdispl);
}

void bfs_graph_free(bfs_graph *g) {
  KIT_MPI_CHECK(MPI_Comm_free(&g->row));
  KIT_MPI_CHECK(MPI_Comm_free(&g->col));
  free(g->row_off);
  free(g->row_begin);
  free(g->row_count);
  free(g->col_off);
  free(g->col_begin);
  free(g->col_count);
  free(g->xoff);
  free(g->adj);
  free(g->loops);
  memset(g, 0, sizeof *g);
}

int64_t bfs_col_global(const bfs_graph *g, int64_t x) {
  int ii = 0;
  while (x >= g->col_off[ii + 1]) ii++;
  return g->col_begin[ii] + (x - g->col_off[ii]);
}

uint32_t *bfs_nonisolated(const bfs_graph *g) {
  const int64_t words = bfs_bitmap_words(g->n);
  uint32_t *bits = calloc((size_t)words, sizeof(uint32_t));
  for (int ii = 0; ii < g->R; ++ii)
    for (int64_t k = 0; k < g->col_count[ii]; ++k) {
      const int64_t x = g->col_off[ii] + k;
      if (g->xoff[x + 1] > g->xoff[x]) bfs_bit_set(bits, g->col_begin[ii] + k);
    }
  KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, bits, to_int(words, "vertex bitmap"), MPI_UINT32_T, MPI_BOR,
                              MPI_COMM_WORLD));
  return bits;
}

int bfs_sample_roots(const uint32_t *nonisolated, int64_t n, uint64_t seed, int want, int64_t *roots) {
  const int64_t eligible = bfs_bitmap_count(nonisolated, bfs_bitmap_words(n));
  int got = 0;
  if (eligible <= want) { /* Graph500: fewer qualifying vertices, fewer searches */
    for (int64_t v = 0; v < n; ++v)
      if (bfs_bit_get(nonisolated, v)) roots[got++] = v;
    return got;
  }
  /* Uniform draws until `want` distinct qualifying vertices: candidate k is Philox(seed, k). */
  for (uint64_t k = 0; got < want; ++k) {
    kit_philox4x32 c = {{(uint32_t)k, (uint32_t)(k >> 32), 0u, BFS_STREAM_ROOT}};
    kit_philox_key key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    const kit_philox4x32 w = kit_philox4x32_10(c, key);
    const int64_t v = (int64_t)((((uint64_t)w.v[0] << 32) | w.v[1]) % (uint64_t)n);
    if (!bfs_bit_get(nonisolated, v)) continue;
    int dup = 0;
    for (int r = 0; r < got; ++r) dup |= roots[r] == v;
    if (!dup) roots[got++] = v;
  }
  return got;
}

int64_t bfs_traversed_edges(const bfs_graph *g, const int32_t *level_owned) {
  /* Which vertices of this grid column were reached: the owners' bits, gathered. */
  const int64_t own_words = g->own_pad / 32;
  uint32_t *mine = calloc((size_t)(own_words + 1), sizeof(uint32_t));
  uint32_t *col = calloc((size_t)(g->ncol / 32 + 1), sizeof(uint32_t));
  for (int64_t k = 0; k < g->own_count; ++k)
    if (level_owned[k] >= 0) bfs_bit_set(mine, k);
  int *counts = kit_malloc((size_t)g->R * sizeof(int), "counts"),
      *displs = kit_malloc((size_t)g->R * sizeof(int), "displs");
  for (int ii = 0; ii < g->R; ++ii) {
    counts[ii] = to_int((g->col_off[ii + 1] - g->col_off[ii]) / 32, "column bitmap");
    displs[ii] = to_int(g->col_off[ii] / 32, "column bitmap");
  }
  KIT_MPI_CHECK(MPI_Allgatherv(mine, to_int(own_words, "bitmap"), MPI_UINT32_T, col, counts, displs,
                               MPI_UINT32_T, g->col));
  /* Each non-loop input edge is stored twice (u -> v and v -> u): halve the directed sum. */
  int64_t directed = 0, loops = 0;
  for (int64_t x = 0; x < g->ncol; ++x)
    if (bfs_bit_get(col, x)) directed += g->xoff[x + 1] - g->xoff[x];
  for (int64_t k = 0; k < g->own_count; ++k)
    if (level_owned[k] >= 0) loops += g->loops[k];
  int64_t mine2[2] = {directed, loops}, all[2];
  KIT_MPI_CHECK(MPI_Allreduce(mine2, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  free(mine);
  free(col);
  free(counts);
  free(displs);
  return all[0] / 2 + all[1];
}

void bfs_csr_select(const bfs_graph *g, int64_t lo, int64_t hi, int inside, int64_t shift, int64_t **xoff,
                    uint32_t **adj) {
  int64_t *off = kit_malloc((size_t)(g->ncol + 1) * sizeof(int64_t), "sub-CSR offsets");
  off[0] = 0;
  /* Count, then fill: the order of each source's entries is kept. */
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < g->ncol; ++x) {
    int64_t c = 0;
    for (int64_t e = g->xoff[x]; e < g->xoff[x + 1]; ++e)
      c += ((int64_t)g->adj[e] >= lo && (int64_t)g->adj[e] < hi) == inside;
    off[x + 1] = c;
  }
  for (int64_t x = 0; x < g->ncol; ++x) off[x + 1] += off[x];
  uint32_t *a = kit_malloc((size_t)(off[g->ncol] + 1) * sizeof(uint32_t), "sub-CSR adjacency");
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < g->ncol; ++x) {
    int64_t k = off[x];
    for (int64_t e = g->xoff[x]; e < g->xoff[x + 1]; ++e) {
      const int64_t v = g->adj[e];
      if ((v >= lo && v < hi) == inside) a[k++] = (uint32_t)(v - shift);
    }
  }
  *xoff = off;
  *adj = a;
}

void bfs_edges_relabel_cyclic(bfs_edges *e, int64_t parts) {
  const int64_t n = e->n, len = 2 * e->m;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < len; ++k) e->uv[k] = bfs_cyclic_label(n, parts, e->uv[k]);
}

double bfs_edge_imbalance(const bfs_graph *g) {
  const int64_t mine = g->xoff[g->ncol];
  int64_t most = 0, total = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  const double P = (double)g->R * g->C;
  return total > 0 ? (double)most * P / (double)total : 1.0;
}

void bfs_block_transpose(const bfs_graph *g, int64_t first, int64_t last, int64_t **toff, uint32_t **tadj) {
  const int64_t nrow = last - first, nent = g->xoff[g->ncol];
  int64_t *off = kit_malloc(((size_t)nrow + 1) * sizeof(int64_t), "transpose offsets");
  uint32_t *a = kit_malloc((size_t)(nent + 1) * sizeof(uint32_t), "transpose adjacency");
  /* Each thread owns a range of destinations and walks every source in increasing order, so
   * each list comes out in increasing source order whatever the thread count: two passes
   * over the block per thread, read in order, instead of a serial scatter. */
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    /* Destinations [lo, hi) of the range, as indices from `first`. */
    const int64_t lo = slice_at(nrow, t, T), hi = slice_at(nrow, t + 1, T);
    for (int64_t v = lo; v < hi; ++v) off[v + 1] = 0;
    for (int64_t e = 0; e < nent; ++e) {
      const int64_t v = (int64_t)g->adj[e] - first;
      if (v >= lo && v < hi) off[v + 1]++;
    }
#pragma omp barrier
#pragma omp single
    {
      off[0] = 0;
      for (int64_t v = 0; v < nrow; ++v) off[v + 1] += off[v];
    }
    int64_t *fill = kit_malloc(((size_t)(hi - lo) + 1) * sizeof(int64_t), "transpose fill");
    for (int64_t v = lo; v < hi; ++v) fill[v - lo] = off[v];
    for (int64_t u = 0; u < g->ncol; ++u)
      for (int64_t e = g->xoff[u]; e < g->xoff[u + 1]; ++e) {
        const int64_t v = (int64_t)g->adj[e] - first;
        if (v >= lo && v < hi) a[fill[v - lo]++] = (uint32_t)u;
      }
    free(fill);
  }
  *toff = off;
  *tadj = a;
}

int64_t bfs_owned_degrees(const bfs_graph *g, int64_t *deg) {
  /* Every entry into v lies in v's grid row: the row members' counts, summed to each owner. */
  int64_t *cnt = calloc((size_t)g->nrow + 1, sizeof(int64_t));
  int *rc = kit_malloc((size_t)g->C * sizeof(int), "counts");
  const int64_t nent = g->xoff[g->ncol];
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < nent; ++e) __atomic_fetch_add(&cnt[g->adj[e]], 1, __ATOMIC_RELAXED);
  for (int jj = 0; jj < g->C; ++jj) rc[jj] = to_int(g->row_off[jj + 1] - g->row_off[jj], "a row section");
  KIT_MPI_CHECK(MPI_Reduce_scatter(cnt, deg, rc, MPI_INT64_T, MPI_SUM, g->row));
  free(rc);
  free(cnt);
  int64_t total = 0;
  for (int64_t k = 0; k < g->own_pad; ++k) total += deg[k];
  return total;
}

void bfs_row_visited_layout(const bfs_graph *g, int **count, int **displ) {
  *count = kit_malloc((size_t)g->C * sizeof(int), "counts");
  *displ = kit_malloc((size_t)g->C * sizeof(int), "counts");
  for (int jj = 0; jj < g->C; ++jj) {
    (*count)[jj] = to_int((g->row_off[jj + 1] - g->row_off[jj]) / 32, "a row section");
    (*displ)[jj] = to_int(g->row_off[jj] / 32, "a row section");
  }
}
