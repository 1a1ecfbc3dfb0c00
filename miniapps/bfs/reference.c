/* reference.c: the oracle. A plain queue BFS on a CSR built directly from the input
 * edge list on one rank: no partitioning, no messages, no bitmaps, no direction switch: a
 * level-synchronous queue BFS on the rank's threads. Levels are unique in a BFS (the
 * oracle's own are the same for any thread count), so every variant, grid and thread count
 * must reproduce them exactly (DESIGN.md Sec. 6);
 * the validation (validate.c) uses this CSR to look up parent edges. */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "validate.h"

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void bfs_csr_build(const int64_t *uv, int64_t m, int64_t n, bfs_csr *g) {
  g->n = n;
  g->off = calloc((size_t)n + 1, sizeof(int64_t));
  /* Threads count and place with atomics, so a list's order depends on the schedule; the
   * sort at the end makes the CSR the same for every thread count (and lets has_edge
   * bisect). This runs on rank 0 before the checks: at scale 24 it is 536 M entries. */
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < m; ++k)
    if (uv[2 * k] != uv[2 * k + 1]) {
      __atomic_fetch_add(&g->off[uv[2 * k] + 1], 1, __ATOMIC_RELAXED);
      __atomic_fetch_add(&g->off[uv[2 * k + 1] + 1], 1, __ATOMIC_RELAXED);
    }
  for (int64_t v = 0; v < n; ++v) g->off[v + 1] += g->off[v];
  g->adj = kit_malloc((size_t)(g->off[n] + 1) * sizeof(int64_t), "oracle adjacency");
  int64_t *fill = kit_malloc((size_t)(n + 1) * sizeof(int64_t), "oracle fill");
  memcpy(fill, g->off, (size_t)n * sizeof(int64_t));
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < m; ++k) {
    const int64_t u = uv[2 * k], v = uv[2 * k + 1];
    if (u == v) continue;
    g->adj[__atomic_fetch_add(&fill[u], 1, __ATOMIC_RELAXED)] = v;
    g->adj[__atomic_fetch_add(&fill[v], 1, __ATOMIC_RELAXED)] = u;
  }
  free(fill);
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t v = 0; v < n; ++v)
    qsort(g->adj + g->off[v], (size_t)(g->off[v + 1] - g->off[v]), sizeof(int64_t), cmp_i64);
}

void bfs_csr_free(bfs_csr *g) {
  free(g->off);
  free(g->adj);
  memset(g, 0, sizeof *g);
}

int bfs_csr_has_edge(const bfs_csr *g, int64_t u, int64_t v) {
  if (u < 0 || u >= g->n || v < 0 || v >= g->n) return 0;
  int64_t lo = g->off[u], hi = g->off[u + 1];
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (g->adj[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < g->off[u + 1] && g->adj[lo] == v;
}

void bfs_reference(const bfs_csr *g, int64_t root, int32_t *level) {
  /* Level-synchronous: the threads share each level's queue, and a vertex joins the next one
   * through a compare-and-swap on its level. Which thread wins does not matter: a vertex's
   * level is its distance from the root, the same whoever reaches it first at that level. */
  int64_t *queue = kit_malloc((size_t)(g->n + 1) * sizeof(int64_t), "oracle queue");
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < g->n; ++v) level[v] = -1;
  int64_t head = 0, tail = 1;
  level[root] = 0;
  queue[0] = root;
  for (int32_t l = 0; head < tail; ++l) {
    const int64_t lo = head, hi = tail;
    int64_t next = hi; /* the next level is appended after this one */
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t k = lo; k < hi; ++k) {
      const int64_t u = queue[k];
      for (int64_t e = g->off[u]; e < g->off[u + 1]; ++e) {
        const int64_t v = g->adj[e];
        int32_t unseen = -1;
        if (__atomic_load_n(&level[v], __ATOMIC_RELAXED) < 0 &&
            __atomic_compare_exchange_n(&level[v], &unseen, l + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
          queue[__atomic_fetch_add(&next, 1, __ATOMIC_RELAXED)] = v;
      }
    }
    head = hi;
    tail = next;
  }
  free(queue);
}
