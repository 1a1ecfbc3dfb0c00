/* hybrid.c: the `hybrid` variant, Paper III's heterogeneous scheme (Sec. 3.1-3.2, Fig. 1-3).
 * Each MPI rank drives its GPUs and its CPU cores: one GPU by default, or with --gpus N the N
 * GPUs of Paper III's one process per node ("one subpartition per GPU, plus one CPU
 * subpartition"). The rank's rows go first to the CPU (--cpu-fraction F, or `auto`: the
 * model's share from the measured triads of the CPU and N GPUs, which kit_main keeps only if
 * it beats the GPU-only schedule in a short measurement): the MPI separator, then the rows
 * nearest to it (tetfv_assign_hybrid_rows); the rest are split over the GPUs by METIS. The
 * rows are renumbered (split.c) as in Paper III Fig. 1 right:
 *   GPU d: [rows the CPU, other GPUs or ranks read | rows reading other devices' rows or ghosts | interior]
 *   CPU:   [MPI separator | ... also read by a GPU | CPU-GPU separator | CPU interior]
 * There is no GPU-GPU path ("this communication is performed by transferring data via the
 * CPU"): every GPU's separator goes to host memory, and GPUs read each other's rows from there.
 * The threads of one OpenMP team take Paper III's roles by thread number (Fig. 2):
 *   control threads (the last N, one per GPU): queue their GPU's separator rows, their copy
 *       to the host and the GPU interior (two streams), then compute with the others;
 *   all threads compute the MPI separator rows; then the MPI thread (thread 0) sends them and
 *       receives the ghosts (a single MPI thread: "using more than one did not pay off") and
 *       queues the ghosts' copy to every GPU that reads them;
 *   the others compute the CPU-GPU separator; the copy threads (threads 1..N, one per GPU)
 *       wait until it is complete and queue its copy to their GPU, and "also transfer u_new
 *       values belonging to the separators from other accelerators to its own accelerator
 *       once they have been transferred to the CPU memory" (a stream wait on the other GPU's
 *       copy to the host);
 *   everyone, the MPI and copy threads once done, computes the CPU interior; a barrier ends
 *       the step.
 * Rows are handed out in chunks from OpenMP dynamic loops without a closing barrier (nowait),
 * so a thread that left for MPI or a copy finds the rest of the work when it comes back. Host
 * and device fields are chosen by step parity and every cross-thread event is indexed by
 * parity; each step's events are recorded before the barrier that follows the MPI separator
 * and waited on no earlier. With fewer than 2N + 1 threads the roles fall on the same
 * threads (thread numbers modulo the team), in this order.
 *   mpiexec -n 2 build/bin/tetfv --variant hybrid --mesh box:100 --cpu-fraction auto
 *   build/bin/tetfv --variant hybrid --gpus 2 --mesh box:100 --cpu-fraction 0.02 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "kit/ranges.h"
#include "kit/slab.h"

/* Rows a thread takes at a time: Paper III's CPU block. */
#define HYBRID_CHUNK 512

/* One GPU of the rank and what travels to and from it. */
typedef struct hy_gpu {
  tetfv_gpu g;    /* whole-length device fields; its rows: 0 separator, 1 interior */
  int sep0, sep1; /* its rows the CPU, other GPUs or other ranks read: to the host each step */
  int x0;         /* its rows other devices read are [x0, sep1), [BOTH, IMPORT): host to their GPUs */
  int sends;      /* some rows other ranks read are this GPU's (a CPU share below the separator) */
  int ghosts;     /* it reads ghosts */
  cudaStream_t boundary, bulk, copy, ghost;
  cudaEvent_t boundary_done[2], bulk_done[2], d2h_done[2], copy_done[2], ghost_done[2]; /* [parity] */
} hy_gpu;

typedef struct hybrid_state {
  tetfv_ctx c;
  int ngpu;       /* GPUs; the CPU is device ngpu of the split */
  tetfv_split sp; /* devices 0..ngpu-1: the GPUs' rows, device ngpu: the CPU's */
  double *u0;     /* the initial field in sp's numbering */
  hy_gpu gpu[TETFV_MT_MAX_GPUS];
  double *h[2];        /* whole-length host fields by step parity (pinned) */
  int cmpi0, cmpi1;    /* CPU rows other ranks read (the MPI separator) */
  int cdev0, cdev1;    /* CPU rows a GPU reads: to the GPUs each step */
  int cint0, cint1;    /* the rest of the CPU rows */
  int stale;           /* KIT_FAULT=stale-halo: nothing travels between GPUs, CPU and ranks */
  tetfv_exchange x;    /* send lists packed from the host field */
  long long cdev_done; /* CPU-GPU separator rows computed during this run (all steps) */
} hybrid_state;

static int reads(const hybrid_state *s, int d, int e) {
  return d != e && s->sp.reads[d * s->sp.ndev + e];
}

/* Host fields: every value initial, so anything never copied (stale-halo) stays initial. */
static void init_state(hybrid_state *s) {
  for (int d = 0; d < s->ngpu; ++d) tetfv_gpu_reset(&s->gpu[d].g);
  const size_t n = (size_t)s->sp.l.nown + s->sp.l.nghost;
  memcpy(s->h[0], s->u0, n * sizeof(double));
  memcpy(s->h[1], s->u0, n * sizeof(double));
}

static void *hy_setup(const void *ctx) {
  const tetfv_ctx *c = ctx;
  hybrid_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  s->ngpu = c->gpus > 0 ? c->gpus : 1;
  s->stale = tetfv_exchange_off(c->p);
  const tetfv_local *l = c->l;
  const int n = l->nown + l->nghost, ngpu = s->ngpu, cpu = ngpu;
  int *dev = kit_malloc(((size_t)l->nown + 1) * sizeof(int), "CPU rows");
  tetfv_assign_hybrid_rows(l, ngpu, kit_cpu_planes(l->nown, c->cpu_fraction), dev);
  tetfv_split_build(l, ngpu + 1, dev, &s->sp);
  free(dev);
  s->u0 = kit_malloc(((size_t)n + 1) * sizeof(double), "initial field");
  tetfv_split_permute(&s->sp, c->u0, s->u0);
  const tetfv_split *sp = &s->sp;
  s->cmpi0 = tetfv_split_at(sp, cpu, TETFV_CAT_MPI);
  s->cmpi1 = tetfv_split_at(sp, cpu, TETFV_CAT_DEV);
  s->cdev0 = tetfv_split_at(sp, cpu, TETFV_CAT_BOTH);
  s->cdev1 = tetfv_split_at(sp, cpu, TETFV_CAT_IMPORT);
  s->cint0 = s->cdev1;
  s->cint1 = tetfv_split_at(sp, cpu, TETFV_NCAT);
  for (int k = 0; k < 2; ++k) s->h[k] = kit_host_alloc(((size_t)n + 1) * sizeof(double), 1);
  /* One GPU: the rank's device. Several: consecutive devices of this process's share of the
   * node, wrapping around when there are fewer (tests run the multi-GPU path on one GPU). */
  const int visible = c->env->gpus_visible > 0 ? c->env->gpus_visible : 1;
  for (int d = 0; d < ngpu; ++d) {
    hy_gpu *g = &s->gpu[d];
    g->sep0 = tetfv_split_at(sp, d, TETFV_CAT_MPI);
    g->sep1 = tetfv_split_at(sp, d, TETFV_CAT_IMPORT);
    g->x0 = tetfv_split_at(sp, d, TETFV_CAT_BOTH);
    g->sends = tetfv_split_at(sp, d, TETFV_CAT_DEV) > g->sep0;
    g->ghosts = sp->reads_ghosts[d];
    const int cut[3] = {g->sep0, tetfv_split_at(sp, d, TETFV_CAT_BULK), tetfv_split_at(sp, d, TETFV_NCAT)};
    const int device = ngpu == 1 ? c->env->device : (c->env->local_rank * ngpu + d) % visible;
    tetfv_gpu_init(&g->g, device, &sp->l, s->u0, 2, cut, 0);
    int least = 0, greatest = 0;
    KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&g->boundary, cudaStreamNonBlocking, greatest));
    KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&g->copy, cudaStreamNonBlocking, greatest));
    KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&g->ghost, cudaStreamNonBlocking, greatest));
    KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&g->bulk, cudaStreamNonBlocking, least));
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->boundary_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->bulk_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->d2h_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->copy_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->ghost_done[par], cudaEventDisableTiming));
    }
  }
  tetfv_exchange_init(&s->x, &sp->l, s->stale);
  init_state(s);
  return s;
}

static void hy_reset(void *st) {
  init_state(st);
}

/* Device fields of step t: read (cur) and written (nxt). Host fields: h[t % 2] is read. */
static double *dcur(const hy_gpu *g, int t) {
  return t % 2 ? g->g.un : g->g.u;
}
static double *dnxt(const hy_gpu *g, int t) {
  return t % 2 ? g->g.u : g->g.un;
}

/* Control thread of GPU d: its work for step t, queued without blocking (Paper III: "starts
 * the computation of the separator on its accelerator, copies the result asynchronously to the
 * CPU, and starts the computation on the interior part"). */
static void gpu_queue(hybrid_state *s, int d, int t) {
  hy_gpu *g = &s->gpu[d];
  const int p = t % 2, q = 1 - p;
  double *u = dcur(g, t), *un = dnxt(g, t), *hn = s->h[1 - p];
  KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
  if (t > 0) {
    /* The separator rows overwrite rows the previous interior read, and read the rows of the
     * CPU, of other GPUs and the ghosts copied in during the previous step. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->bulk_done[q], 0));
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->copy_done[q], 0));
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->ghost_done[q], 0));
    /* The interior overwrites rows the previous separator read and reads rows it wrote; it
     * reads no other device's row and no ghost, so it never waits for the host. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->bulk, g->boundary_done[q], 0));
  }
  int r = kit_gpu_range_begin("gpu_separator", g->boundary);
  tetfv_gpu_rows(&g->g, 0, u, un, g->boundary);
  kit_gpu_range_end(r, g->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(g->boundary_done[p], g->boundary));
  r = kit_gpu_range_begin("d2h", g->boundary);
  if (!s->stale) tetfv_d2h(hn + g->sep0, un + g->sep0, g->sep1 - g->sep0, g->boundary);
  kit_gpu_range_end(r, g->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(g->d2h_done[p], g->boundary));
  r = kit_gpu_range_begin("gpu_interior", g->bulk);
  tetfv_gpu_rows(&g->g, 1, u, un, g->bulk);
  kit_gpu_range_end(r, g->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(g->bulk_done[p], g->bulk));
}

/* MPI thread, after the exchange: the ghosts of step t into GPU d's new field. */
static void ghosts_in(hybrid_state *s, int d, int t) {
  hy_gpu *g = &s->gpu[d];
  const int p = t % 2, q = 1 - p, nown = s->sp.l.nown;
  KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
  /* The ghosts of this field were read by the previous GPU separator. */
  if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(g->ghost, g->boundary_done[q], 0));
  if (g->ghosts && !s->stale) tetfv_h2d(dnxt(g, t) + nown, s->h[q] + nown, s->sp.l.nghost, g->ghost);
  KIT_CUDA_CHECK(cudaEventRecord(g->ghost_done[p], g->ghost));
}

/* Copy thread of GPU d, once the CPU-GPU separator of step t is complete: the CPU rows it
 * reads, and the other GPUs' rows it reads once their copy to the host has landed, into its
 * new field (whose rows the previous GPU separator read). */
static void copies_in(hybrid_state *s, int d, int t) {
  hy_gpu *g = &s->gpu[d];
  const int p = t % 2, q = 1 - p;
  double *un = dnxt(g, t), *hn = s->h[q];
  KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
  if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(g->copy, g->boundary_done[q], 0));
  if (!s->stale) {
    if (reads(s, d, s->ngpu)) tetfv_h2d(un + s->cdev0, hn + s->cdev0, s->cdev1 - s->cdev0, g->copy);
    for (int e = 0; e < s->ngpu; ++e) {
      if (!reads(s, d, e)) continue;
      const hy_gpu *o = &s->gpu[e];
      KIT_CUDA_CHECK(cudaStreamWaitEvent(g->copy, o->d2h_done[p], 0)); /* recorded before the barrier */
      tetfv_h2d(un + o->x0, hn + o->x0, o->sep1 - o->x0, g->copy);
    }
  }
  KIT_CUDA_CHECK(cudaEventRecord(g->copy_done[p], g->copy));
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

/* The threads of GPU d's roles in a team of T (Paper III Fig. 2: MPI thread 0, copy threads
 * 1..N, control threads the last N); a smaller team shares them. */
static int copy_thread(int d, int T) {
  return T > 1 ? 1 + d % (T - 1) : 0;
}
static int control_thread(int d, int ngpu, int T) {
  return ((T - ngpu + d) % T + T) % T;
}

/* One step of the team (every thread calls it). */
static void hy_step(hybrid_state *s, int t, int T) {
  const int tid = omp_get_thread_num(), mpi = 0, p = t % 2, q = 1 - p, ngpu = s->ngpu;
  const int nown = s->sp.l.nown;
  const double *hu = s->h[p];
  double *hun = s->h[q];
  if (tid == mpi) KIT_RANGE_PUSH("step");
  for (int d = 0; d < ngpu; ++d)
    if (control_thread(d, ngpu, T) == tid) gpu_queue(s, d, t);

  /* The MPI separator, by everyone. The barrier also makes every GPU's events of this step
   * recorded before anyone waits on them. */
  if (tid == mpi) KIT_RANGE_PUSH("cpu_mpi_separator");
  cpu_rows(s, hu, hun, s->cmpi0, s->cmpi1);
#pragma omp barrier
  if (tid == mpi) KIT_RANGE_POP();

  if (tid == mpi) {
    /* The MPI thread: send the separator (GPU rows among it once their copy landed), receive
     * the ghosts, and queue their copy to the GPUs. */
    KIT_RANGE_PUSH("mpi");
    for (int d = 0; d < ngpu; ++d)
      if (s->gpu[d].sends) KIT_CUDA_CHECK(cudaEventSynchronize(s->gpu[d].d2h_done[p]));
    tetfv_exchange_pack(&s->x, hun);
    tetfv_exchange_start(&s->x, hun + nown);
    tetfv_exchange_finish(&s->x);
    KIT_RANGE_POP();
    for (int d = 0; d < ngpu; ++d) ghosts_in(s, d, t);
  }

  /* The CPU-GPU separator (rows a GPU reads that are not already computed), counted so the
   * copy threads know when it is complete. */
  const long long mine = cpu_rows(s, hu, hun, s->cmpi1, s->cdev1);
#pragma omp atomic update seq_cst
  s->cdev_done += mine;
  int waited = 0;
  for (int d = 0; d < ngpu; ++d) {
    if (copy_thread(d, T) != tid) continue;
    if (!waited) {
      const long long target = (long long)(t + 1) * (s->cdev1 - s->cmpi1);
      long long seen = 0;
      KIT_RANGE_PUSH("copy_wait");
      do {
#pragma omp atomic read seq_cst
        seen = s->cdev_done;
      } while (seen < target);
      KIT_RANGE_POP();
      waited = 1;
    }
    copies_in(s, d, t);
  }

  /* The CPU interior, by everyone (the MPI and copy threads rejoin here). */
  if (tid == mpi) KIT_RANGE_PUSH("cpu_interior");
  cpu_rows(s, hu, hun, s->cint0, s->cint1);
  if (tid == mpi) KIT_RANGE_POP();

  /* Before the barrier: what the next step reads from host memory has arrived (the GPU rows
   * the CPU reads), and what it rewrites in host memory has left (the rows and ghosts copied
   * to the GPUs: step t + 2 writes these host rows again). */
  for (int d = 0; d < ngpu; ++d) {
    if (control_thread(d, ngpu, T) == tid) KIT_CUDA_CHECK(cudaEventSynchronize(s->gpu[d].d2h_done[p]));
    if (copy_thread(d, T) == tid) KIT_CUDA_CHECK(cudaEventSynchronize(s->gpu[d].copy_done[p]));
    if (tid == mpi) KIT_CUDA_CHECK(cudaEventSynchronize(s->gpu[d].ghost_done[p]));
  }
#pragma omp barrier
  if (tid == mpi) KIT_RANGE_POP();
}

static void hy_run(void *st, int steps) {
  hybrid_state *s = st;
  const int threads = s->c.env->threads > 0 ? s->c.env->threads : 1;
  s->cdev_done = 0;
#pragma omp parallel num_threads(threads)
  {
    const int T = omp_get_num_threads();
    for (int t = 0; t < steps; ++t) hy_step(s, t, T);
  }
  for (int d = 0; d < s->ngpu; ++d) {
    hy_gpu *g = &s->gpu[d];
    KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->bulk));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->copy));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->ghost));
    if (steps % 2) tetfv_gpu_swap(&g->g); /* u holds the current field again */
  }
  if (steps % 2) { /* index 0 holds the current field again */
    double *t_ = s->h[0];
    s->h[0] = s->h[1];
    s->h[1] = t_;
  }
}

static void hy_fetch(void *st, void *out) {
  double *u = out;
  hybrid_state *s = st;
  double *mine = kit_malloc(((size_t)s->sp.l.nown + 1) * sizeof(double), "fetched field");
  for (int d = 0; d < s->ngpu; ++d) /* the GPUs' rows come first, then the CPU's */
    tetfv_gpu_fetch(&s->gpu[d].g, tetfv_split_at(&s->sp, d, 0), tetfv_split_at(&s->sp, d, TETFV_NCAT), mine);
  memcpy(mine + s->cmpi0, s->h[0] + s->cmpi0, (size_t)(s->cint1 - s->cmpi0) * sizeof(double));
  tetfv_split_unpermute(&s->sp, mine, u);
  free(mine);
}

static const kit_halo *hy_halo(void *st) {
  return tetfv_exchange_counters(&((hybrid_state *)st)->x);
}

static void hy_teardown(void *st) {
  hybrid_state *s = st;
  for (int d = 0; d < s->ngpu; ++d) {
    hy_gpu *g = &s->gpu[d];
    KIT_CUDA_CHECK(cudaSetDevice(g->g.device));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->boundary));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->bulk));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->copy));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->ghost));
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventDestroy(g->boundary_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->bulk_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->d2h_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->copy_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->ghost_done[par]));
    }
    tetfv_gpu_free(&g->g);
  }
  tetfv_exchange_free(&s->x);
  for (int k = 0; k < 2; ++k) kit_host_free(s->h[k], 1);
  tetfv_split_free(&s->sp);
  free(s->u0);
  free(s);
}

const tetfv_variant tetfv_hybrid = {
    .name = "hybrid",
    .summary =
        "each rank's rows split between its GPUs (one, or --gpus N) and its CPU cores; "
        "Paper III's control, MPI, copy and compute threads",
    .needs_gpu = 1,
    .setup = hy_setup,
    .reset = hy_reset,
    .run = hy_run,
    .fetch = hy_fetch,
    .halo = hy_halo,
    .teardown = hy_teardown,
    .hybrid = 1,
    /* --gpus N: one process drives N GPUs (without --gpus, one GPU per rank). Only thread 0,
     * the process's main thread, calls MPI. */
    .gpus_max = TETFV_MT_MAX_GPUS,
    .thread_level = MPI_THREAD_FUNNELED,
};
