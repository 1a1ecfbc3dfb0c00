/* cpu.c: the `cpu` variant. MPI ranks on an R x C grid x OpenMP threads, no GPU: the
 * level-synchronous 2D BFS of Bernaschi et al. Sec. 3.3 (after Checconi and Petrini):
 * per level, expand the frontier along the grid column, discover the neighbours in this
 * rank's N/C x N/R block of the adjacency matrix, fold the discovered vertices along the
 * grid row to their owners, who keep the unvisited ones as the next frontier. Messages are
 * lists or bitmaps (--transfer). With one rank it is the CPU baseline.
 * Parents: each rank keeps, per row vertex, the smallest key (level << 44 | parent) it has
 * found (claim.h); after the last level a MIN reduce-scatter along the row gives every
 * owner the key of the earliest discovery, i.e. a parent at the previous level. Taking the
 * smallest label among those makes the parent array independent of the grid and thread
 * count.
 * Direction-optimising search (--direction, direction.h; Beamer et al. 2012, in 2D Beamer
 * et al. 2013): a bottom-up level replaces step 2. The row members first gather their
 * owners' visited bits (one bitmap all-gather along the row), then every unvisited row
 * vertex scans its neighbours in this block, through the block's transpose (built at set-up,
 * each list in increasing column order), and stops at the first one in the column frontier:
 * the smallest label here, so the row's MIN gives the same parent as a top-down level.
 * Steps 3-5 are unchanged. With auto, Beamer's rule picks each level's direction from the
 * frontier's and the unvisited vertices' edge counts, summed over the ranks.
 *   mpiexec -n 4 build/bin/bfs --variant cpu --scale 12 --grid 2x2 --transfer bitmap */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "bitmap.h"
#include "claim.h"
#include "direction.h"
#include "exchange.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct cpu_state {
  bfs_ctx c;
  uint32_t *front;    /* own_pad bits: this rank's vertices in the current frontier */
  uint32_t *visited;  /* own_pad bits: this rank's vertices reached so far */
  uint32_t *recv;     /* own_pad bits: what the fold brought */
  uint32_t *colbits;  /* ncol bits: the grid column's frontier */
  uint32_t *col_list; /* the same as column-local indices */
  uint32_t *rowbits;  /* nrow bits: discovered here at this level */
  int64_t *best;      /* nrow keys: earliest (level, parent) found here per row vertex */
  int64_t *best_own;  /* own_pad keys after the row's MIN */
  int64_t *keys_in;   /* C * own_pad: the row members' keys for this rank's section */
  int32_t *level;     /* own_count */
  int64_t *parent;    /* own_count */
  bfs_exchange x;
  bfs_traffic traffic;
  /* Bottom-up (direction not top-down): */
  int64_t *toff;    /* [nrow+1]: transpose of the block, offsets by row-local vertex */
  uint32_t *tadj;   /* column-local neighbours, increasing in each list */
  int64_t *deg;     /* own_pad: degree of each owned vertex (self-loops excluded) */
  uint32_t *rowvis; /* nrow bits: the row's visited vertices (owners' bits, gathered) */
  int *vis_count;   /* [C]: words of each row member's visited bits */
  int *vis_displ;   /* [C] */
} cpu_state;

/* Bottom-up's set-up: the block's transpose and the owners' degrees (build.c), and the
 * row members' visited bits' layout. */
static void transpose_setup(cpu_state *s) {
  const bfs_graph *g = s->c.g;
  bfs_block_transpose(g, 0, g->nrow, &s->toff, &s->tadj);
  s->deg = kit_malloc(((size_t)g->own_pad + 1) * sizeof(int64_t), "degrees");
  bfs_owned_degrees(g, s->deg);
  bfs_row_visited_layout(g, &s->vis_count, &s->vis_displ);
  s->rowvis = kit_malloc(((size_t)g->nrow / 32 + 1) * sizeof(uint32_t), "row visited");
}

uint32_t bfs_bottom_up_word(const bfs_graph *g, const int64_t *toff, const uint32_t *tadj,
                            const uint32_t *colbits, uint32_t visited, int64_t w, int level, int64_t *best) {
  uint32_t todo = ~visited, found = 0;
  while (todo) {
    const int bit = __builtin_ctz(todo);
    todo &= todo - 1;
    const int64_t v = (w << 5) + bit;
    const int64_t u = bfs_first_in_frontier(toff, tadj, colbits, v);
    if (u < 0) continue;
    const int64_t key = bfs_key(level, bfs_col_global(g, u));
    if (key < best[v]) {
      if (best[v] == BFS_KEY_NONE) found |= 1u << bit;
      best[v] = key;
    }
  }
  return found;
}

/* A bottom-up level: every unvisited row vertex takes the first (smallest) column neighbour
 * in the frontier as its parent candidate. One thread per 32-vertex word: rowbits and best
 * are written without atomics. */
static void bottom_up(cpu_state *s, int level, bfs_level_traffic *t) {
  const bfs_graph *g = s->c.g;
  const int64_t ow = g->own_pad / 32, rw = g->nrow / 32;
  KIT_RANGE_PUSH("bottom-up");
  /* The row's visited set: each owner's bits, gathered along the row (counted as row
   * traffic: one bitmap to each of the C - 1 other members). */
  KIT_MPI_CHECK(MPI_Allgatherv(s->visited, bfs_msg_int(ow), MPI_UINT32_T, s->rowvis, s->vis_count,
                               s->vis_displ, MPI_UINT32_T, g->row));
  bfs_count_row_visited(g, bfs_bitmap_count(s->visited, ow), t);
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t w = 0; w < rw; ++w)
    s->rowbits[w] |= bfs_bottom_up_word(g, s->toff, s->tadj, s->colbits, s->rowvis[w], w, level, s->best);
  KIT_RANGE_POP();
}

static void *cpu_setup(const void *ctx) {
  const bfs_ctx *c = ctx;
  cpu_state *s = calloc(1, sizeof *s);
  const bfs_graph *g = c->g;
  s->c = *c;
  const size_t ow = (size_t)g->own_pad / 32 + 1;
  s->front = kit_malloc(ow * sizeof(uint32_t), "frontier");
  s->visited = kit_malloc(ow * sizeof(uint32_t), "visited");
  s->recv = kit_malloc(ow * sizeof(uint32_t), "received");
  s->colbits = kit_malloc(((size_t)g->ncol / 32 + 1) * sizeof(uint32_t), "column frontier");
  s->col_list = kit_malloc(((size_t)g->ncol + 1) * sizeof(uint32_t), "column frontier");
  s->rowbits = kit_malloc(((size_t)g->nrow / 32 + 1) * sizeof(uint32_t), "discovered");
  s->best = kit_malloc(((size_t)g->nrow + 1) * sizeof(int64_t), "parent keys");
  s->best_own = kit_malloc(((size_t)g->own_pad + 1) * sizeof(int64_t), "parent keys");
  s->keys_in = kit_malloc(((g->C > 1 ? (size_t)g->C * g->own_pad : 0) + 1) * sizeof(int64_t), "parent keys");
  s->level = kit_malloc(((size_t)g->own_count + 1) * sizeof(int32_t), "levels");
  s->parent = kit_malloc(((size_t)g->own_count + 1) * sizeof(int64_t), "parents");
  bfs_exchange_init(&s->x, g);
  s->x.prune = c->prune;
  if (c->direction != BFS_TOP_DOWN) transpose_setup(s);
  return s;
}

static void cpu_search(void *st, int64_t root) {
  cpu_state *s = st;
  const bfs_graph *g = s->c.g;
  const int mode = s->c.transfer;
  const int64_t ow = g->own_pad / 32, cw = g->ncol / 32, rw = g->nrow / 32;
  s->traffic.nlevels = 0;

  /* Per-search state, inside the timed search (Graph500 "Timing"). */
  KIT_RANGE_PUSH("init");
  memset(s->front, 0, (size_t)ow * sizeof(uint32_t));
  memset(s->visited, 0, (size_t)ow * sizeof(uint32_t));
  memset(s->rowbits, 0, (size_t)rw * sizeof(uint32_t));
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < g->nrow; ++v) s->best[v] = BFS_KEY_NONE;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < g->own_count; ++k) s->level[k] = -1;
  int64_t count = 0;
  if (root >= g->own_begin && root < g->own_begin + g->own_count) {
    bfs_bit_set(s->front, root - g->own_begin);
    bfs_bit_set(s->visited, root - g->own_begin);
    s->level[root - g->own_begin] = 0;
    count = 1;
  }
  KIT_RANGE_POP();

  /* The first level's direction: bottom-up only when asked for every level (auto starts
   * top-down from the one root vertex, as Beamer's search does). */
  int dir = s->c.direction == BFS_BOTTOM_UP ? BFS_BOTTOM_UP : BFS_TOP_DOWN;
  for (int level = 0;; ++level) {
    bfs_level_traffic *t = bfs_level_begin(&s->traffic, level);
    t->bottom_up = dir == BFS_BOTTOM_UP;

    /* 1. Expand: the frontier of the whole grid column, from its R owners. */
    memset(s->colbits, 0, (size_t)cw * sizeof(uint32_t));
    bfs_expand(g, mode, s->front, count, s->colbits, &s->x, t);

    if (dir == BFS_BOTTOM_UP) {
      /* 2'. Discover bottom-up: unvisited row vertices look for a frontier neighbour. */
      bottom_up(s, level, t);
    } else {
      /* 2. Discover: every neighbour, in this rank's block, of a column frontier vertex. */
      const int64_t nfront = bfs_bitmap_unpack(s->colbits, cw, s->col_list);
      KIT_RANGE_PUSH("discover");
#pragma omp parallel for schedule(dynamic, 64)
      for (int64_t k = 0; k < nfront; ++k) {
        const uint32_t u = s->col_list[k];
        const int64_t key = bfs_key(level, bfs_col_global(g, u));
        for (int64_t e = g->xoff[u]; e < g->xoff[u + 1]; ++e)
          bfs_claim_host(s->best, s->rowbits, g->adj[e], key);
      }
      KIT_RANGE_POP();
    }

    /* 3. Fold: discovered vertices to their owners along the grid row. */
    memset(s->recv, 0, (size_t)ow * sizeof(uint32_t));
    bfs_fold(g, mode, s->rowbits, s->recv, &s->x, t);
    memset(s->rowbits, 0, (size_t)rw * sizeof(uint32_t));

    /* 4. Owners keep the unvisited ones: the next frontier. */
    KIT_RANGE_PUSH("update");
    count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count)
    for (int64_t w = 0; w < ow; ++w) {
      uint32_t fresh = s->recv[w] & ~s->visited[w];
      s->visited[w] |= fresh;
      s->front[w] = fresh;
      count += bfs_popc32(fresh);
      while (fresh) {
        const int bit = __builtin_ctz(fresh);
        s->level[(w << 5) + bit] = level + 1;
        fresh &= fresh - 1;
      }
    }
    /* The switch rule's counters, summed over ranks with the frontier's size: edges out of
     * the new frontier (m_f) and out of the still unvisited vertices (m_u). */
    int64_t mf = 0, mu = 0;
    if (s->c.direction == BFS_DIRECTION_AUTO) {
#pragma omp parallel for schedule(static) reduction(+ : mf, mu)
      for (int64_t k = 0; k < g->own_count; ++k) {
        if (bfs_bit_get(s->front, k)) mf += s->deg[k];
        if (!bfs_bit_get(s->visited, k)) mu += s->deg[k];
      }
    }
    const int64_t next = bfs_direction_level_end(s->c.direction, &dir, count, mf, mu, g->n, level);
    KIT_RANGE_POP();
    if (next == 0) break;
    bfs_traffic_level(&s->traffic, level + 1)->frontier = next;
  }
  s->traffic.lv[0].frontier = 1;

  /* 5. Parents: the earliest, smallest-label discoverer, gathered by each owner. */
  KIT_RANGE_PUSH("parents");
  bfs_row_min_keys(g, s->best, s->best_own, s->keys_in);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < g->own_count; ++k) {
    s->parent[k] = bfs_parent_of(s->level[k], s->best_own[k], g->own_begin + k);
  }
  KIT_RANGE_POP();
}

/* kit_variant.run: n searches from the first key (kit_main's hybrid calibration). */
static void cpu_run(void *st, int n) {
  for (int k = 0; k < n; ++k) cpu_search(st, ((cpu_state *)st)->c.first_key);
}

static void cpu_fetch(void *st, int64_t *parent_owned, int32_t *level_owned) {
  cpu_state *s = st;
  memcpy(parent_owned, s->parent, (size_t)s->c.g->own_count * sizeof(int64_t));
  memcpy(level_owned, s->level, (size_t)s->c.g->own_count * sizeof(int32_t));
}

static const bfs_traffic *cpu_traffic(void *st) {
  return &((cpu_state *)st)->traffic;
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  bfs_exchange_free(&s->x);
  free(s->front);
  free(s->visited);
  free(s->recv);
  free(s->colbits);
  free(s->col_list);
  free(s->rowbits);
  free(s->best);
  free(s->best_own);
  free(s->keys_in);
  free(s->level);
  free(s->parent);
  bfs_traffic_free(&s->traffic);
  free(s->toff);
  free(s->tadj);
  free(s->deg);
  free(s->rowvis);
  free(s->vis_count);
  free(s->vis_displ);
  free(s);
}

const bfs_variant bfs_cpu = {
    .base = {.name = "cpu",
             .summary =
                 "MPI ranks on an R x C grid x OpenMP threads, no GPU (the reference and CPU baseline)",
             .needs_gpu = 0,
             .setup = cpu_setup,
             .reset = bfs_no_reset,
             .run = cpu_run,
             .fetch = NULL,
             .halo = NULL,
             .teardown = cpu_teardown,
             .gpus_max = 0,
             .thread_level = 0,
             .hybrid = 0},
    .search = cpu_search,
    .fetch = cpu_fetch,
    .traffic = cpu_traffic,
};
