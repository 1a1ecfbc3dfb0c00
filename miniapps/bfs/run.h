/* run.h: what one bfs run holds between kit_main's hooks (main.c): the command line and what
 * plan learnt of the graph (bfs_args, kit_app.params), and the run's context (bfs_run: the
 * variants' bfs_ctx, kernel 1's graph, the search keys, the verification inputs and kernel
 * 2's record). The pieces that fill them: setup.c (Graph500 steps 1-2: the edge list, kernel
 * 1, the keys), search.c (kernel 2, timed per key, validated untimed), report.c (the Graph500
 * output block and the kit's report). Graph500 specification; Bernaschi et al. Sec. 3.3. */
#ifndef BFS_RUN_H
#define BFS_RUN_H
#include "bfs.h"
#include "kit/app.h"
#include "validate.h"

/* The command line (kit_app.params; bfs_params first, as the variants read it). */
typedef struct bfs_args {
  bfs_params p;
  uint64_t root; /* --root V */
  int scale_given, ef_given, grid_given, root_given, roots_given;
  int64_t n, m;   /* plan: the graph's vertices and edges (from the flags or the file) */
  bfs_edges file; /* plan: --graph, read whole on rank 0 (moved into the run by context) */
} bfs_args;

/* Failed validation rules, summed over the searches (rank 0). */
typedef struct bfs_failures {
  bfs_validation rules; /* nedge unused */
  int64_t levels;       /* vertices whose level differs from the oracle's */
  int64_t nedge;        /* searches whose distributed edge count differs from the input's */
  double max_level_diff;
} bfs_failures;

/* The run's context (kit_app.context): bfs_ctx first, so the variants' setup gets it. */
typedef struct bfs_run {
  bfs_ctx c;
  const bfs_args *a;
  bfs_graph graph; /* kernel 1's product (c.g) */
  /* --partition cyclic on more than one rank: P = R*C, the graph is built on the relabelled
   * edge list (partition.h) and the driver maps the keys in and the results back out; 0 for
   * the block partition (no relabelling: today's path). */
  int64_t relabel_parts;
  double edge_imbalance;  /* kernel 1's blocks: the largest rank's stored entries over the mean */
  double generation_time; /* Graph500 step 1, max over ranks */
  double build_time;      /* kernel 1's graph build, max over ranks (+ the variant's setup) */
  uint64_t hash;          /* the edge list's hash, summed over ranks */
  int64_t roots[64];      /* the search keys */
  int nbfs;
  /* Rank 0, when it verifies or dumps: the whole input list, the oracle's CSR, gathered arrays. */
  int want_full;
  bfs_edges all;
  bfs_csr csr;
  int64_t *parent;
  int32_t *level, *oracle;
  int64_t *unmap; /* rank 0, cyclic: N int64 of scratch to put the gathered arrays in input order */
  /* Kernel 2's record (search.c). */
  double times[64], nedges[64];
  bfs_failures fail;
  long long messages, bytes; /* this rank's, over every search */
  int64_t expand_total, fold_total, unpruned_total, max_levels;
  int64_t bottom_up_levels, top_down_levels; /* over every search (direction.h) */
  bfs_traffic first;                         /* the first search's levels, summed over ranks */
  /* --frontier-table (frontier.c): the first search's counters per level, and every search's
   * sums (BFS_NLFS_NCOUNT each), summed over ranks. */
  int nlfs_levels;
  int64_t *nlfs_first;
  int64_t nlfs_total[BFS_NLFS_NCOUNT];
  bfs_g500_stats teps;
  double mean_nedge;
} bfs_run;

/* setup.c: kit_app.check, the flag rules that need no allocation (-1 or exit 2), and, once
 * GPUs are chosen, kit_app.plan: the graph's size from the flags, or from --graph read on
 * rank 0, the refusals that size implies and the host and device bytes this rank will
 * allocate (kit_check_memory). */
int bfs_check(const kit_env *env, void *params, const char *variant);
int bfs_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host, double *device);
/* kit_app.context: the edge list (generated, or the file scattered), kernel 1's build (timed),
 * the search keys and the verification inputs (-1, or the exit code of a key refusal). */
int bfs_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo);
void bfs_free_run(void *run);
/* --partition cyclic: the internal label of input vertex v (the identity for block). */
int64_t bfs_internal_vertex(const bfs_run *r, int64_t v);
/* Rank 0, cyclic: the gathered parent and level arrays (r->parent, r->level, indexed and
 * valued in internal labels) put in input labels, before validation and dumps (block: nothing). */
void bfs_input_order(bfs_run *r);
/* hybrid: kit_app.cpu_units (the CPU's 32-vertex words of this rank's row at a share) and
 * kit_app.set_cpu_fraction. */
int bfs_cpu_units(const void *ctx, double fraction);
void bfs_set_cpu_fraction(void *ctx, double fraction);

/* search.c: kit_app.timed, kernel 2: warm-up and profiled searches from the first key, then
 * one timed search per key, each validated untimed. */
int bfs_timed(void *ctx, const kit_variant *v, void *st, kit_timing *t);

/* report.c: kit_app.finish: the Graph500 block, the first search's levels, the results and
 * the validation rules. */
void bfs_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep);

#endif
