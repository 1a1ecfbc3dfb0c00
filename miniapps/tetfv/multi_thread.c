/* multi_thread.c: the `multi-thread` variant. One process drives every GPU it may use (--gpus),
 * one OpenMP thread per GPU (Sourouri Paper I's thread-per-GPU scheme on Paper III's mesh). The
 * process's rows are split over its GPUs by METIS (the second tier of Paper III's hierarchy,
 * partition.c) and renumbered (split.c) so that each GPU's rows are contiguous: first those
 * other GPUs or other processes read, then those that read them, then the bulk. Every GPU keeps
 * whole-length fields in the process's numbering, so the rows another GPU reads travel as one
 * contiguous range copied to the same place: cudaMemcpyPeerAsync straight into the reader's
 * next field where the devices allow peer access (or share a device), staged through pinned
 * host memory where not (and with --no-p2p). Each step, per GPU: the boundary rows, their copies
 * to the readers and to the host (MPI), on the boundary stream; the bulk on the bulk stream.
 * MPI only between processes, by one thread (Paper III: a single MPI thread; thread 0 is the
 * process's main thread, so MPI_THREAD_FUNNELED suffices).
 * Fields are chosen by the parity of the step (no pointer swap another thread could miss) and
 * every cross-thread event is indexed by parity too; one barrier per step makes the previous
 * step's events visible before anyone waits on them, and no event is recorded again before
 * every thread has passed the next barrier. Host staging adds two barriers and a drained
 * boundary stream per step.
 *   build/bin/tetfv --variant multi-thread --gpus 2 --mesh box:100 --iters 100 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "kit/ranges.h"

typedef struct mt_gpu {
  tetfv_gpu g; /* whole-length fields; this GPU's rows: 0 boundary, 1 bulk */
  int r0, r1;  /* the rows this GPU computes */
  int x0, x1;  /* its rows other GPUs read: copied to each of them every step */
  int h0, h1;  /* its rows copied to host memory every step (MPI, staging) */
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done[2]; /* [parity]: this step's boundary rows are computed */
  cudaEvent_t bulk_done[2];     /* [parity]: this step's bulk rows are computed */
  cudaEvent_t sent[2];          /* [parity]: this step's peer copies into the readers are done */
} mt_gpu;

typedef struct mt_state {
  tetfv_ctx c;
  int ngpu;
  int stale;      /* KIT_FAULT=stale-halo: nothing travels between GPUs or processes */
  int mpi;        /* this process exchanges with others */
  int staged;     /* some GPU pair copies through host memory */
  tetfv_split sp; /* the process's rows, device = GPU */
  double *u0;     /* the initial field in sp's numbering */
  mt_gpu g[TETFV_MT_MAX_GPUS];
  char p2p[TETFV_MT_MAX_GPUS][TETFV_MT_MAX_GPUS]; /* copies between two GPUs go peer-to-peer */
  double *host;     /* pinned, nown + nghost: rows leaving a GPU through host memory, the ghosts */
  tetfv_exchange x; /* MPI: send lists packed from `host`, ghosts received into host + nown */
} mt_state;

/* The field read (cur) and written (nxt) in step t. */
static double *cur(const mt_gpu *g, int t) {
  return t % 2 ? g->g.un : g->g.u;
}
static double *nxt(const mt_gpu *g, int t) {
  return t % 2 ? g->g.u : g->g.un;
}
static int reads(const mt_state *s, int d, int e) {
  return d != e && s->sp.reads[d * s->ngpu + e];
}

static void *mt_setup(const void *ctx) {
  const tetfv_ctx *c = ctx;
  mt_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  s->ngpu = c->gpus;
  s->stale = tetfv_exchange_off(c->p);
  const tetfv_local *l = c->l;
  const int n = l->nown + l->nghost, ngpu = s->ngpu;
  int *part = kit_malloc(((size_t)l->nown + 1) * sizeof(int), "GPU parts");
  tetfv_partition_rows(l, ngpu, NULL, part);
  tetfv_split_build(l, ngpu, part, &s->sp);
  free(part);
  s->u0 = kit_malloc(((size_t)n + 1) * sizeof(double), "initial field");
  tetfv_split_permute(&s->sp, c->u0, s->u0);
  s->mpi = l->nsend + l->nrecv > 0;
  /* Consecutive devices of this process's share of the node; more GPUs than devices wrap
   * around, which lets one GPU run the multi-GPU code path in tests. */
  const int visible = c->env->gpus_visible;
  int device[TETFV_MT_MAX_GPUS];
  for (int i = 0; i < ngpu; ++i) device[i] = (c->env->local_rank * ngpu + i) % visible;
  for (int i = 0; i < ngpu; ++i)
    for (int e = 0; e < ngpu; ++e) {
      s->p2p[i][e] = 0;
      if (e != i && (reads(s, i, e) || reads(s, e, i)) && c->p->p2p)
        s->p2p[i][e] = kit_enable_peer(device[i], device[e]) && kit_enable_peer(device[e], device[i]);
      if (reads(s, i, e) && !s->p2p[i][e]) s->staged = 1;
    }
  for (int i = 0; i < ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    g->r0 = tetfv_split_at(&s->sp, i, TETFV_CAT_MPI);
    g->r1 = tetfv_split_at(&s->sp, i, TETFV_NCAT);
    g->x0 = tetfv_split_at(&s->sp, i, TETFV_CAT_BOTH);
    g->x1 = tetfv_split_at(&s->sp, i, TETFV_CAT_IMPORT);
    /* To the host: rows other processes read [MPI, DEV) and, if some reader is staged, the
     * rows other GPUs read [BOTH, IMPORT); together still one range. */
    int staged_reader = 0;
    for (int e = 0; e < ngpu; ++e) staged_reader |= reads(s, e, i) && !s->p2p[e][i];
    const int m0 = g->r0, m1 = tetfv_split_at(&s->sp, i, TETFV_CAT_DEV);
    g->h0 = g->h1 = g->r0;
    if (s->mpi && m1 > m0) {
      g->h0 = m0;
      g->h1 = m1;
    }
    if (staged_reader && g->x1 > g->x0) {
      g->h0 = g->h1 > g->h0 ? g->h0 : g->x0;
      g->h1 = g->x1;
    }
    const int cut[3] = {g->r0, tetfv_split_at(&s->sp, i, TETFV_CAT_BULK), g->r1};
    tetfv_gpu_init(&g->g, device[i], &s->sp.l, s->u0, 2, cut, 0);
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->boundary, cudaStreamNonBlocking));
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->bulk, cudaStreamNonBlocking));
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->boundary_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->bulk_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->sent[par], cudaEventDisableTiming));
    }
  }
  s->host = kit_host_alloc(((size_t)n + 1) * sizeof(double), 1);
  memcpy(s->host, s->u0, (size_t)n * sizeof(double));
  tetfv_exchange_init(&s->x, &s->sp.l, s->stale);
  return s;
}

static void mt_reset(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ngpu; ++i) tetfv_gpu_reset(&s->g[i].g);
  /* Ghost values never received (stale-halo) stay initial, as in cpu.c. */
  memcpy(s->host, s->u0, ((size_t)s->sp.l.nown + s->sp.l.nghost) * sizeof(double));
}

/* GPU i, step t: waits for what the previous step left, boundary rows, bulk rows, the rows
 * other GPUs read pushed into their next fields (peer-to-peer), the rows bound for host memory
 * copied there. Nothing here blocks the host. */
static void mt_compute(mt_state *s, int i, int t) {
  mt_gpu *g = &s->g[i];
  const int p = t % 2, q = 1 - p;
  double *u = cur(g, t), *un = nxt(g, t);
  if (t > 0) {
    /* The boundary overwrites rows the previous bulk read, and reads the rows other GPUs
     * pushed into this field in the previous step (staged ones and ghosts came on this very
     * stream). */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->bulk_done[q], 0));
    for (int e = 0; e < s->ngpu; ++e)
      if (reads(s, i, e) && s->p2p[i][e])
        KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, s->g[e].sent[q], 0));
    /* The bulk overwrites rows the previous boundary read, and reads rows it wrote. It reads
     * nothing of other GPUs or processes, so it never waits for a copy. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->bulk, g->boundary_done[q], 0));
  }
  int r = kit_gpu_range_begin("boundary", g->boundary);
  tetfv_gpu_rows(&g->g, 0, u, un, g->boundary);
  kit_gpu_range_end(r, g->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(g->boundary_done[p], g->boundary));
  r = kit_gpu_range_begin("bulk", g->bulk);
  tetfv_gpu_rows(&g->g, 1, u, un, g->bulk);
  kit_gpu_range_end(r, g->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(g->bulk_done[p], g->bulk));

  r = kit_gpu_range_begin("peer_copies", g->boundary);
  for (int e = 0; e < s->ngpu; ++e) {
    if (!reads(s, e, i) || !s->p2p[e][i] || s->stale) continue;
    mt_gpu *o = &s->g[e];
    /* The reader's previous boundary read the rows of its field we overwrite. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, o->boundary_done[q], 0));
    KIT_CUDA_CHECK(cudaMemcpyPeerAsync(nxt(o, t) + g->x0, o->g.device, un + g->x0, g->g.device,
                                       (size_t)(g->x1 - g->x0) * sizeof(double), g->boundary));
  }
  KIT_CUDA_CHECK(cudaEventRecord(g->sent[p], g->boundary));
  tetfv_d2h(s->host + g->h0, un + g->h0, g->h1 - g->h0, g->boundary);
  kit_gpu_range_end(r, g->boundary);
}

/* GPU i, step t, after every GPU's rows bound for host memory are there: the staged rows of the
 * GPUs it reads, into its next field. */
static void mt_staged_in(mt_state *s, int i, int t) {
  mt_gpu *g = &s->g[i];
  if (s->stale) return;
  for (int e = 0; e < s->ngpu; ++e) {
    if (!reads(s, i, e) || s->p2p[i][e]) continue;
    const mt_gpu *o = &s->g[e];
    tetfv_h2d(nxt(g, t) + o->x0, s->host + o->x0, o->x1 - o->x0, g->boundary);
  }
}

static void mt_run(void *st, int steps) {
  mt_state *s = st;
  const int ngpu = s->ngpu, nown = s->sp.l.nown, nghost = s->sp.l.nghost;
  const int via_host = s->mpi || s->staged; /* the same for every thread: barriers match */
#pragma omp parallel num_threads(ngpu)
  {
    /* Every GPU must have its thread: a smaller team would leave rows uncomputed. */
    if (omp_get_num_threads() != ngpu)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "multi-thread needs %d OpenMP threads (one per GPU), got %d", ngpu, omp_get_num_threads());
    const int i = omp_get_thread_num();
    mt_gpu *g = &s->g[i];
    KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
    for (int t = 0; t < steps; ++t) {
      if (i == 0) KIT_RANGE_PUSH("step");
        /* Every event of step t - 1 is recorded, and every copy out of host memory drained. */
#pragma omp barrier
      mt_compute(s, i, t);
      if (via_host) {
        if (g->h1 > g->h0) {
          if (i == 0) KIT_RANGE_PUSH("wait_boundary");
          KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
          if (i == 0) KIT_RANGE_POP();
        }
#pragma omp barrier /* every row bound for host memory is there */
        if (i == 0 && s->mpi) {
          KIT_RANGE_PUSH("mpi");
          tetfv_exchange_pack(&s->x, s->host);
          tetfv_exchange_start(&s->x, s->host + nown);
          tetfv_exchange_finish(&s->x);
          KIT_RANGE_POP();
        }
        mt_staged_in(s, i, t);
#pragma omp barrier /* the ghost values are in host memory */
        if (s->mpi && s->sp.reads_ghosts[i] && !s->stale)
          tetfv_h2d(nxt(g, t) + nown, s->host + nown, nghost, g->boundary);
        /* Host memory is rewritten next step: the copies out of it must be done. */
        KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
      }
      if (i == 0) KIT_RANGE_POP();
    }
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->bulk));
    /* Another GPU's stream may still be copying into this GPU's fields until it drained. */
#pragma omp barrier
    if (steps % 2) tetfv_gpu_swap(&g->g); /* u is the current field again */
  }
}

static void mt_fetch(void *st, void *out) {
  double *u = out;
  mt_state *s = st;
  double *mine = kit_malloc(((size_t)s->sp.l.nown + 1) * sizeof(double), "fetched field");
  for (int i = 0; i < s->ngpu; ++i) tetfv_gpu_fetch(&s->g[i].g, s->g[i].r0, s->g[i].r1, mine);
  tetfv_split_unpermute(&s->sp, mine, u);
  free(mine);
}

static const kit_halo *mt_halo(void *st) {
  return tetfv_exchange_counters(&((mt_state *)st)->x);
}

static void mt_teardown(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->boundary));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->bulk));
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventDestroy(g->boundary_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->bulk_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->sent[par]));
    }
    tetfv_gpu_free(&g->g);
  }
  tetfv_exchange_free(&s->x);
  kit_host_free(s->host, 1);
  tetfv_split_free(&s->sp);
  free(s->u0);
  free(s);
}

const tetfv_variant tetfv_multi_thread = {
    .name = "multi-thread",
    .summary =
        "one process drives all its GPUs, a thread per GPU; "
        "METIS sub-domains, peer or staged copies, MPI by one thread",
    .needs_gpu = 1,
    .setup = mt_setup,
    .reset = mt_reset,
    .run = mt_run,
    .fetch = mt_fetch,
    .halo = mt_halo,
    .teardown = mt_teardown,
    /* Only thread 0, the process's main thread, calls MPI (see the top of this file). */
    .gpus_max = TETFV_MT_MAX_GPUS,
    .thread_level = MPI_THREAD_FUNNELED,
};
