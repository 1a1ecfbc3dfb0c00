/* frontier.c: --frontier-table, the "next level frontier set" (NLFS) of Rossetti et al.'s
 * slides, counted for a finished search (untimed). Their straightforward BFS gives every
 * frontier vertex's neighbours to threads that write them, one entry per adjacency-list
 * entry, into a contiguous array: recipe 1's prefix sum of the frontier's degrees makes its
 * length m = sum of d_i over the frontier, recipe 2 fills it, and recipe 3 sorts it and
 * compacts it to the n distinct vertices ("Unique ratio m/n ~ 20"). Their array holds every
 * neighbour, visited or not: only recipe 4's update drops the visited ones.
 * Here the same array is counted on the kit's 2D blocks. The frontier of level L is the set
 * of vertices at level L (BFS levels are unique, so it is the same set whatever direction,
 * variant, grid or partition produced the levels); rank (i, j) would write one entry per
 * stored entry u -> v of its block with u in the column's level-L frontier. So m, summed
 * over the ranks, is the number of directed entries out of the frontier (each entry is
 * stored on exactly one rank): the same for every rank count. n is the distinct v per rank,
 * summed: a vertex reached from two grid columns counts once in each, so n depends on the
 * grid and the partition (and m/n with it), as the slides' per-process figures do.
 * Nothing here is timed or changes a search. */
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "exchange.h"
#include "kit/check.h"

void bfs_nlfs_local(const bfs_graph *g, const int32_t *col_level, int nlevels, int32_t *stamp,
                    int64_t *counts) {
  memset(counts, 0, (size_t)BFS_NLFS_NCOUNT * nlevels * sizeof(int64_t));
  /* The column's vertices grouped by level (a counting sort), so the levels go in order and
   * stamp[v] == L says "v is already in this rank's level-L array". */
  int64_t *start = calloc((size_t)nlevels + 1, sizeof(int64_t));
  uint32_t *order = kit_malloc(((size_t)g->ncol + 1) * sizeof(uint32_t), "frontier order");
  for (int64_t x = 0; x < g->ncol; ++x)
    if (col_level[x] >= 0 && col_level[x] < nlevels) start[col_level[x] + 1]++;
  for (int L = 0; L < nlevels; ++L) start[L + 1] += start[L];
  int64_t *fill = kit_malloc(((size_t)nlevels + 1) * sizeof(int64_t), "frontier order");
  memcpy(fill, start, (size_t)nlevels * sizeof(int64_t));
  for (int64_t x = 0; x < g->ncol; ++x)
    if (col_level[x] >= 0 && col_level[x] < nlevels) order[fill[col_level[x]]++] = (uint32_t)x;
  for (int64_t v = 0; v < g->nrow; ++v) stamp[v] = -1;
  /* This rank's own section of the row: targets it owns are not sent. */
  const int64_t own_lo = g->row_off[g->j], own_hi = own_lo + g->row_count[g->j];
  for (int L = 0; L < nlevels; ++L) {
    int64_t *c = counts + (size_t)BFS_NLFS_NCOUNT * L;
    for (int64_t k = start[L]; k < start[L + 1]; ++k) {
      const uint32_t x = order[k];
      for (int64_t e = g->xoff[x]; e < g->xoff[x + 1]; ++e) {
        const uint32_t v = g->adj[e];
        const int remote = (int64_t)v < own_lo || (int64_t)v >= own_hi;
        c[BFS_NLFS_M]++;
        c[BFS_NLFS_M_REMOTE] += remote;
        if (stamp[v] != L) {
          stamp[v] = L;
          c[BFS_NLFS_N]++;
          c[BFS_NLFS_N_REMOTE] += remote;
        }
      }
    }
  }
  free(fill);
  free(order);
  free(start);
}

int bfs_nlfs_search(const bfs_graph *g, const int32_t *level_owned, int64_t **counts) {
  int mine = 0, top = 0;
  for (int64_t k = 0; k < g->own_count; ++k)
    if (level_owned[k] > mine) mine = level_owned[k];
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &top, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  const int nlevels = top + 1; /* the root is at level 0 */
  /* The grid column's levels, from their R owners (padding stays -1). */
  int32_t *col_level = kit_malloc(((size_t)g->ncol + 1) * sizeof(int32_t), "column levels");
  for (int64_t x = 0; x < g->ncol; ++x) col_level[x] = -1;
  int *cnt = kit_malloc((size_t)2 * g->R * sizeof(int), "counts"), *displ = cnt + g->R;
  for (int ii = 0; ii < g->R; ++ii) {
    cnt[ii] = bfs_msg_int(g->col_count[ii]);
    displ[ii] = bfs_msg_int(g->col_off[ii]);
  }
  KIT_MPI_CHECK(MPI_Allgatherv(level_owned, bfs_msg_int(g->own_count), MPI_INT32_T, col_level, cnt, displ,
                               MPI_INT32_T, g->col));
  free(cnt);
  int32_t *stamp = kit_malloc(((size_t)g->nrow + 1) * sizeof(int32_t), "frontier stamps");
  int64_t *c = kit_malloc(((size_t)BFS_NLFS_NCOUNT * nlevels + 1) * sizeof(int64_t), "frontier counts");
  bfs_nlfs_local(g, col_level, nlevels, stamp, c);
  KIT_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, c, BFS_NLFS_NCOUNT * nlevels, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  free(stamp);
  free(col_level);
  *counts = c;
  return nlevels;
}
