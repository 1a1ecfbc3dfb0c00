/* validate.h: the oracle and the Graph500 validation of a search, on one rank, from the raw
 * input edge list (independent of kernel 1 and of every variant). */
#ifndef BFS_VALIDATE_H
#define BFS_VALIDATE_H
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The whole undirected graph as a CSR with sorted neighbour lists (self-loops left out). */
typedef struct bfs_csr {
  int64_t n;
  int64_t *off; /* [n+1] */
  int64_t *adj;
} bfs_csr;

/* reference.c */
void bfs_csr_build(const int64_t *uv, int64_t m, int64_t n, bfs_csr *g);
void bfs_csr_free(bfs_csr *g);
int bfs_csr_has_edge(const bfs_csr *g, int64_t u, int64_t v);
/* The oracle: a level-synchronous queue BFS on the OpenMP threads; level[v] = hops from
 * root, -1 unreached (the same for any thread count). */
void bfs_reference(const bfs_csr *g, int64_t root, int32_t *level);

/* Failures of one search against the five rules of the Graph500 specification
 * ("Validation"), each counted in vertices or edges (0: the rule holds). */
typedef struct bfs_validation {
  int64_t root;         /* parent[root] != root or level[root] != 0 */
  int64_t tree;         /* 1: reached vertices whose parent chain does not end at the root
                            (a cycle, a parent out of range or unreached) */
  int64_t tree_levels;  /* 2: tree edges whose levels do not differ by exactly one (the
                            returned levels, and their agreement with the tree depth) */
  int64_t edge_levels;  /* 3: input edges, both endpoints reached, levels differing by > 1 */
  int64_t spans;        /* 4: input edges with exactly one endpoint reached */
  int64_t parent_edges; /* 5: reached vertices whose (parent, vertex) is not an input edge */
  int64_t nedge;        /* input edges with a reached endpoint, self-loops and repeats
                            included: the m of TEPS */
} bfs_validation;

/* validate.c: checks a parent array and a level array (-1: unreached) against the input
 * edges uv[0..2m) and their CSR. */
void bfs_validate(const bfs_csr *g, const int64_t *uv, int64_t m, int64_t root, const int64_t *parent,
                  const int32_t *level, bfs_validation *out);
/* 1 if every count of v is 0. */
int bfs_validation_ok(const bfs_validation *v);

/* g500.c: the statistics of the Graph500 output (reference code's get_statistics: sample
 * standard deviation, quartiles as the mean of the two middle order statistics). */
typedef struct bfs_g500_stats {
  double min, firstquartile, median, thirdquartile, max, mean, stddev;
} bfs_g500_stats;
void bfs_g500_statistics(const double *x, int n, bfs_g500_stats *s);
/* TEPS = nedge / time per search: order statistics, and in mean/stddev the harmonic mean
 * and its standard deviation (Norris 1940, as the specification's output routine). */
void bfs_g500_teps(const double *nedge, const double *time, int n, bfs_g500_stats *s);
/* Prints the `key: value` block of the specification's output. */
void bfs_g500_print(FILE *f, const double *time, const double *nedge, int n);

#ifdef __cplusplus
}
#endif
#endif
