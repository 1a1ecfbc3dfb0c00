/* hybrid.c: the `hybrid` variant, Paper III's heterogeneous scheme (Sec. 3.1-3.2, Fig. 1-3).
 * One MPI rank per GPU; the rank's rows are split between its GPU and its CPU cores
 * (--cpu-fraction F, or `auto`: the model's share from the measured triads, which kit_main
 * keeps only if it beats two-stream in a short measurement). The CPU part holds the MPI
 * separator first, then the rows nearest to it (tetfv_assign_cpu_rows), and the rows are
 * renumbered (split.c) as in Paper III Fig. 1 right:
 *   GPU: [rows the CPU or other ranks read | rows reading CPU rows or ghosts | GPU interior]
 *   CPU: [MPI separator | ... also read by the GPU | CPU-GPU separator | CPU interior]
 * The threads of one OpenMP team take Paper III's roles by thread number:
 *   control thread (the last): queues the GPU's separator rows, their copy to the host and the
 *       GPU interior (two streams), then computes with the others;
 *   all threads compute the MPI separator rows; then the MPI thread (thread 0) sends them and
 *       receives the ghosts (a single MPI thread: "using more than one did not pay off") and
 *       queues the ghosts' copy to the GPU;
 *   the others compute the CPU-GPU separator; the copy thread (thread 1) waits until it is
 *       complete and queues its copy to the GPU;
 *   everyone, the MPI and copy threads once done, computes the CPU interior; a barrier ends
 *       the step.
 * Rows are handed out in chunks from OpenMP dynamic loops without a closing barrier (nowait),
 * so a thread that left for MPI or a copy finds the rest of the work when it comes back. Host
 * and device fields are chosen by step parity and every cross-thread event is indexed by
 * parity; each step's events are recorded before the closing barrier and waited on only in
 * the next step. With one or two threads the roles fall on the same threads, in this order.
 *   mpiexec -n 2 build/bin/tetfv --variant hybrid --mesh box:100 --cpu-fraction auto */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "kit/ranges.h"
#include "kit/slab.h"

/* Rows a thread takes at a time: Paper III's CPU block. */
#define HYBRID_CHUNK 512

enum { GPU = 0, CPU = 1 };

typedef struct hybrid_state {
  tetfv_ctx c;
  tetfv_split sp;   /* device 0: the GPU's rows, device 1: the CPU's */
  double *u0;       /* the initial field in sp's numbering */
  tetfv_gpu g;      /* whole-length device fields; GPU rows: 0 separator, 1 interior */
  double *h[2];     /* whole-length host fields by step parity (pinned) */
  int gsep0, gsep1; /* GPU rows the CPU or other ranks read: to the host each step */
  int cmpi0, cmpi1; /* CPU rows other ranks read (the MPI separator) */
  int cdev0, cdev1; /* CPU rows the GPU reads: to the GPU each step */
  int cint0, cint1; /* the rest of the CPU rows */
  int gpu_sends;    /* some rows other ranks read are GPU rows (a CPU share below the separator) */
  int gpu_ghosts;   /* the GPU reads ghosts */
  int stale;        /* KIT_FAULT=stale-halo: nothing travels between GPU, CPU and ranks */
  cudaStream_t boundary, bulk, copy, ghost;
  cudaEvent_t boundary_done[2], bulk_done[2], d2h_done[2], copy_done[2], ghost_done[2]; /* [parity] */
  tetfv_exchange x;    /* send lists packed from the host field */
  long long cdev_done; /* CPU-GPU separator rows computed during this run (all steps) */
} hybrid_state;

/* Host fields: every value initial, so anything never copied (stale-halo) stays initial. */
static void init_state(hybrid_state *s) {
  tetfv_gpu_reset(&s->g);
  const size_t n = (size_t)s->sp.l.nown + s->sp.l.nghost;
  memcpy(s->h[0], s->u0, n * sizeof(double));
  memcpy(s->h[1], s->u0, n * sizeof(double));
}

static void *hy_setup(const void *ctx) {
  const tetfv_ctx *c = ctx;
  hybrid_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  s->stale = tetfv_exchange_off(c->p);
  const tetfv_local *l = c->l;
  const int n = l->nown + l->nghost;
  int *dev = kit_malloc(((size_t)l->nown + 1) * sizeof(int), "CPU rows");
  tetfv_assign_cpu_rows(l, kit_cpu_planes(l->nown, c->cpu_fraction), dev);
  tetfv_split_build(l, 2, dev, &s->sp);
  free(dev);
  s->u0 = kit_malloc(((size_t)n + 1) * sizeof(double), "initial field");
  tetfv_split_permute(&s->sp, c->u0, s->u0);
  const tetfv_split *sp = &s->sp;
  s->gsep0 = tetfv_split_at(sp, GPU, TETFV_CAT_MPI);
  s->gsep1 = tetfv_split_at(sp, GPU, TETFV_CAT_IMPORT);
  s->gpu_sends = tetfv_split_at(sp, GPU, TETFV_CAT_DEV) > s->gsep0;
  s->gpu_ghosts = sp->reads_ghosts[GPU];
  s->cmpi0 = tetfv_split_at(sp, CPU, TETFV_CAT_MPI);
  s->cmpi1 = tetfv_split_at(sp, CPU, TETFV_CAT_DEV);
  s->cdev0 = tetfv_split_at(sp, CPU, TETFV_CAT_BOTH);
  s->cdev1 = tetfv_split_at(sp, CPU, TETFV_CAT_IMPORT);
  s->cint0 = s->cdev1;
  s->cint1 = tetfv_split_at(sp, CPU, TETFV_NCAT);
  const int cut[3] = {0, tetfv_split_at(sp, GPU, TETFV_CAT_BULK), tetfv_split_at(sp, GPU, TETFV_NCAT)};
  tetfv_gpu_init(&s->g, c->env->device, &sp->l, s->u0, 2, cut, 0);
  for (int k = 0; k < 2; ++k) s->h[k] = kit_host_alloc(((size_t)n + 1) * sizeof(double), 1);
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->copy, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->ghost, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  for (int par = 0; par < 2; ++par) {
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done[par], cudaEventDisableTiming));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done[par], cudaEventDisableTiming));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->d2h_done[par], cudaEventDisableTiming));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->copy_done[par], cudaEventDisableTiming));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->ghost_done[par], cudaEventDisableTiming));
  }
  tetfv_exchange_init(&s->x, &sp->l, 0, s->stale);
  init_state(s);
  return s;
}

static void hy_reset(void *st) {
  init_state(st);
}

/* Device fields of step t: read (cur) and written (nxt). Host fields: h[t % 2] is read. */
static double *dcur(const hybrid_state *s, int t) {
  return t % 2 ? s->g.un : s->g.u;
}
static double *dnxt(const hybrid_state *s, int t) {
  return t % 2 ? s->g.u : s->g.un;
}

/* Control thread: the GPU's work for step t, queued without blocking (Paper III: "starts the
 * computation of the separator on its accelerator, copies the result asynchronously to the
 * CPU, and starts the computation on the interior part"). */
static void gpu_queue(hybrid_state *s, int t) {
  const int p = t % 2, q = 1 - p;
  double *u = dcur(s, t), *un = dnxt(s, t), *hn = s->h[1 - p];
  if (t > 0) {
    /* The separator rows overwrite rows the previous interior read, and read the CPU rows and
     * ghosts copied in during the previous step. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done[q], 0));
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->copy_done[q], 0));
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->ghost_done[q], 0));
    /* The interior overwrites rows the previous separator read and reads rows it wrote; it
     * reads no CPU row and no ghost, so it never waits for the host. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done[q], 0));
  }
  int r = kit_gpu_range_begin("gpu_separator", s->boundary);
  tetfv_gpu_rows(&s->g, 0, u, un, s->boundary);
  kit_gpu_range_end(r, s->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done[p], s->boundary));
  r = kit_gpu_range_begin("d2h", s->boundary);
  if (!s->stale) tetfv_d2h(hn + s->gsep0, un + s->gsep0, s->gsep1 - s->gsep0, s->boundary);
  kit_gpu_range_end(r, s->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(s->d2h_done[p], s->boundary));
  r = kit_gpu_range_begin("gpu_interior", s->bulk);
  tetfv_gpu_rows(&s->g, 1, u, un, s->bulk);
  kit_gpu_range_end(r, s->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done[p], s->bulk));
}

/* Host rows [a, b) of step t by whichever threads reach this loop; returns how many rows this
 * thread computed. No barrier at the end: a thread that comes late finds the work done. */
static long long cpu_rows(const hybrid_state *s, const double *hu, double *hun, int a, int b) {
  const tetfv_matrix *m = &s->sp.l.m;
  long long mine = 0;
#pragma omp for schedule(dynamic, HYBRID_CHUNK) nowait
  for (int i = a; i < b; ++i) {
    hun[i] = tetfv_row(m->D, m->A, m->I, hu, i);
    ++mine;
  }
  return mine;
}

/* One step of the team (every thread calls it). */
static void hy_step(hybrid_state *s, int t, int control, int mpi, int copy) {
  const int tid = omp_get_thread_num(), p = t % 2, q = 1 - p;
  const int nown = s->sp.l.nown, nghost = s->sp.l.nghost;
  const double *hu = s->h[p];
  double *hun = s->h[q], *un = dnxt(s, t);
  if (tid == mpi) KIT_RANGE_PUSH("step");
  if (tid == control) gpu_queue(s, t);
  if (tid == mpi) tetfv_exchange_post_recvs(&s->x, hun + nown);

  /* The MPI separator, by everyone. */
  if (tid == mpi) KIT_RANGE_PUSH("cpu_mpi_separator");
  cpu_rows(s, hu, hun, s->cmpi0, s->cmpi1);
#pragma omp barrier
  if (tid == mpi) KIT_RANGE_POP();

  if (tid == mpi) {
    /* The MPI thread: send the separator (GPU rows among it once their copy landed), receive
     * the ghosts, and queue their copy to the GPU. */
    KIT_RANGE_PUSH("mpi");
    if (s->gpu_sends) KIT_CUDA_CHECK(cudaEventSynchronize(s->d2h_done[p]));
    tetfv_exchange_pack(&s->x, hun);
    tetfv_exchange_send(&s->x);
    tetfv_exchange_wait(&s->x);
    KIT_RANGE_POP();
    /* The ghosts of this field were read by the previous GPU separator. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->ghost, s->boundary_done[q], 0));
    if (s->gpu_ghosts && !s->stale) tetfv_h2d(un + nown, hun + nown, nghost, s->ghost);
    KIT_CUDA_CHECK(cudaEventRecord(s->ghost_done[p], s->ghost));
  }

  /* The CPU-GPU separator (rows the GPU reads that are not already computed), counted so the
   * copy thread knows when it is complete. */
  const long long mine = cpu_rows(s, hu, hun, s->cmpi1, s->cdev1);
#pragma omp atomic update seq_cst
  s->cdev_done += mine;
  if (tid == copy) {
    const long long target = (long long)(t + 1) * (s->cdev1 - s->cmpi1);
    long long seen = 0;
    KIT_RANGE_PUSH("copy_wait");
    do {
#pragma omp atomic read seq_cst
      seen = s->cdev_done;
    } while (seen < target);
    KIT_RANGE_POP();
    /* The copy thread: the CPU rows the GPU reads, into the GPU's new field (whose rows the
     * previous GPU separator read). */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->copy, s->boundary_done[q], 0));
    if (!s->stale) tetfv_h2d(un + s->cdev0, hun + s->cdev0, s->cdev1 - s->cdev0, s->copy);
    KIT_CUDA_CHECK(cudaEventRecord(s->copy_done[p], s->copy));
  }

  /* The CPU interior, by everyone (the MPI and copy threads rejoin here). */
  if (tid == mpi) KIT_RANGE_PUSH("cpu_interior");
  cpu_rows(s, hu, hun, s->cint0, s->cint1);
  if (tid == mpi) KIT_RANGE_POP();

  /* Before the barrier: what the next step reads from host memory has arrived (the GPU rows
   * the CPU reads), and what it rewrites in host memory has left (the CPU rows and ghosts
   * copied to the GPU: step t + 2 writes these host rows again). */
  if (tid == control) KIT_CUDA_CHECK(cudaEventSynchronize(s->d2h_done[p]));
  if (tid == copy) KIT_CUDA_CHECK(cudaEventSynchronize(s->copy_done[p]));
  if (tid == mpi) KIT_CUDA_CHECK(cudaEventSynchronize(s->ghost_done[p]));
#pragma omp barrier
  if (tid == mpi) KIT_RANGE_POP();
}

static void hy_run(void *st, int steps) {
  hybrid_state *s = st;
  const int threads = s->c.env->threads > 0 ? s->c.env->threads : 1;
  s->cdev_done = 0;
#pragma omp parallel num_threads(threads)
  {
    /* Roles by thread number (Paper III Fig. 2: MPI thread 0, copy thread 1, control thread
     * last); a smaller team shares them. */
    const int T = omp_get_num_threads();
    const int mpi = 0, copy = T > 1 ? 1 : 0, control = T - 1;
    KIT_CUDA_CHECK(cudaSetDevice(s->g.device));
    for (int t = 0; t < steps; ++t) hy_step(s, t, control, mpi, copy);
  }
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->copy));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->ghost));
  if (steps % 2) { /* index 0 and u hold the current field again */
    tetfv_gpu_swap(&s->g);
    double *t_ = s->h[0];
    s->h[0] = s->h[1];
    s->h[1] = t_;
  }
}

static void hy_fetch(void *st, void *out) {
  double *u = out;
  hybrid_state *s = st;
  double *mine = kit_malloc(((size_t)s->sp.l.nown + 1) * sizeof(double), "fetched field");
  tetfv_gpu_fetch(&s->g, 0, s->cmpi0, mine); /* the GPU's rows come first */
  memcpy(mine + s->cmpi0, s->h[0] + s->cmpi0, (size_t)(s->cint1 - s->cmpi0) * sizeof(double));
  tetfv_split_unpermute(&s->sp, mine, u);
  free(mine);
}

static const kit_halo *hy_halo(void *st) {
  return &((hybrid_state *)st)->x.counters;
}

static void hy_teardown(void *st) {
  hybrid_state *s = st;
  KIT_CUDA_CHECK(cudaSetDevice(s->g.device));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->copy));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->ghost));
  for (int par = 0; par < 2; ++par) {
    KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done[par]));
    KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done[par]));
    KIT_CUDA_CHECK(cudaEventDestroy(s->d2h_done[par]));
    KIT_CUDA_CHECK(cudaEventDestroy(s->copy_done[par]));
    KIT_CUDA_CHECK(cudaEventDestroy(s->ghost_done[par]));
  }
  tetfv_exchange_free(&s->x);
  for (int k = 0; k < 2; ++k) kit_host_free(s->h[k], 1);
  tetfv_gpu_free(&s->g);
  tetfv_split_free(&s->sp);
  free(s->u0);
  free(s);
}

const tetfv_variant tetfv_hybrid = {
    .name = "hybrid",
    .summary =
        "one rank per GPU; rows split between GPU and CPU cores, "
        "Paper III's control, MPI, copy and compute threads",
    .needs_gpu = 1,
    .setup = hy_setup,
    .reset = hy_reset,
    .run = hy_run,
    .fetch = hy_fetch,
    .halo = hy_halo,
    .teardown = hy_teardown,
    .hybrid = 1,
};
