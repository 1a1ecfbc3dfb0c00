/* direction.h: direction-optimising BFS (Beamer, Asanovic, Patterson 2012; on a 2D grid,
 * Beamer, Buluc, Asanovic, Yelick 2013). A level runs top-down (each frontier vertex scans
 * its edges: cpu.c's discover) or bottom-up (each unvisited vertex scans its edges and stops
 * at the first one into the frontier). Beamer's switch rule, written once here as a pure
 * function so it can be tested on recorded frontier sizes:
 *   top-down -> bottom-up  when m_f > m_u / alpha
 *   bottom-up -> top-down  when n_f < n / beta
 * m_f: edges out of the frontier, m_u: edges out of the unvisited vertices, n_f: frontier
 * vertices, n: vertices; all global (summed over ranks). alpha = 14, beta = 24 by default
 * (Beamer et al. 2012, Sec. 4). */
#ifndef BFS_DIRECTION_H
#define BFS_DIRECTION_H
#include <stdint.h>

#include "bitmap.h"
#include "kit/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BFS_TOP_DOWN = 0, BFS_BOTTOM_UP = 1, BFS_DIRECTION_AUTO = 2 };
#define BFS_ALPHA 14.0
#define BFS_BETA 24.0

/* The direction of a --direction word (top-down, bottom-up, auto), -1 for anything else. */
int bfs_direction_mode(const char *word);
/* The word of a direction (BFS_TOP_DOWN or BFS_BOTTOM_UP or BFS_DIRECTION_AUTO). */
const char *bfs_direction_name(int direction);

/* The direction of the next level, given the direction `prev` of the level just run and the
 * next frontier's counters (Beamer's rule above). */
int bfs_direction_next(int prev, int64_t m_f, int64_t m_u, int64_t n_f, int64_t n, double alpha, double beta);

/* The end of a level, every variant's: one MPI_Allreduce over all ranks sums this rank's
 * new frontier size n_f and, under auto, its m_f and m_u; *dir becomes the next level's
 * direction (unchanged unless mode is auto). With BFS_DIRECTION_DEBUG set in the
 * environment, rank 0 prints the counters on standard error. Returns the global n_f (0: the
 * search is over). Called by one thread of a process. */
int64_t bfs_direction_level_end(int mode, int *dir, int64_t n_f, int64_t m_f, int64_t m_u, int64_t n,
                                int level);

/* A bottom-up level's step for one unvisited row vertex v, written once for the cpu variant
 * and the GPU kernel: the first entry of v's transpose list (toff/tadj, increasing
 * column-local source, bfs_block_transpose) whose source is in the column frontier colbits,
 * or -1. The first is the smallest label, as the top-down level's MIN would pick. */
static inline KIT_HD int64_t bfs_first_in_frontier(const int64_t *toff, const uint32_t *tadj,
                                                   const uint32_t *colbits, int64_t v) {
  for (int64_t e = toff[v]; e < toff[v + 1]; ++e)
    if (bfs_bit_get(colbits, tadj[e])) return tadj[e];
  return -1;
}

#ifdef __cplusplus
}
#endif
#endif
