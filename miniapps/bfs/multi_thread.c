/* multi_thread.c: the `multi-thread` variant. One process drives several GPUs (--gpus N),
 * an OpenMP thread per GPU; MPI is used only between processes, by thread 0.
 * The process's block of the adjacency matrix (its N/C x N/R part of Bernaschi et al.'s
 * 2D partitioning, Sec. 3.3) is split among its GPUs by destination: GPU t holds the edges
 * whose row-local destination falls in its slice of the row (whole 32-vertex words), so the
 * GPUs discover disjoint sets of vertices and keep disjoint keys, and nothing discovered
 * needs combining. GPU 0 (the lead) also holds the process's owned vertices and does the
 * process's expand and fold through MPI, as naive does. One level:
 *   thread 0: expand (MPI along the grid column) into the lead's column bitmap [col_ready]
 *   barrier
 *   thread t: wait [col_ready]; copy the column bitmap to its GPU (cudaMemcpyPeerAsync:
 *             peer-to-peer where the devices allow it, staged through host memory by the
 *             runtime where not); unpack; discover into its slice; copy the slice into
 *             the lead's row bitmap; [done_t]
 *   barrier
 *   thread 0: wait every [done_t]; fold (MPI along the grid row), update, MPI_Allreduce
 *   barrier: every thread reads whether another level follows
 * A bottom-up level (--direction, direction.h): thread 0 also gathers the row's visited bits
 * on the lead before [col_ready]; thread t copies its words of them and scans its slice's
 * unvisited vertices through the slice's transpose (launch_bfs_bottom_up), the rest as above.
 * After the last level each GPU copies its slice's keys into the host row of keys; thread 0
 * then takes the row's MIN and the parents as naive does. Threads may share a GPU
 * (device = (local rank x N + t) % visible devices), so one GPU exercises every path.
 *   build/bin/bfs --variant multi-thread --gpus 2 --scale 16
 *   mpiexec -n 2 build/bin/bfs --variant multi-thread --gpus 2 --scale 16 --grid 2x1 */
#include <omp.h>
#include <stdlib.h>

#include "claim.h"
#include "direction.h"
#include "gpu_block.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "partition.h"

typedef struct mt_gpu {
  int device;
  cudaStream_t s;
  cudaEvent_t done;         /* this level's slice is in the lead's row bitmap */
  int64_t w0, w1;           /* its words of the row */
  bfs_dev_csr csr;          /* edges into the slice, destinations relative to its start */
  bfs_dev_geom geom;        /* column geometry on this device */
  int64_t *d_geom;          /* behind geom (GPU 0: the lead's) */
  uint32_t *colbits;        /* the column's frontier (GPU 0: the lead's own) */
  uint32_t *col_list;       /* ... as column-local indices */
  int64_t *n_col;           /* ... and their number, on the device */
  uint32_t *bits;           /* slice bits: discovered here at this level */
  unsigned long long *best; /* slice keys */
  bfs_work work;            /* GPU 0 uses the lead's (same stream) */
  int peer;                 /* direct access to and from the lead's device */
  /* Bottom-up levels (direction not top-down): the slice's transpose (destinations relative
   * to its start) and, each bottom-up level, the row's visited bits of its words. */
  int64_t *toff;
  uint32_t *tadj;
  uint32_t *vis;
} mt_gpu;

typedef struct mt_state {
  bfs_ctx c;
  int ngpu;
  bfs_gpu lead; /* GPU 0: owned vertices, MPI exchanges, the row bitmap */
  mt_gpu g[BFS_MT_MAX_GPUS];
  cudaEvent_t col_ready; /* the lead's column bitmap is complete for this level */
  int kind;
  bfs_traffic traffic;
  int64_t nfront; /* shared: this level's column frontier (upper bound for the lists) */
  int64_t next;   /* shared: the global size of the next frontier */
} mt_state;

static void *mt_setup(const void *ctx) {
  const bfs_ctx *c = ctx;
  mt_state *s = calloc(1, sizeof *s);
  const bfs_graph *g = c->g;
  s->c = *c;
  s->ngpu = c->gpus;
  const int visible = c->env->gpus_visible;
  const int64_t rw = g->nrow / 32;
  for (int t = 0; t < s->ngpu; ++t) s->g[t].device = (c->env->local_rank * s->ngpu + t) % visible;
  bfs_gpu_init(&s->lead, c, s->g[0].device, BFS_GPU_HOST_KEYS | BFS_GPU_NO_TRANSPOSE);
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->col_ready, cudaEventDisableTiming));
  int peers = 0;
  for (int t = 0; t < s->ngpu; ++t) {
    mt_gpu *m = &s->g[t];
    m->w0 = bfs_block_begin(rw, s->ngpu, t);
    m->w1 = m->w0 + bfs_block_count(rw, s->ngpu, t);
    if (t > 0)
      m->peer = kit_enable_peer(m->device, s->g[0].device) && kit_enable_peer(s->g[0].device, m->device);
    peers += m->peer;
    KIT_CUDA_CHECK(cudaSetDevice(m->device));
    int64_t *xoff;
    uint32_t *adj;
    bfs_csr_select(g, 32 * m->w0, 32 * m->w1, 1, 32 * m->w0, &xoff, &adj);
    bfs_dev_csr_upload(&m->csr, g, xoff, adj);
    free(xoff);
    free(adj);
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&m->s, cudaStreamNonBlocking));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&m->done, cudaEventDisableTiming));
    const int64_t sw = m->w1 - m->w0;
    KIT_CUDA_CHECK(cudaMalloc((void **)&m->bits, (size_t)(sw > 0 ? sw : 1) * sizeof(uint32_t)));
    KIT_CUDA_CHECK(
        cudaMalloc((void **)&m->best, (size_t)(sw > 0 ? 32 * sw : 1) * sizeof(unsigned long long)));
    if (c->direction != BFS_TOP_DOWN) { /* the slice's transpose, indexed from its first vertex */
      int64_t *toff;
      uint32_t *tadj;
      bfs_block_transpose(g, 32 * m->w0, 32 * m->w1, &toff, &tadj);
      const int64_t nent = toff[32 * sw];
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->toff, (size_t)(32 * sw + 1) * sizeof(int64_t)));
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->tadj, (size_t)(nent + 1) * sizeof(uint32_t)));
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->vis, (size_t)(sw > 0 ? sw : 1) * sizeof(uint32_t)));
      KIT_CUDA_CHECK(
          cudaMemcpy(m->toff, toff, (size_t)(32 * sw + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
      if (nent > 0)
        KIT_CUDA_CHECK(cudaMemcpy(m->tadj, tadj, (size_t)nent * sizeof(uint32_t), cudaMemcpyHostToDevice));
      free(toff);
      free(tadj);
    }
    if (t == 0) {
      m->geom = s->lead.geom;
      m->colbits = s->lead.colbits;
      m->col_list = s->lead.col_list;
      m->n_col = s->lead.d_n_col;
    } else {
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->d_geom, (size_t)(2 * g->R + 1) * sizeof(int64_t)));
      KIT_CUDA_CHECK(
          cudaMemcpy(m->d_geom, g->col_off, (size_t)(g->R + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
      KIT_CUDA_CHECK(cudaMemcpy(m->d_geom + g->R + 1, g->col_begin, (size_t)g->R * sizeof(int64_t),
                                cudaMemcpyHostToDevice));
      m->geom.R = g->R;
      m->geom.col_off = m->d_geom;
      m->geom.col_begin = m->d_geom + g->R + 1;
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->colbits, (size_t)(g->ncol / 32) * sizeof(uint32_t)));
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->col_list, (size_t)g->ncol * sizeof(uint32_t)));
      KIT_CUDA_CHECK(cudaMalloc((void **)&m->n_col, sizeof(int64_t)));
      KIT_CUDA_CHECK(cudaMemset(m->colbits, 0, (size_t)(g->ncol / 32) * sizeof(uint32_t)));
      KIT_CUDA_CHECK(cudaMemset(m->col_list, 0, (size_t)g->ncol * sizeof(uint32_t)));
      KIT_CUDA_CHECK(cudaMemset(m->n_col, 0, sizeof(int64_t)));
      bfs_work_init(&m->work, bfs_work_items(g));
    }
    KIT_CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy-stream memsets and copies above */
  }
  KIT_CUDA_CHECK(cudaSetDevice(s->g[0].device));
  s->kind = bfs_discover_kind(BFS_DISCOVER_EDGES);
  kit_log(c->env, "bfs: multi-thread: %d GPUs per process, %d of %d links to GPU 0 peer-to-peer", s->ngpu,
          peers, s->ngpu - 1);
  return s;
}

/* Thread t's part of a level: its copy of the column frontier, its slice's discovery (top-
 * down, or bottom-up over its words with their visited bits from the lead), the slice into
 * the lead's row bitmap. Enqueued only; [done] marks the end. */
static void mt_discover(mt_state *s, int t, int level, int bottom_up) {
  mt_gpu *m = &s->g[t];
  const bfs_graph *g = s->c.g;
  const int drop = t > 0 && bfs_gpu_drop_remote(); /* KIT_FAULT: lose the intra-process copies */
  if (t > 0) {
    KIT_CUDA_CHECK(cudaStreamWaitEvent(m->s, s->col_ready, 0));
    if (!drop)
      KIT_CUDA_CHECK(cudaMemcpyPeerAsync(m->colbits, m->device, s->lead.colbits, s->lead.device,
                                         (size_t)(g->ncol / 32) * sizeof(uint32_t), m->s));
  }
  bfs_work *w = t == 0 ? &s->lead.work : &m->work;
  const int64_t sw = m->w1 - m->w0;
  const int h = kit_gpu_range_begin(bottom_up ? "gpu_bottom_up" : "gpu_discover", m->s);
  if (bottom_up) {
    if (sw > 0)
      KIT_CUDA_CHECK(cudaMemcpyPeerAsync(m->vis, m->device, bfs_gpu_row_visited_bits(&s->lead) + m->w0,
                                         s->lead.device, (size_t)sw * sizeof(uint32_t), m->s));
    launch_bfs_bottom_up(m->toff, m->tadj, m->colbits, m->vis, 0, sw, m->geom, level, m->bits, m->best, m->s);
  } else {
    bfs_gpu_unpack(w, m->colbits, g->ncol / 32, 0, m->col_list, m->n_col, m->s);
    bfs_gpu_discover(s->kind, w, &m->csr, m->geom, m->col_list, s->nfront, m->n_col, 0, level, m->bits,
                     m->best, m->s);
  }
  kit_gpu_range_end(h, m->s);
  if (sw > 0) {
    if (!drop)
      KIT_CUDA_CHECK(cudaMemcpyPeerAsync(s->lead.rowbits + m->w0, s->lead.device, m->bits, m->device,
                                         (size_t)sw * sizeof(uint32_t), m->s));
    KIT_CUDA_CHECK(cudaMemsetAsync(m->bits, 0, (size_t)sw * sizeof(uint32_t), m->s));
  }
  KIT_CUDA_CHECK(cudaEventRecord(m->done, m->s));
}

static void mt_search(void *st, int64_t root) {
  mt_state *s = st;
  const int ngpu = s->ngpu;
  bfs_gpu *lead = &s->lead;
  s->traffic.nlevels = 0;
  s->next = 0;
  KIT_CUDA_CHECK(cudaSetDevice(lead->device));
  KIT_RANGE_PUSH("init");
  const int64_t count0 = bfs_gpu_start(lead, root, s->g[0].s);
  KIT_RANGE_POP();

#pragma omp parallel num_threads(ngpu)
  {
    /* Every GPU must have its thread, or a slice would never be searched. */
    if (omp_get_num_threads() != ngpu)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "multi-thread needs %d OpenMP threads (one per GPU), got %d", ngpu, omp_get_num_threads());
    const int t = omp_get_thread_num();
    mt_gpu *m = &s->g[t];
    KIT_CUDA_CHECK(cudaSetDevice(m->device));
    const int64_t sw = m->w1 - m->w0;
    if (sw > 0) {
      KIT_CUDA_CHECK(cudaMemsetAsync(m->bits, 0, (size_t)sw * sizeof(uint32_t), m->s));
      launch_bfs_fill_u64(m->best, 32 * sw, (unsigned long long)BFS_KEY_NONE, m->s);
    }
    int64_t count = count0; /* thread 0: this process's frontier */
    bfs_level_traffic *tr = NULL;
    for (int level = 0;; ++level) {
      if (t == 0) {
        tr = bfs_level_begin(&s->traffic, level);
        tr->bottom_up = lead->dir == BFS_BOTTOM_UP;
        const int64_t remote = bfs_gpu_expand(lead, count, 0, m->s, tr);
        bfs_gpu_own_to_col(lead, m->s);
        if (tr->bottom_up) bfs_gpu_row_visited(lead, m->s, tr);
        s->nfront = count + remote;
        KIT_CUDA_CHECK(cudaEventRecord(s->col_ready, m->s));
      }
#pragma omp barrier /* col_ready recorded, nfront set; lead->dir changes only after the next */
      mt_discover(s, t, level, lead->dir == BFS_BOTTOM_UP);
#pragma omp barrier /* every done_t recorded */
      if (t == 0) {
        for (int u = 0; u < ngpu; ++u) KIT_CUDA_CHECK(cudaStreamWaitEvent(m->s, s->g[u].done, 0));
        bfs_gpu_fold_remote(lead, m->s, tr);
        bfs_gpu_fold_local(lead, m->s);
        s->next = bfs_gpu_level_end(lead, &s->traffic, level, m->s, &count);
      }
#pragma omp barrier /* s->next is set */
      if (s->next == 0) break;
    }
    /* The slice's keys into the host row of keys (disjoint ranges). */
    if (sw > 0)
      KIT_CUDA_CHECK(cudaMemcpyAsync(lead->h_best + 32 * m->w0, m->best, (size_t)(32 * sw) * sizeof(int64_t),
                                     cudaMemcpyDeviceToHost, m->s));
    KIT_CUDA_CHECK(cudaStreamSynchronize(m->s));
  } /* implicit barrier: every slice's keys are in lead->h_best */

  KIT_CUDA_CHECK(cudaSetDevice(lead->device));
  KIT_RANGE_PUSH("parents");
  bfs_gpu_parents_host(lead, s->g[0].s);
  KIT_RANGE_POP();
}

/* kit_variant.run: n searches from the first key (kit_main's hybrid calibration). */
static void mt_run(void *st, int n) {
  for (int k = 0; k < n; ++k) mt_search(st, ((mt_state *)st)->c.first_key);
}

static void mt_fetch(void *st, int64_t *parent_owned, int32_t *level_owned) {
  bfs_gpu_fetch(&((mt_state *)st)->lead, parent_owned, level_owned);
}

static const bfs_traffic *mt_traffic(void *st) {
  return &((mt_state *)st)->traffic;
}

static void mt_teardown(void *st) {
  mt_state *s = st;
  for (int t = 0; t < s->ngpu; ++t) {
    mt_gpu *m = &s->g[t];
    KIT_CUDA_CHECK(cudaSetDevice(m->device));
    KIT_CUDA_CHECK(cudaStreamSynchronize(m->s));
    KIT_CUDA_CHECK(cudaStreamDestroy(m->s));
    KIT_CUDA_CHECK(cudaEventDestroy(m->done));
    bfs_dev_csr_free(&m->csr);
    KIT_CUDA_CHECK(cudaFree(m->bits));
    KIT_CUDA_CHECK(cudaFree(m->best));
    if (m->toff) {
      KIT_CUDA_CHECK(cudaFree(m->toff));
      KIT_CUDA_CHECK(cudaFree(m->tadj));
      KIT_CUDA_CHECK(cudaFree(m->vis));
    }
    if (t > 0) {
      KIT_CUDA_CHECK(cudaFree(m->d_geom));
      KIT_CUDA_CHECK(cudaFree(m->colbits));
      KIT_CUDA_CHECK(cudaFree(m->col_list));
      KIT_CUDA_CHECK(cudaFree(m->n_col));
      bfs_work_free(&m->work);
    }
  }
  KIT_CUDA_CHECK(cudaSetDevice(s->lead.device));
  KIT_CUDA_CHECK(cudaEventDestroy(s->col_ready));
  bfs_gpu_free(&s->lead);
  bfs_traffic_free(&s->traffic);
  free(s);
}

/* Up to BFS_MT_MAX_GPUS GPUs per process; only thread 0 calls MPI, from inside the thread
 * team: MPI_THREAD_FUNNELED. */
const bfs_variant bfs_multi_thread = {
    .base = {.name = "multi-thread",
             .summary = "one process drives its GPUs, a thread each: "
                        "the block split by destination, peer copies between GPUs, MPI by thread 0",
             .needs_gpu = 1,
             .setup = mt_setup,
             .reset = bfs_no_reset,
             .run = mt_run,
             .fetch = NULL,
             .halo = NULL,
             .teardown = mt_teardown,
             .gpus_max = BFS_MT_MAX_GPUS,
             .thread_level = MPI_THREAD_FUNNELED,
             .hybrid = 0},
    .search = mt_search,
    .fetch = mt_fetch,
    .traffic = mt_traffic,
};
