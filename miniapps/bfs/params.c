/* params.c: small pieces of the bfs command line and bookkeeping: the --grid parser, the
 * default grid, --transfer words, per-level traffic records, the hybrid's split and the
 * contract's no-op reset. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "claim.h"
#include "kit/check.h"

int bfs_transfer_mode(const char *word) {
  return strcmp(word, "list") == 0 ? BFS_LIST : strcmp(word, "bitmap") == 0 ? BFS_BITMAP : BFS_AUTO;
}

int bfs_parse_grid(const char *arg, void *dest, char *err, size_t errlen) {
  int *rc = dest;
  const char *x = strpbrk(arg, "xX");
  char *end1 = NULL, *end2 = NULL;
  errno = 0;
  const long r = x ? strtol(arg, &end1, 10) : 0;
  const long c = x ? strtol(x + 1, &end2, 10) : 0;
  if (!x || errno || end1 != x || end1 == arg || !end2 || end2 == x + 1 || *end2 || arg[0] == '-' ||
      x[1] == '-' || x[1] == '+') {
    snprintf(err, errlen, "'%s' is not RxC (two positive integers, e.g. 2x4)", arg);
    return -1;
  }
  if (r < 1 || c < 1 || r > 65536 || c > 65536) {
    snprintf(err, errlen, "'%s': R and C must be in [1, 65536]", arg);
    return -1;
  }
  rc[0] = (int)r;
  rc[1] = (int)c;
  return 0;
}

void bfs_default_grid(int p, int grid[2]) {
  /* P x 1: one grid column of P ranks (README.md, "Default grid"). With C = 1 the fold and the
   * parents' reduction along a grid row stay on the rank; the expand, an all-gather of the
   * frontier along the column, is the cheaper phase at the rank counts measured (two H200 at
   * scale 24: 2x1 4.7 times 1x2's TEPS). */
  grid[0] = p;
  grid[1] = 1;
}

bfs_level_traffic *bfs_traffic_level(bfs_traffic *t, int level) {
  if (level >= t->cap) {
    const int cap = level + 64;
    bfs_level_traffic *lv = realloc(t->lv, (size_t)cap * sizeof *lv);
    if (!lv) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for %d levels", cap);
    memset(lv + t->cap, 0, (size_t)(cap - t->cap) * sizeof *lv);
    t->lv = lv;
    t->cap = cap;
  }
  while (t->nlevels <= level) {
    bfs_level_traffic *l = &t->lv[t->nlevels++];
    int64_t *keep = l->fold_to;
    const int n = l->fold_n;
    memset(l, 0, sizeof *l);
    if (keep) memset(keep, 0, (size_t)n * sizeof *keep);
    l->fold_to = keep;
    l->fold_n = n;
  }
  return &t->lv[level];
}

void bfs_traffic_free(bfs_traffic *t) {
  for (int l = 0; l < t->cap; ++l) free(t->lv[l].fold_to);
  free(t->lv);
  memset(t, 0, sizeof *t);
}

bfs_level_traffic *bfs_level_begin(bfs_traffic *t, int level) {
  if (level > BFS_KEY_MAX_LEVEL)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "more than %d BFS levels", BFS_KEY_MAX_LEVEL);
  return bfs_traffic_level(t, level);
}

void bfs_no_reset(void *st) {
  (void)st;
}

int64_t bfs_hybrid_cpu_words(const bfs_graph *g, double fraction) {
  const int64_t rw = g->nrow / 32;
  const double f = fraction > 0.0 ? fraction : 0.0;
  const int64_t words = (int64_t)(f * (double)rw + 0.5);
  return words > rw ? rw : words;
}
