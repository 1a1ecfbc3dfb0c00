/* direction.c: --direction words and Beamer's switch rule (direction.h). */
#include "direction.h"

#include <string.h>

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
