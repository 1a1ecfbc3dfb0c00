/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a communication stream
 * (high priority: packs, copies, merges, MPI staging) and a local stream (the discovery
 * that needs no message). Bernaschi et al. Sec. 3.3 splits a level's work into a local
 * part and a remote part ("local vertices form the next level frontier set and are kept
 * local whereas remote vertices are sent"); Bernaschi Fig. 2 overlaps the remote part's
 * transfers with the local computation. Here both halves of a level overlap:
 *   - expand: this rank's own frontier needs no message, so its neighbours are discovered
 *     on the local stream while the column's MPI_Allgatherv brings the other members'
 *     frontiers (their copies and merges run on the communication stream);
 *   - fold: the rank's block is stored as two CSRs, "near" (destinations this rank owns)
 *     and "far" (destinations other row members own). The far neighbours of the remote
 *     frontier are discovered first on the communication stream, which then packs and
 *     sends them (MPI_Alltoallv) while the local stream discovers their near neighbours,
 *     which stay on this GPU.
 * Events order the two streams; the host waits only for what it hands to MPI. One level:
 *   comm:  unpack own frontier -> [own_ready] -> expand (D2H, MPI, H2D, merge)
 *          -> unpack the remote frontier -> [remote_ready] -> far(remote)
 *          -> wait [local_own_done] -> fold of the far sections (D2H, MPI, H2D, merge)
 *          -> wait [local_remote_done] -> near section into the owners' set -> update
 *   local: wait [own_ready] -> near(own), far(own) -> [local_own_done]
 *          -> wait [remote_ready] -> near(remote) -> [local_remote_done]
 * The fold reads only the far sections, so near(remote) may still be running. Both streams
 * claim into the same key array with atomics; the MIN makes the result independent of
 * their interleaving. With one grid row (R = 1) there is no remote frontier, with one grid
 * column (C = 1) nothing is far: the variant then degenerates to the local stream's work.
 * Bottom-up levels (--direction, direction.h) split the row's vertices the same way: the far
 * sections' on the communication stream, folded at once, the own section's on the local one.
 *   mpiexec -n 4 build/bin/bfs --variant two-stream --scale 18 --grid 2x2 */
#include <stdlib.h>

#include "claim.h"
#include "direction.h"
#include "gpu_block.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct ts_state {
  bfs_gpu_rank r;        /* first (bfs_gpu_rank_fetch/traffic); b's scratch is the comm stream's */
  bfs_dev_csr near, far; /* destinations in this rank's own row section / in the others' */
  bfs_work lwork;        /* the local stream's scratch */
  cudaStream_t comm, local;
  cudaEvent_t own_ready;         /* own_list holds this level's frontier */
  cudaEvent_t remote_ready;      /* col_list holds the other column members' frontier */
  cudaEvent_t local_own_done;    /* near(own) and far(own) are claimed */
  cudaEvent_t local_remote_done; /* near(remote) is claimed */
  int kind;
} ts_state;

static void *ts_setup(const void *ctx) {
  const bfs_ctx *c = ctx;
  ts_state *s = calloc(1, sizeof *s);
  const bfs_graph *g = c->g;
  s->r.c = *c;
  bfs_gpu_init(&s->r.b, c, c->env->device, BFS_GPU_ROW_KEYS | BFS_GPU_COMM);
  int64_t *xoff;
  uint32_t *adj;
  const int64_t lo = g->row_off[g->j], hi = g->row_off[g->j + 1];
  bfs_csr_select(g, lo, hi, 1, 0, &xoff, &adj);
  bfs_dev_csr_upload(&s->near, g, xoff, adj);
  free(xoff);
  free(adj);
  bfs_csr_select(g, lo, hi, 0, 0, &xoff, &adj);
  bfs_dev_csr_upload(&s->far, g, xoff, adj);
  free(xoff);
  free(adj);
  bfs_work_init(&s->lwork, bfs_work_items(g));
  /* The communication stream's small kernels must not queue behind the discovery's blocks. */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->comm, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->local, cudaStreamNonBlocking, least));
  cudaEvent_t *ev[] = {&s->own_ready, &s->remote_ready, &s->local_own_done, &s->local_remote_done};
  for (size_t k = 0; k < sizeof ev / sizeof *ev; ++k)
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(ev[k], cudaEventDisableTiming));
  s->kind = bfs_discover_kind(BFS_DISCOVER_EDGES);
  return s;
}

/* A top-down level (the schedule in the header comment). */
static void ts_top_down(ts_state *s, int level, int64_t count, bfs_level_traffic *t) {
  bfs_gpu *b = &s->r.b;
  const bfs_graph *g = b->g;
  const int64_t own_base = g->col_off[g->i]; /* column-local index of owned vertex 0 */

  /* This rank's frontier as a list: the local stream's sources and the expand's list. */
  bfs_gpu_unpack(&b->work, b->front, g->own_pad / 32, 0, b->own_list, b->d_n_own, s->comm);
  KIT_CUDA_CHECK(cudaEventRecord(s->own_ready, s->comm));

  /* Local stream: the own frontier's neighbours, near and far, while the column talks. */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(s->local, s->own_ready, 0));
  int h = kit_gpu_range_begin("discover_own", s->local);
  bfs_gpu_discover(s->kind, &s->lwork, &s->near, b->geom, b->own_list, count, b->d_n_own, own_base, level,
                   b->rowbits, b->best, s->local);
  bfs_gpu_discover(s->kind, &s->lwork, &s->far, b->geom, b->own_list, count, b->d_n_own, own_base, level,
                   b->rowbits, b->best, s->local);
  kit_gpu_range_end(h, s->local);
  KIT_CUDA_CHECK(cudaEventRecord(s->local_own_done, s->local));

  /* Communication stream: expand (the host blocks in MPI while the local stream works). */
  const int64_t remote = bfs_gpu_expand(b, count, 1, s->comm, t);
  if (remote > 0) {
    bfs_gpu_unpack(&b->work, b->colbits, g->ncol / 32, 0, b->col_list, b->d_n_col, s->comm);
    KIT_CUDA_CHECK(cudaEventRecord(s->remote_ready, s->comm));
    /* Near neighbours of the remote frontier on the local stream ... */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->local, s->remote_ready, 0));
    h = kit_gpu_range_begin("discover_remote_near", s->local);
    bfs_gpu_discover(s->kind, &s->lwork, &s->near, b->geom, b->col_list, remote, b->d_n_col, 0, level,
                     b->rowbits, b->best, s->local);
    kit_gpu_range_end(h, s->local);
    /* ... far ones first on the communication stream, which sends them next. */
    h = kit_gpu_range_begin("discover_remote_far", s->comm);
    bfs_gpu_discover(s->kind, &b->work, &s->far, b->geom, b->col_list, remote, b->d_n_col, 0, level,
                     b->rowbits, b->best, s->comm);
    kit_gpu_range_end(h, s->comm);
  }
  KIT_CUDA_CHECK(cudaEventRecord(s->local_remote_done, s->local));

  /* Fold of the far sections: they are complete once far(own) is. */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(s->comm, s->local_own_done, 0));
  bfs_gpu_fold_remote(b, s->comm, t);
  /* The near section joins the owners' set once the local stream is done with it. */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(s->comm, s->local_remote_done, 0));
  bfs_gpu_fold_local(b, s->comm);
}

/* A bottom-up level (direction.h). It needs the whole column frontier before any vertex can
 * look for its smallest frontier neighbour, so the expand and the row's visited bits come
 * first; then the split is by destination, as the top-down fold's: the far sections' vertices
 * on the communication stream, which folds them at once, while the local stream scans the
 * own section's, which stay here. */
static void ts_bottom_up(ts_state *s, int level, int64_t count, bfs_level_traffic *t) {
  bfs_gpu *b = &s->r.b;
  const bfs_graph *g = b->g;
  const int64_t own_lo = g->row_off[g->j] / 32, own_hi = g->row_off[g->j + 1] / 32, rw = g->nrow / 32;
  bfs_gpu_expand(b, count, 0, s->comm, t);
  bfs_gpu_own_to_col(b, s->comm);
  bfs_gpu_row_visited(b, s->comm, t);
  KIT_CUDA_CHECK(cudaEventRecord(s->remote_ready, s->comm));

  KIT_CUDA_CHECK(cudaStreamWaitEvent(s->local, s->remote_ready, 0));
  int h = kit_gpu_range_begin("bottom_up_own", s->local);
  bfs_gpu_bottom_up(b, level, own_lo, own_hi, s->local);
  kit_gpu_range_end(h, s->local);
  KIT_CUDA_CHECK(cudaEventRecord(s->local_remote_done, s->local));

  h = kit_gpu_range_begin("bottom_up_far", s->comm);
  bfs_gpu_bottom_up(b, level, 0, own_lo, s->comm);
  bfs_gpu_bottom_up(b, level, own_hi, rw, s->comm);
  kit_gpu_range_end(h, s->comm);
  bfs_gpu_fold_remote(b, s->comm, t);
  KIT_CUDA_CHECK(cudaStreamWaitEvent(s->comm, s->local_remote_done, 0));
  bfs_gpu_fold_local(b, s->comm);
}

static void ts_search(void *st, int64_t root) {
  ts_state *s = st;
  bfs_gpu *b = &s->r.b;
  int64_t count = bfs_gpu_search_start(&s->r, root, s->comm);
  for (int level = 0;; ++level) {
    bfs_level_traffic *t = bfs_level_begin(&s->r.traffic, level);
    t->bottom_up = b->dir == BFS_BOTTOM_UP;
    if (t->bottom_up)
      ts_bottom_up(s, level, count, t);
    else
      ts_top_down(s, level, count, t);
    /* Update on the communication stream, which has waited for every local-stream task. */
    if (bfs_gpu_level_end(b, &s->r.traffic, level, s->comm, &count) == 0) break;
  }

  bfs_gpu_parents(b, s->comm);
}

/* kit_variant.run: n searches from the first key (kit_main's hybrid calibration). */
static void ts_run(void *st, int n) {
  for (int k = 0; k < n; ++k) ts_search(st, ((ts_state *)st)->r.c.first_key);
}

static void ts_teardown(void *st) {
  ts_state *s = st;
  KIT_CUDA_CHECK(cudaSetDevice(s->r.b.device));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->local));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->comm));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->local));
  cudaEvent_t ev[] = {s->own_ready, s->remote_ready, s->local_own_done, s->local_remote_done};
  for (size_t k = 0; k < sizeof ev / sizeof *ev; ++k) KIT_CUDA_CHECK(cudaEventDestroy(ev[k]));
  bfs_work_free(&s->lwork);
  bfs_dev_csr_free(&s->near);
  bfs_dev_csr_free(&s->far);
  bfs_gpu_rank_free(&s->r);
  free(s);
}

const bfs_variant bfs_two_stream = {
    .base = {.name = "two-stream",
             .summary =
                 "one rank per GPU; "
                 "a local stream discovers what needs no message while the communication stream exchanges",
             .needs_gpu = 1,
             .setup = ts_setup,
             .reset = bfs_no_reset,
             .run = ts_run,
             .fetch = NULL,
             .halo = NULL,
             .teardown = ts_teardown,
             .gpus_max = 0,
             .thread_level = 0,
             .hybrid = 0},
    .search = ts_search,
    .fetch = bfs_gpu_rank_fetch,
    .traffic = bfs_gpu_rank_traffic,
};
