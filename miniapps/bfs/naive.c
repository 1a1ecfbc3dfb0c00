/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: the rank's
 * block of the adjacency matrix (a CSR) lives on the GPU, and each BFS level runs the four
 * steps of Bernaschi et al. Sec. 3.3 one after the other:
 *   1. expand: the frontier goes down to the host (a list unpacked on the GPU, or the
 *      bitmap), MPI_Allgatherv along the grid column, the received messages come back up
 *      and are merged into the column bitmap (bitmaps OR'd, lists packed with atomicOr);
 *   2. discover: the column bitmap is unpacked into a list (popcount scan + Algorithm 1)
 *      and a thread per frontier vertex claims its neighbours with atomics (Rossetti's
 *      straightforward BFS);
 *   3. fold: the discovered vertices of the other row members' sections go down (lists
 *      unpacked on the GPU, or bitmaps), MPI_Alltoallv along the grid row, back up, merged;
 *   4. update: owners keep the unvisited ones (a kernel), their count comes down and an
 *      MPI_Allreduce decides whether another level follows.
 * The GPU idles during every copy and message (Bernaschi Sec. 2: the baseline).
 * A bottom-up level (--direction, direction.h; Beamer et al.) replaces step 2: the row's
 * visited bits are gathered, then each unvisited row vertex scans the block's transpose for
 * its first (smallest) frontier neighbour; steps 1, 3 and 4 are unchanged.
 * BFS_DISCOVER=edges switches step 2 to the edge-balanced kernel the other variants use.
 *   mpiexec -n 4 build/bin/bfs --variant naive --scale 16 --grid 2x2 --transfer bitmap */
#include <stdlib.h>

#include "claim.h"
#include "direction.h"
#include "gpu_block.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  bfs_gpu_rank r;  /* first: context, GPU state, traffic (bfs_gpu_rank_fetch/traffic read it) */
  bfs_dev_csr csr; /* the rank's whole block */
  cudaStream_t s;
  int kind; /* discovery kernel */
} naive_state;

static void *naive_setup(const void *ctx) {
  const bfs_ctx *c = ctx;
  naive_state *s = calloc(1, sizeof *s);
  s->r.c = *c;
  bfs_gpu_init(&s->r.b, c, c->env->device, BFS_GPU_ROW_KEYS | BFS_GPU_COMM);
  bfs_dev_csr_upload(&s->csr, c->g, c->g->xoff, c->g->adj);
  KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking));
  s->kind = bfs_discover_kind(BFS_DISCOVER_THREAD);
  return s;
}

static void naive_search(void *st, int64_t root) {
  naive_state *s = st;
  bfs_gpu *b = &s->r.b;
  const bfs_graph *g = b->g;
  int64_t count = bfs_gpu_search_start(&s->r, root, s->s); /* this rank's frontier */
  for (int level = 0;; ++level) {
    bfs_level_traffic *t = bfs_level_begin(&s->r.traffic, level);
    t->bottom_up = b->dir == BFS_BOTTOM_UP;

    /* 1. Expand: the column's frontier, the others' from MPI, this rank's copied on the GPU. */
    const int64_t remote = bfs_gpu_expand(b, count, 0, s->s, t);
    bfs_gpu_own_to_col(b, s->s);

    if (t->bottom_up) {
      /* 2'. Discover bottom-up: each row vertex not yet visited looks for a frontier neighbour. */
      bfs_gpu_row_visited(b, s->s, t);
      KIT_RANGE_PUSH("bottom-up");
      int h = kit_gpu_range_begin("gpu_bottom_up", s->s);
      bfs_gpu_bottom_up(b, level, 0, g->nrow / 32, s->s);
      kit_gpu_range_end(h, s->s);
    } else {
      /* 2. Discover: every neighbour, in this rank's block, of a column frontier vertex. */
      KIT_RANGE_PUSH("discover");
      int h = kit_gpu_range_begin("gpu_discover", s->s);
      bfs_gpu_unpack(&b->work, b->colbits, g->ncol / 32, 0, b->col_list, b->d_n_col, s->s);
      bfs_gpu_discover(s->kind, &b->work, &s->csr, b->geom, b->col_list, count + remote, b->d_n_col, 0, level,
                       b->rowbits, b->best, s->s);
      kit_gpu_range_end(h, s->s);
    }
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->s)); /* compute, then communicate */
    KIT_RANGE_POP();

    /* 3. Fold: the other sections to their owners; this rank's own section stays here. */
    bfs_gpu_fold_remote(b, s->s, t);
    bfs_gpu_fold_local(b, s->s);

    /* 4. Update: owners keep the unvisited ones, the next frontier; none anywhere ends it. */
    if (bfs_gpu_level_end(b, &s->r.traffic, level, s->s, &count) == 0) break;
  }

  /* 5. Parents: the earliest, smallest-label discoverer of each owned vertex. */
  bfs_gpu_parents(b, s->s);
}

/* kit_variant.run: n searches from the first key (kit_main's hybrid calibration). */
static void naive_run(void *st, int n) {
  for (int k = 0; k < n; ++k) naive_search(st, ((naive_state *)st)->r.c.first_key);
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaSetDevice(s->r.b.device));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->s));
  bfs_dev_csr_free(&s->csr);
  bfs_gpu_rank_free(&s->r);
  free(s);
}

const bfs_variant bfs_naive = {
    .base = {.name = "naive",
             .summary = "one rank per GPU, one stream: "
                        "expand, discover (a thread per frontier vertex), fold, update; no overlap",
             .needs_gpu = 1,
             .setup = naive_setup,
             .reset = bfs_no_reset,
             .run = naive_run,
             .fetch = NULL,
             .halo = NULL,
             .teardown = naive_teardown,
             .gpus_max = 0,
             .thread_level = 0,
             .hybrid = 0},
    .search = naive_search,
    .fetch = bfs_gpu_rank_fetch,
    .traffic = bfs_gpu_rank_traffic,
};
