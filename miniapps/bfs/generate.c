/* generate.c: the Graph500 edge list, sliced by edge index over the ranks (kronecker.h holds
 * the per-edge formula). Graph500 specification, "Generating the Edge List". A rank's slice
 * depends only on (scale, edgefactor, seed, first, m), so the concatenated list is the same
 * for any rank count: tests/bfs hashes it on 1, 2 and 4 ranks.
 *   build/bin/bfs --scale 10 --roots 1    (prints edge_list_hash) */
#include <stdlib.h>

#include "bfs.h"
#include "kit/check.h"
#include "kronecker.h"
#include "partition.h"

void bfs_generate(int scale, int edgefactor, uint64_t seed, int64_t first, int64_t m, bfs_edges *out) {
  const bfs_kron k = bfs_kron_make(scale, seed);
  out->n = (int64_t)1 << scale;
  out->m_total = (int64_t)edgefactor << scale;
  out->first = first;
  out->m = m;
  out->uv = kit_malloc((size_t)(2 * m > 0 ? 2 * m : 1) * sizeof(int64_t), "edge list");
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < m; ++e)
    bfs_kron_edge(&k, (uint64_t)(first + e), &out->uv[2 * e], &out->uv[2 * e + 1]);
}

void bfs_generate_slice(int scale, int edgefactor, uint64_t seed, int rank, int nranks, bfs_edges *out) {
  const int64_t m = (int64_t)edgefactor << scale;
  bfs_generate(scale, edgefactor, seed, bfs_block_begin(m, nranks, rank), bfs_block_count(m, nranks, rank),
               out);
}

uint64_t bfs_edges_hash(const bfs_edges *e) {
  uint64_t h = 0;
#pragma omp parallel for reduction(+ : h) schedule(static)
  for (int64_t k = 0; k < e->m; ++k)
    h += bfs_edge_hash((uint64_t)(e->first + k), e->uv[2 * k], e->uv[2 * k + 1]);
  return h;
}

void bfs_edges_free(bfs_edges *e) {
  free(e->uv);
  e->uv = NULL;
  e->m = 0;
}
