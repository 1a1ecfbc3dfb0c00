/* direction.c: --direction words and Beamer's switch rule (direction.h). */
#include "direction.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"

int bfs_direction_mode(const char *word) {
  if (strcmp(word, "top-down") == 0) return BFS_TOP_DOWN;
  if (strcmp(word, "bottom-up") == 0) return BFS_BOTTOM_UP;
  if (strcmp(word, "auto") == 0) return BFS_DIRECTION_AUTO;
  return -1;
}

const char *bfs_direction_name(int direction) {
  return direction == BFS_TOP_DOWN ? "top-down" : direction == BFS_BOTTOM_UP ? "bottom-up" : "auto";
}

int bfs_direction_next(int prev, int64_t m_f, int64_t m_u, int64_t n_f, int64_t n, double alpha,
                       double beta) {
  if (prev == BFS_TOP_DOWN) return (double)m_f > (double)m_u / alpha ? BFS_BOTTOM_UP : BFS_TOP_DOWN;
  return (double)n_f < (double)n / beta ? BFS_TOP_DOWN : BFS_BOTTOM_UP;
}

int64_t bfs_direction_level_end(int mode, int *dir, int64_t n_f, int64_t m_f, int64_t m_u, int64_t n,
                                int level) {
  static int debug = -1; /* read once: the variable does not change during a run */
  if (debug < 0) debug = getenv("BFS_DIRECTION_DEBUG") != NULL;
  int64_t sums[3] = {n_f, m_f, m_u}, all[3] = {0, 0, 0};
  const int nsums = mode == BFS_DIRECTION_AUTO ? 3 : 1;
  KIT_MPI_CHECK(MPI_Allreduce(sums, all, nsums, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  if (nsums == 3) *dir = bfs_direction_next(*dir, all[1], all[2], all[0], n, BFS_ALPHA, BFS_BETA);
  int rank = 0;
  if (debug) KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  if (debug && rank == 0)
    fprintf(stderr, "level %d n_f %lld m_f %lld m_u %lld next %s\n", level + 1, (long long)all[0],
            (long long)all[1], (long long)all[2], bfs_direction_name(*dir));
  return all[0];
}
