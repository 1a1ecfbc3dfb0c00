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

#ifdef __cplusplus
}
#endif
#endif
