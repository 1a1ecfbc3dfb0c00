/* graph_part.c: METIS k-way partitioning behind one call (kit/graph_part.h). METIS takes its
 * own integer type (idx_t, 32 or 64 bits by how it was built), so the graph is copied into it
 * here and callers keep plain int arrays. */
#include "kit/graph_part.h"

#include <metis.h>
#include <stdio.h>
#include <stdlib.h>

#include "kit/check.h"

int kit_graph_part(const kit_graph *g, int nparts, int seed, int *part, long long *edge_cut, char *err,
                   size_t errlen) {
  const int n = g->n;
  if (edge_cut) *edge_cut = 0;
  if (nparts < 1) {
    snprintf(err, errlen, "cannot split a graph into %d parts", nparts);
    return -1;
  }
  if (nparts == 1 || n == 0) {
    for (int v = 0; v < n; ++v) part[v] = 0;
    return 0;
  }
  const size_t ne = (size_t)g->xadj[n];
  idx_t *xadj = kit_malloc(((size_t)n + 1) * sizeof *xadj, "graph partition");
  idx_t *adj = kit_malloc((ne + 1) * sizeof *adj, "graph partition");
  idx_t *vw = g->vwgt ? kit_malloc((size_t)n * sizeof *vw, "graph partition") : NULL;
  idx_t *where = kit_malloc((size_t)n * sizeof *where, "graph partition");
  for (int v = 0; v <= n; ++v) xadj[v] = g->xadj[v];
  for (size_t e = 0; e < ne; ++e) adj[e] = g->adj[e];
  for (int v = 0; vw && v < n; ++v) vw[v] = g->vwgt[v];
  idx_t nv = n, ncon = 1, np = nparts, cut = 0, opt[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opt);
  opt[METIS_OPTION_SEED] = seed; /* the same partition on every run */
  opt[METIS_OPTION_NUMBERING] = 0;
  const int rc =
      METIS_PartGraphKway(&nv, &ncon, xadj, adj, vw, NULL, NULL, &np, NULL, NULL, opt, &cut, where);
  for (int v = 0; v < n; ++v) part[v] = (int)where[v];
  free(xadj);
  free(adj);
  free(vw);
  free(where);
  if (rc != METIS_OK) {
    snprintf(err, errlen, "METIS_PartGraphKway failed (%d) for %d parts of %d vertices", rc, nparts, n);
    return -1;
  }
  if (edge_cut) *edge_cut = (long long)cut;
  return 0;
}
