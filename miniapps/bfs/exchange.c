/* exchange.c: expand (column) and fold (row) with list or bitmap messages (exchange.h).
 * Bernaschi et al. Sec. 3.3; the pack/unpack are bitmap.h's, shared with the GPU code. */
#include "exchange.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "kit/check.h"
#include "kit/ranges.h"

int bfs_msg_int(int64_t v) {
  if (v > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "a frontier message of %lld words exceeds one MPI message",
            (long long)v);
  return (int)v;
}

void bfs_recv_layout(const int *hdr, int stride, int npeers, int *count, int *displ) {
  int64_t total = 0;
  for (int k = 0; k < npeers; ++k) {
    count[k] = hdr[stride * k + 1];
    displ[k] = bfs_msg_int(total);
    total += count[k];
  }
}

void bfs_exchange_init(bfs_exchange *x, const bfs_graph *g) {
  const int peers = (g->R > g->C ? g->R : g->C) + 1;
  const int64_t s = (g->own_pad > g->nrow ? g->own_pad : g->nrow) + 1;
  const int64_t r = (g->ncol > (int64_t)g->C * g->own_pad ? g->ncol : (int64_t)g->C * g->own_pad) + 1;
  x->sbuf = kit_malloc((size_t)s * sizeof(uint32_t), "frontier send buffer");
  x->rbuf = kit_malloc((size_t)r * sizeof(uint32_t), "frontier receive buffer");
  x->hdr_s = kit_malloc((size_t)peers * 2 * sizeof(int), "headers");
  x->hdr_r = kit_malloc((size_t)peers * 2 * sizeof(int), "headers");
  x->scount = kit_malloc((size_t)peers * sizeof(int), "counts");
  x->sdispl = kit_malloc((size_t)peers * sizeof(int), "counts");
  x->rcount = kit_malloc((size_t)peers * sizeof(int), "counts");
  x->rdispl = kit_malloc((size_t)peers * sizeof(int), "counts");
}

void bfs_exchange_free(bfs_exchange *x) {
  free(x->sbuf);
  free(x->rbuf);
  free(x->hdr_s);
  free(x->hdr_r);
  free(x->scount);
  free(x->sdispl);
  free(x->rcount);
  free(x->rdispl);
  memset(x, 0, sizeof *x);
}

int bfs_as_bitmap(int mode, int64_t count, int64_t n) {
  return mode == BFS_BITMAP || (mode == BFS_AUTO && 32 * count > n);
}

static int cmp_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int64_t bfs_sort_unique(uint32_t *list, int64_t n) {
  if (n <= 1) return n;
  qsort(list, (size_t)n, sizeof *list, cmp_u32);
  int64_t m = 1;
  for (int64_t k = 1; k < n; ++k)
    if (list[k] != list[m - 1]) list[m++] = list[k];
  return m;
}

void bfs_count_expand(const bfs_graph *g, int bm, int64_t words, int64_t count, bfs_level_traffic *t) {
  const int64_t peers = g->R - 1;
  t->expand_bytes += 4 * words * peers;
  t->unpruned_bytes += 4 * (bm ? words : count) * peers;
  t->list_bytes += 4 * count * peers;
  t->messages += peers;
  t->bitmaps += bm ? peers : 0;
}

void bfs_count_fold(const bfs_graph *g, int jj, int bm, int64_t words, int64_t count, bfs_level_traffic *t) {
  if (jj == g->j) return;
  if (!t->fold_to) {
    t->fold_to = kit_malloc((size_t)g->C * sizeof(int64_t), "fold bytes per peer");
    memset(t->fold_to, 0, (size_t)g->C * sizeof(int64_t));
    t->fold_n = g->C;
  }
  t->fold_to[jj] += 4 * words;
  t->fold_bytes += 4 * words;
  t->unpruned_bytes += 4 * (bm ? words : count);
  t->list_bytes += 4 * count;
  t->messages += 1;
  t->bitmaps += bm;
}

void bfs_count_row_visited(const bfs_graph *g, int64_t nvis, bfs_level_traffic *t) {
  for (int jj = 0; jj < g->C; ++jj) bfs_count_fold(g, jj, 1, g->own_pad / 32, nvis, t);
}

/* KIT_FAULT=stale-halo (tests only): messages from other ranks are dropped, as if the
 * exchange had not happened; verification must then fail (tests/bfs). */
static int drop_remote(void) {
  static int cached = -1;
  if (cached < 0) cached = kit_fault("stale-halo");
  return cached;
}

/* ORs a received message (bitmap or list of indices) into the bitmap `dst`. */
static void merge(uint32_t *dst, const uint32_t *msg, int bitmap, int words) {
  if (bitmap) {
#pragma omp parallel for schedule(static) if (words > 4096)
    for (int w = 0; w < words; ++w) dst[w] |= msg[w];
  } else {
    for (int k = 0; k < words; ++k) bfs_bit_set(dst, msg[k]);
  }
}

void bfs_expand(const bfs_graph *g, int mode, const uint32_t *own_bits, int64_t count, uint32_t *colbits,
                bfs_exchange *x, bfs_level_traffic *t) {
  KIT_RANGE_PUSH("expand");
  const int bm = bfs_as_bitmap(mode, count, g->own_count);
  const uint32_t *payload = own_bits;
  int64_t words = g->own_pad / 32;
  if (!bm) { /* the list: unpack this rank's frontier */
    words = bfs_bitmap_unpack(own_bits, g->own_pad / 32, x->sbuf);
    if (x->prune) words = bfs_sort_unique(x->sbuf, words);
    payload = x->sbuf;
  }
  const int hdr[2] = {bm, bfs_msg_int(words)};
  KIT_MPI_CHECK(MPI_Allgather(hdr, 2, MPI_INT, x->hdr_r, 2, MPI_INT, g->col));
  bfs_recv_layout(x->hdr_r, 2, g->R, x->rcount, x->rdispl);
  KIT_MPI_CHECK(
      MPI_Allgatherv(payload, (int)words, MPI_UINT32_T, x->rbuf, x->rcount, x->rdispl, MPI_UINT32_T, g->col));
  for (int ii = 0; ii < g->R; ++ii)
    if (ii == g->i || !drop_remote())
      merge(colbits + g->col_off[ii] / 32, x->rbuf + x->rdispl[ii], x->hdr_r[2 * ii], x->rcount[ii]);
  bfs_count_expand(g, bm, words, count, t);
  KIT_RANGE_POP();
}

void bfs_fold(const bfs_graph *g, int mode, const uint32_t *rowbits, uint32_t *own_bits, bfs_exchange *x,
              bfs_level_traffic *t) {
  KIT_RANGE_PUSH("fold");
  int64_t at = 0;
  for (int jj = 0; jj < g->C; ++jj) {
    const uint32_t *sec = rowbits + g->row_off[jj] / 32;
    const int64_t nwords = (g->row_off[jj + 1] - g->row_off[jj]) / 32;
    const int64_t count = bfs_bitmap_count(sec, nwords);
    const int bm = bfs_as_bitmap(mode, count, g->row_count[jj]);
    int64_t words;
    if (bm) {
      memcpy(x->sbuf + at, sec, (size_t)nwords * sizeof(uint32_t));
      words = nwords;
    } else {
      words = bfs_bitmap_unpack(sec, nwords, x->sbuf + at); /* owner-local indices */
      if (x->prune) words = bfs_sort_unique(x->sbuf + at, words);
    }
    x->hdr_s[2 * jj] = bm;
    x->hdr_s[2 * jj + 1] = bfs_msg_int(words);
    x->scount[jj] = (int)words;
    x->sdispl[jj] = bfs_msg_int(at);
    at += words;
    bfs_count_fold(g, jj, bm, words, count, t);
  }
  KIT_MPI_CHECK(MPI_Alltoall(x->hdr_s, 2, MPI_INT, x->hdr_r, 2, MPI_INT, g->row));
  bfs_recv_layout(x->hdr_r, 2, g->C, x->rcount, x->rdispl);
  KIT_MPI_CHECK(MPI_Alltoallv(x->sbuf, x->scount, x->sdispl, MPI_UINT32_T, x->rbuf, x->rcount, x->rdispl,
                              MPI_UINT32_T, g->row));
  for (int jj = 0; jj < g->C; ++jj)
    if (jj == g->j || !drop_remote())
      merge(own_bits, x->rbuf + x->rdispl[jj], x->hdr_r[2 * jj], x->rcount[jj]);
  KIT_RANGE_POP();
}

void bfs_row_min_keys(const bfs_graph *g, const int64_t *row_keys, int64_t *own_keys, int64_t *scratch) {
  const int C = g->C;
  const int64_t n = g->own_pad;
  if (C == 1) { /* the row is this rank's own section: its keys are final */
    memcpy(own_keys, row_keys, (size_t)n * sizeof(int64_t));
    return;
  }
  int *sc = kit_malloc((size_t)4 * C * sizeof(int), "key counts"), *sd = sc + C, *rc = sc + 2 * C,
      *rd = sc + 3 * C;
  for (int jj = 0; jj < C; ++jj) {
    sc[jj] = bfs_msg_int(g->row_off[jj + 1] - g->row_off[jj]); /* member jj's section of my keys */
    sd[jj] = bfs_msg_int(g->row_off[jj]);
    rc[jj] = bfs_msg_int(n); /* member jj's keys for my section */
    rd[jj] = bfs_msg_int((int64_t)jj * n);
  }
  KIT_MPI_CHECK(MPI_Alltoallv(row_keys, sc, sd, MPI_INT64_T, scratch, rc, rd, MPI_INT64_T, g->row));
  free(sc);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; ++k) {
    int64_t m = scratch[k];
    for (int jj = 1; jj < C; ++jj) {
      const int64_t o = scratch[(int64_t)jj * n + k];
      m = o < m ? o : m;
    }
    own_keys[k] = m;
  }
}
