/* kit/graph_part.h: k-way partitioning of a graph into balanced parts with a small edge cut,
 * the one place the kit calls METIS (METIS_PartGraphKway). Bernaschi et al. Sec. 3.2 split
 * their irregular particle domains with PT-SCOTCH/METIS, and Sourouri's Paper III the cells of
 * a tetrahedral mesh; the particles app (the graph of occupied cutoff-cells, weighted by
 * their particles) and tetfv (the cell dual graph) call this wrapper. */
#ifndef KIT_GRAPH_PART_H
#define KIT_GRAPH_PART_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An undirected graph in CSR form: the neighbours of vertex v are adj[xadj[v] .. xadj[v+1]),
 * every edge listed from both ends, no self loops. vwgt: one non-negative weight per vertex
 * (balanced over the parts), or NULL for unit weights. */
typedef struct kit_graph {
  int n;
  const int *xadj, *adj;
  const int *vwgt;
} kit_graph;

/* Splits g into nparts parts: part[v] in [0, nparts). The same graph, nparts and seed give
 * the same parts on every call (METIS's own random choices are seeded with `seed`);
 * nparts 1 needs no METIS. Returns 0, or -1 with the reason in err (METIS failed, nparts < 1);
 * *edge_cut (if not NULL) gets the edges between parts. */
int kit_graph_part(const kit_graph *g, int nparts, int seed, int *part, long long *edge_cut, char *err,
                   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
