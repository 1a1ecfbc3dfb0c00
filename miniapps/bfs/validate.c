/* validate.c: the five validation rules of the Graph500 specification ("Validation"), run
 * untimed after every search on the gathered parent and level arrays:
 *   1) the parent array is a tree (no cycles: every reached vertex's chain ends at the root),
 *   2) each tree edge joins vertices whose levels differ by exactly one,
 *   3) every input edge joins vertices whose levels differ by at most one, or both unreached,
 *   4) the tree spans the root's whole connected component,
 *   5) a vertex and its parent are joined by an input edge.
 * Rule 2 uses the levels the search returned (the specification lets kernel 2 return them),
 * and also requires them to equal the depth in the tree, so neither array can hide the other's
 * error. Rule 4 is checked as in the reference validator: no input edge has exactly one
 * reached endpoint (with the root reached, that is exactly "spans the component"). */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

#include "kit/check.h"

enum { UNSEEN = 0, ON_PATH = 1, DONE = 2 };

void bfs_validate(const bfs_csr *g, const int64_t *uv, int64_t m, int64_t root, const int64_t *parent,
                  const int32_t *level, bfs_validation *out) {
  const int64_t n = g->n;
  memset(out, 0, sizeof *out);
  if (parent[root] != root || level[root] != 0) out->root = 1;

  /* Rule 1: depth of every reached vertex by walking its parent chain (memoised); -2 marks a
   * vertex whose chain cycles, leaves [0, n) or reaches an unreached vertex. */
  int64_t *depth = kit_malloc((size_t)(n + 1) * sizeof(int64_t), "validation depths");
  unsigned char *state = calloc((size_t)n + 1, 1);
  int64_t *path = kit_malloc((size_t)(n + 1) * sizeof(int64_t), "validation path");
  for (int64_t v = 0; v < n; ++v) depth[v] = -1;
  depth[root] = 0;
  state[root] = DONE;
  for (int64_t v = 0; v < n; ++v) {
    if (parent[v] == -1 || state[v] == DONE) continue;
    int64_t len = 0, cur = v, base;
    for (;;) {
      if (state[cur] == DONE) {
        base = depth[cur];
        break;
      }
      if (state[cur] == ON_PATH) {
        base = -2;
        break;
      } /* a cycle */
      state[cur] = ON_PATH;
      path[len++] = cur;
      const int64_t p = parent[cur];
      if (p < 0 || p >= n || parent[p] == -1) {
        base = -2;
        break;
      } /* leaves the tree */
      cur = p;
    }
    for (int64_t k = len - 1; k >= 0; --k) { /* unwind: each is one deeper than its parent */
      depth[path[k]] = base < 0 ? -2 : (base = base + 1);
      state[path[k]] = DONE;
    }
  }
  for (int64_t v = 0; v < n; ++v) {
    const int reached = parent[v] != -1;
    if (reached && depth[v] == -2) out->tree++;
    if (reached != (level[v] >= 0)) out->tree_levels++; /* the two arrays disagree on "reached" */
  }

  /* Rules 2 and 5: every tree edge. These loops and the next only count, each vertex or
   * edge on its own, so the threads share them (rule 1's memoised walk stays serial). */
  int64_t tree_levels = 0, parent_edges = 0;
#pragma omp parallel for reduction(+ : tree_levels, parent_edges) schedule(static)
  for (int64_t v = 0; v < n; ++v) {
    if (v == root || parent[v] < 0 || parent[v] >= n) continue;
    const int64_t p = parent[v];
    if (level[v] != level[p] + 1 || depth[v] != level[v]) tree_levels++;
    if (!bfs_csr_has_edge(g, p, v)) parent_edges++;
  }
  out->tree_levels += tree_levels;
  out->parent_edges = parent_edges;

  /* Rules 3 and 4, and the edge count of TEPS: every input edge. */
  int64_t spans = 0, edge_levels = 0, nedge = 0;
#pragma omp parallel for reduction(+ : spans, edge_levels, nedge) schedule(static)
  for (int64_t k = 0; k < m; ++k) {
    const int64_t u = uv[2 * k], v = uv[2 * k + 1];
    const int ru = parent[u] != -1, rv = parent[v] != -1;
    if (ru != rv)
      spans++;
    else if (ru && (level[u] - level[v] > 1 || level[v] - level[u] > 1))
      edge_levels++;
    if (ru || rv) nedge++;
  }
  out->spans = spans;
  out->edge_levels = edge_levels;
  out->nedge = nedge;
  free(depth);
  free(state);
  free(path);
}

int bfs_validation_ok(const bfs_validation *v) {
  return v->root == 0 && v->tree == 0 && v->tree_levels == 0 && v->edge_levels == 0 && v->spans == 0 &&
         v->parent_edges == 0;
}
