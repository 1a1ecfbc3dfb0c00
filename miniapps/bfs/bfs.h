/* bfs.h: Graph500 breadth-first search on a 2D R x C process grid with list or bitmap
 * frontier transfers. Bernaschi, Bisson, Fatica, "Large scale simulations on GPU clusters"
 * (2015), Sec. 3.3 and Algorithm 1 (`../shared/seeds/000_f40b0347fa5f33fd.txt`); Rossetti
 * et al., "BFS on APEnet+" slides (`../shared/seeds/002_8c1b20bc3bdb9bdb.txt`); the Graph500
 * specification (kernels, 64 search keys, validation, statistics). See README.md.
 * Parameters, the distributed graph every variant reads, traffic counters and the variant
 * contract. */
#ifndef BFS_H
#define BFS_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "kit/app.h"
#include "kit/options.h"
#include "kit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BFS_LIST = 0, BFS_BITMAP = 1, BFS_AUTO = 2 };

/* Every problem parameter, with the common run flags. */
typedef struct bfs_params {
  kit_run run;                /* --variant, --warmup, --seed, --json, ... */
  int scale;                  /* --scale: N = 2^scale vertices (generated graph) */
  int edgefactor;             /* --edgefactor: M = edgefactor * N edges (generated graph) */
  const char *graph;          /* --graph FILE: read the graph instead of generating it */
  int grid[2];                /* --grid RxC; {0, 0}: the default, P x 1 (bfs_default_grid) */
  const char *transfer;       /* --transfer list|bitmap|auto */
  int nroots;                 /* --roots: search keys (Graph500: 64) */
  long long root;             /* --root V: one search from V (-1: sample the keys) */
  const char *dump_parents;   /* --dump-parents FILE: parents of the first search, int64 */
  int prune;                  /* --prune: sort-unique list messages before they leave (recipe 3) */
  const char *direction;      /* --direction top-down|bottom-up|auto (bfs_check fills the default) */
  const char *message_matrix; /* --message-matrix FILE: the first timed search's per-pair bytes (matrix.c) */
  const char *partition; /* --partition block|cyclic: vertex v in block v*P/N (block) or v mod P (cyclic) */
  int frontier_table;    /* --frontier-table: Rossetti's next-level frontier arrays, m and n (frontier.c) */
  const char *comm;      /* --comm: how naive's and two-stream's frontier messages travel (kit/exchange.h) */
} bfs_params;
/* The variants whose messages may go device to device (--comm); the others stage through the
 * host (multi-thread's and hybrid's messages are host memory already). */
#define BFS_COMM_VARIANTS "naive|two-stream"

/* The variants whose default --direction is auto (direction.h): all of them, since every
 * variant's bottom-up levels have passed their direction tests on a GPU (README.md). */
#define BFS_DIRECTION_AUTO_VARIANTS "cpu|naive|two-stream|multi-thread|hybrid"
/* The transfer mode of a --transfer word. */
int bfs_transfer_mode(const char *word);
/* --grid parser: "RxC" with R, C >= 1 into int[2]. */
int bfs_parse_grid(const char *arg, void *dest, char *err, size_t errlen);
/* The default grid for p ranks: p x 1 (one grid column; README.md, "Default grid"). */
void bfs_default_grid(int p, int grid[2]);

/* An undirected edge list: this rank's slice of the benchmark's tuples. */
typedef struct bfs_edges {
  int64_t n;       /* vertices of the whole graph */
  int64_t m_total; /* edges of the whole graph, self-loops and repeats included */
  int64_t first;   /* index of this slice's first edge in the whole list */
  int64_t m;       /* edges in this slice */
  int64_t *uv;     /* 2*m endpoints: u0 v0 u1 v1 ... */
} bfs_edges;

/* generate.c: this rank's slice [first, first+m) of the Kronecker edge list. */
void bfs_generate(int scale, int edgefactor, uint64_t seed, int64_t first, int64_t m, bfs_edges *out);
/* The slice of rank `rank` of `nranks`: edges split as evenly as possible. */
void bfs_generate_slice(int scale, int edgefactor, uint64_t seed, int rank, int nranks, bfs_edges *out);
/* Sum over the slice of bfs_edge_hash (mod 2^64); summed over ranks it hashes the list. */
uint64_t bfs_edges_hash(const bfs_edges *e);
void bfs_edges_free(bfs_edges *e);

/* graph_io.c: reads a Matrix Market (coordinate pattern/real/integer) or whitespace edge
 * list file (0-based "u v [w]" lines, '#' comments). Returns 0, or -1 with "line K: why"
 * (or another one-line reason) in err. Vertices are numbered from 0 in the result. */
int bfs_read_graph(const char *path, bfs_edges *out, char *err, size_t errlen);

/* The process grid and this rank's share of the graph (kernel 1's product). */
typedef struct bfs_graph {
  int R, C;           /* grid rows, columns */
  int i, j;           /* this rank's row and column (world rank i*C + j) */
  int64_t n;          /* vertices */
  MPI_Comm row, col;  /* this grid row (ranked by column), this grid column (ranked by row) */
  int64_t own_begin;  /* first vertex this rank owns */
  int64_t own_count;  /* vertices it owns */
  int64_t own_pad;    /* own_count rounded up to 32 */
  int64_t *row_off;   /* [C+1]: row-local index of the first vertex of (i, j') (padded) */
  int64_t *row_begin; /* [C]: first global vertex of (i, j') */
  int64_t *row_count; /* [C]: vertices of (i, j') */
  int64_t *col_off;   /* [R+1]: column-local index of the first vertex of (i', j) (padded) */
  int64_t *col_begin; /* [R]: first global vertex of (i', j) */
  int64_t *col_count; /* [R]: vertices of (i', j) */
  int64_t nrow, ncol; /* sizes of the row-local and column-local index spaces */
  int64_t *xoff;      /* [ncol+1]: CSR offsets by column-local source */
  uint32_t *adj;      /* row-local destinations, xoff[ncol] of them */
  int32_t *loops;     /* [own_count]: self-loops at each owned vertex (they count in TEPS) */
} bfs_graph;

/* build.c: kernel 1. Sends each directed half of every edge to the process that stores it
 * and builds the local CSR (collective). Self-loops are counted, not stored. */
void bfs_build(const bfs_edges *e, int R, int C, const kit_env *env, bfs_graph *g);
/* --partition cyclic: every endpoint v of the slice becomes bfs_cyclic_label(n, parts, v)
 * (partition.h), in place, before kernel 1 builds the blocks (OpenMP threads). */
void bfs_edges_relabel_cyclic(bfs_edges *e, int64_t parts);
/* The edge balance of kernel 1's blocks: the largest rank's stored directed entries over
 * the mean (1 when nothing is stored; collective). */
double bfs_edge_imbalance(const bfs_graph *g);
void bfs_graph_free(bfs_graph *g);
/* A sub-CSR of g's block (build.c): the entries whose row-local destination lies in
 * [lo, hi) (inside = 1) or outside it (inside = 0), over the same ncol sources, each
 * destination stored minus `shift`. *xoff gets ncol+1 offsets and *adj the entries
 * (kit_malloc'd; the caller frees them). The GPU variants split the block with it: by the
 * owner's own row section (two-stream), into row slices per GPU (multi-thread), between
 * GPU and CPU (hybrid). */
void bfs_csr_select(const bfs_graph *g, int64_t lo, int64_t hi, int inside, int64_t shift, int64_t **xoff,
                    uint32_t **adj);
/* The block's transpose, for bottom-up levels (direction.h): for each row-local vertex v in
 * [first, last), the column-local sources u with u -> v stored here, in increasing u, the same
 * lists for every thread count. *toff gets last-first+1 offsets, indexed by v - first, and
 * *tadj the entries (kit_malloc'd; the caller frees them). [0, nrow): the whole block. */
void bfs_block_transpose(const bfs_graph *g, int64_t first, int64_t last, int64_t **toff, uint32_t **tadj);
/* One row word w of a bottom-up level on the host (cpu variant, hybrid's CPU share): each
 * vertex of the word whose bit in `visited` (the row's visited bits) is clear takes its first
 * frontier neighbour (bfs_first_in_frontier over the whole block's transpose toff/tadj and
 * colbits) and keeps its key in best[v] if smaller; returns the word's new discoveries (the
 * vertices whose key was "none"). One thread per word: no atomics. */
uint32_t bfs_bottom_up_word(const bfs_graph *g, const int64_t *toff, const uint32_t *tadj,
                            const uint32_t *colbits, uint32_t visited, int64_t w, int level, int64_t *best);
/* The degree (self-loops excluded) of each of this rank's own_pad owned vertices into deg:
 * each row member's entries per destination, summed to the owner (collective along the grid
 * row); returns their sum. */
int64_t bfs_owned_degrees(const bfs_graph *g, int64_t *deg);
/* Bottom-up levels: the row members' visited bits laid out along the row (member j' sends
 * its own_pad/32 words, placed at its section's first word): *count and *displ get C ints
 * each (kit_malloc'd; the caller frees them). */
void bfs_row_visited_layout(const bfs_graph *g, int **count, int **displ);
/* Global vertex of column-local index x. */
int64_t bfs_col_global(const bfs_graph *g, int64_t x);
/* A bitmap of the N vertices with at least one edge other than a self-loop (collective). */
uint32_t *bfs_nonisolated(const bfs_graph *g);
/* The search keys: `want` distinct random vertices with degree >= 1 (self-loops excluded),
 * drawn with Philox from the seed, the same on every rank count. Returns how many (fewer
 * when fewer vertices qualify). */
int bfs_sample_roots(const uint32_t *nonisolated, int64_t n, uint64_t seed, int want, int64_t *roots);
/* Input edges in the component of a search (both endpoints reached), self-loops and repeats
 * counted: the m of TEPS = m / time (collective). level_owned < 0: unreached. */
int64_t bfs_traversed_edges(const bfs_graph *g, const int32_t *level_owned);

/* frontier.c: --frontier-table, the next-level frontier arrays (NLFS) of Rossetti et al.'s
 * straightforward BFS: at level L each rank writes one entry per stored directed entry
 * u -> v of its block whose source u is in the level-L frontier (recipes 1-2: the array of
 * m = sum of the frontier's degrees), visited targets included, self-loops excluded (kernel
 * 1 stores none), repeated edges included; recipe 3 sorts it and keeps the n distinct v.
 * "Remote" entries are those whose v another rank owns (what the fold would send).
 * Per level L, four counters: m, n, m_remote, n_remote (BFS_NLFS_*). */
enum { BFS_NLFS_M = 0, BFS_NLFS_N = 1, BFS_NLFS_M_REMOTE = 2, BFS_NLFS_N_REMOTE = 3, BFS_NLFS_NCOUNT = 4 };
/* This rank's counters (not collective): col_level[x] is the level of column-local vertex x
 * (-1: unreached or padding); counts gets BFS_NLFS_NCOUNT * nlevels values (overwritten);
 * stamp is nrow int32 of scratch. */
void bfs_nlfs_local(const bfs_graph *g, const int32_t *col_level, int nlevels, int32_t *stamp,
                    int64_t *counts);
/* Collective: the levels of every grid column gathered from their owners, this rank's
 * counters, summed over the ranks. Returns the number of levels (the largest level + 1) and
 * sets *counts (malloc'd, BFS_NLFS_NCOUNT per level; the caller frees it). */
int bfs_nlfs_search(const bfs_graph *g, const int32_t *level_owned, int64_t **counts);

/* Bytes and messages of one BFS level, this rank's (the driver sums them over ranks). */
typedef struct bfs_level_traffic {
  int64_t frontier;       /* vertices expanded at this level (global) */
  int64_t expand_bytes;   /* payload sent to other ranks in the expand (column) phase */
  int64_t fold_bytes;     /* payload sent to other ranks in the fold (row) phase */
  int64_t list_bytes;     /* what the same messages would have cost as 32-bit lists */
  int64_t unpruned_bytes; /* expand + fold payload without --prune's sort-unique (equal without it) */
  int64_t messages;       /* messages to other ranks */
  int64_t bitmaps;        /* of which sent as bitmaps */
  int bottom_up;          /* 1: the level ran bottom-up (cpu, direction.h); 0: top-down */
  /* [fold_n = C]: fold payload bytes to row member j' (bfs_count_fold; the own entry stays 0),
   * for --message-matrix. Allocated on the first fold count and kept, zeroed, when the level
   * is reused by the next search; bfs_traffic_free releases it. */
  int64_t *fold_to;
  int fold_n;
} bfs_level_traffic;

typedef struct bfs_traffic {
  int nlevels, cap;
  bfs_level_traffic *lv;
} bfs_traffic;
/* Level L's counters (zeroed when first touched; fold_to keeps its memory, zeroed). */
bfs_level_traffic *bfs_traffic_level(bfs_traffic *t, int level);
/* The first step of every variant's level: refuses a level the 64-bit key cannot hold
 * (claim.h, a runtime error), then returns bfs_traffic_level(t, level). */
bfs_level_traffic *bfs_level_begin(bfs_traffic *t, int level);
/* Frees every level's fold_to and the levels; t is left empty. */
void bfs_traffic_free(bfs_traffic *t);
/* matrix.c: --message-matrix, collective: rank 0 appends one JSON line per level of `tr`
 * (this rank's counters of one search) with the R*C x R*C expand and fold byte matrices. */
void bfs_message_matrix_write(const bfs_graph *g, const kit_env *env, const bfs_traffic *tr,
                              const char *path);

/* What a variant gets from the driver. */
typedef struct bfs_ctx {
  const bfs_params *p;
  const kit_env *env;
  const bfs_graph *g;
  int transfer;        /* BFS_LIST, BFS_BITMAP or BFS_AUTO */
  int gpus;            /* multi-thread: GPUs (threads) this process drives; others 0 or 1 */
  double cpu_fraction; /* hybrid: the CPU's share of the rank's row vertices; others < 0 */
  int prune;           /* --prune */
  int64_t first_key;   /* the first search key: where kit_variant.run's searches start */
  int direction;       /* cpu: BFS_TOP_DOWN, BFS_BOTTOM_UP or BFS_DIRECTION_AUTO (direction.h) */
} bfs_ctx;

/* The variant contract (kit/app.h): kit_main and the app's hooks own kernel 1's timing, the
 * per-key timing, validation and reporting; a variant owns its memory and performs whole
 * searches (kernel 2). A bfs run is not repetitions of time steps, so the contract's hooks
 * are given a search's meaning:
 *   base.setup(const bfs_ctx *)  per-graph structures (counted in kernel 1's time);
 *   base.run(st, n)              n searches from the first key (c.first_key): what kit_main's
 *                                hybrid calibration times (kit_median_time);
 *   base.reset                   nothing (bfs_no_reset): every search starts afresh;
 *   base.fetch, base.halo        NULL: bfs reads two arrays (fetch below) and reports its own
 *                                messages (report.c).
 * Every variant's state begins with its bfs_ctx (cpu, multi-thread) or a bfs_gpu_rank (the
 * others), so base.run finds the first key. */
typedef struct bfs_variant {
  kit_variant base; /* first: kit_main sees a kit_variant */
  /* One search from `root`; on return every rank holds the parent (-1: unreached) and level
   * (-1: unreached) of its owned vertices. Collective. */
  void (*search)(void *st, int64_t root);
  void (*fetch)(void *st, int64_t *parent_owned, int32_t *level_owned);
  const bfs_traffic *(*traffic)(void *st); /* the last search's per-level counters */
} bfs_variant;
/* kit_variant.reset of every variant: a search resets its own state (inside its time). */
void bfs_no_reset(void *st);
/* The hybrid's CPU share of a rank's row, in 32-vertex words: share f of the row's words,
 * rounded to the nearest (hybrid.c cuts there; setup.c's bfs_cpu_units counts the same). */
int64_t bfs_hybrid_cpu_words(const bfs_graph *g, double fraction);

extern const bfs_variant bfs_cpu;
#ifdef KIT_HAVE_CUDA
extern const bfs_variant bfs_naive;        /* naive.c */
extern const bfs_variant bfs_two_stream;   /* two_stream.c */
extern const bfs_variant bfs_multi_thread; /* multi_thread.c */
extern const bfs_variant bfs_hybrid;       /* hybrid.c */
/* A hybrid state's split: the CPU's row words, the edges it holds, the rank's edges. */
void bfs_hybrid_split(void *st, int64_t *cpu_words, int64_t *cpu_edges, int64_t *edges);
#endif
/* GPUs one multi-thread process drives at most (--gpus). */
#define BFS_MT_MAX_GPUS 16

#ifdef __cplusplus
}
#endif
#endif
