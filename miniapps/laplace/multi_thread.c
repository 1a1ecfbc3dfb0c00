/* multi_thread.c: the `multi-thread` variant. One process drives every GPU it may use
 * (--gpus) with three OpenMP threads per GPU: a main thread that launches the boundary
 * and bulk kernels, a send assistant that pushes the new boundary planes out, and a
 * receive assistant that brings ghost planes in (Sourouri Paper I, Sec. 4.1). Each
 * direction has its own stream (Paper I, Sec. 4.2, Fig. 4). Neighbouring GPUs of the
 * process exchange with cudaMemcpyPeerAsync where cudaDeviceCanAccessPeer allows, staged
 * through pinned host memory where not; MPI is used only between processes, by the
 * assistants of the GPUs at the ends of the process's slab. --no-p2p forces host staging.
 * --mt-scheme single is Paper I's Baseline instead: the one host thread launches every GPU's
 * work and runs the exchange in two phases (--exchange-order left-right|pairwise, Sec. 3).
 *   build/bin/laplace --variant multi-thread --size 256,256,512 --gpus 2
 *   build/bin/laplace --variant multi-thread --mt-scheme single --exchange-order pairwise --gpus 4 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

typedef struct mt_gpu {
  laplace_dev_block d;
  cudaStream_t boundary, bulk;   /* main thread's streams */
  cudaStream_t send[2], recv[2]; /* one stream per neighbour direction and sense */
  cudaEvent_t boundary_done;     /* this step's boundary planes are computed */
  cudaEvent_t bulk_done;         /* this step's bulk is computed */
  cudaEvent_t sent[2];           /* peer copy into the neighbour's ghost plane done */
  cudaEvent_t received[2];       /* copy into this GPU's ghost plane (recv stream) done */
  int local_nbr[2];              /* neighbouring GPU of this process, or -1 */
  int peer[2];                   /* direct P2P access to that neighbour */
  double *stage[2];              /* pinned staging of outgoing planes (host path, MPI) */
  double *inbox[2];              /* pinned landing of incoming MPI planes */
} mt_gpu;

typedef struct mt_state {
  laplace_ctx c;
  int ngpu;
  mt_gpu g[LAPLACE_MT_MAX_GPUS];
  kit_halo halo; /* MPI neighbours of the process (ends of its slab) */
} mt_state;

static void *mt_setup(const void *arg) {
  const laplace_ctx *c = arg;
  mt_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->ngpu = c->gpus;
  const size_t plane = c->blk.sz * sizeof(double);
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.sz, 0, 1);
  for (int i = 0; i < s->ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    const kit_block part = kit_block_split(c->blk.nz, s->ngpu, i);
    const laplace_block b = laplace_block_make(c->blk.nx, c->blk.ny, c->blk.k0 + part.begin, part.count);
    /* Consecutive devices from this process's share of the node; more blocks than devices
     * wrap around, which lets one GPU exercise the multi-GPU code path in tests. */
    const int visible = c->env->gpus_visible;
    laplace_dev_block_init(&g->d, c->p, &b, (c->env->local_rank * s->ngpu + i) % visible);
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->boundary, cudaStreamNonBlocking));
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->bulk, cudaStreamNonBlocking));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->boundary_done, cudaEventDisableTiming));
    KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->bulk_done, cudaEventDisableTiming));
    g->local_nbr[KIT_DOWN] = i > 0 ? i - 1 : -1;
    g->local_nbr[KIT_UP] = i < s->ngpu - 1 ? i + 1 : -1;
    for (int side = 0; side < 2; ++side) {
      KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->send[side], cudaStreamNonBlocking));
      KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->recv[side], cudaStreamNonBlocking));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->sent[side], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->received[side], cudaEventDisableTiming));
      g->peer[side] = 0;
      if (g->local_nbr[side] >= 0 && c->p->p2p)
        g->peer[side] =
            kit_enable_peer(g->d.device, (c->env->local_rank * s->ngpu + g->local_nbr[side]) % visible);
      const int needs_stage = g->local_nbr[side] >= 0 ? !g->peer[side] : s->halo.nbr[side] != MPI_PROC_NULL;
      g->stage[side] = needs_stage ? kit_host_alloc(plane, 1) : NULL;
      g->inbox[side] =
          (g->local_nbr[side] < 0 && s->halo.nbr[side] != MPI_PROC_NULL) ? kit_host_alloc(plane, 1) : NULL;
    }
  }
  return s;
}

static void mt_reset(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ngpu; ++i) laplace_dev_block_reset(&s->g[i].d);
}

/* Fields by step parity: every GPU steps in lockstep, so a neighbour's "next" field is
 * found the same way and no thread ever swaps a pointer another thread reads. */
static double *cur(const mt_gpu *g, int t) {
  return t % 2 ? g->d.un : g->d.u;
}
static double *nxt(const mt_gpu *g, int t) {
  return t % 2 ? g->d.u : g->d.un;
}

/* Main thread of GPU i: boundary planes first (recorded by an event), then the bulk.
 * No host synchronisation: events order this step after the previous one. */
static void mt_compute(mt_state *s, int i, int t) {
  mt_gpu *g = &s->g[i];
  const laplace_block *b = &g->d.blk;
  const laplace_params *p = s->c.p;
  /* The boundary overwrites planes the previous bulk reads and reads the ghost planes
   * that arrived last step, by peer copy (the neighbour's event) or by our recv stream. */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->bulk_done, 0));
  for (int side = 0; side < 2; ++side) {
    const int n = g->local_nbr[side];
    if (n >= 0 && g->peer[side])
      KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, s->g[n].sent[1 - side], 0));
    else
      KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->received[side], 0));
  }
  /* The bulk reads the previous step's boundary planes. */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(g->bulk, g->boundary_done, 0));
  int h = kit_gpu_range_begin("boundary", g->boundary);
  launch_laplace_sweep(b, cur(g, t), nxt(g, t), 1, 2, p->alpha, p->beta, g->boundary);
  if (b->nz > 1)
    launch_laplace_sweep(b, cur(g, t), nxt(g, t), b->nz, b->nz + 1, p->alpha, p->beta, g->boundary);
  kit_gpu_range_end(h, g->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(g->boundary_done, g->boundary));
  h = kit_gpu_range_begin("bulk", g->bulk);
  launch_laplace_sweep(b, cur(g, t), nxt(g, t), 2, b->nz, p->alpha, p->beta, g->bulk);
  kit_gpu_range_end(h, g->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(g->bulk_done, g->bulk));
}

/* GPU i's new boundary plane towards `side`, enqueued on its send stream: peer-to-peer into
 * the neighbour's ghost plane (event `sent`), or into pinned host memory (stage) for a
 * neighbour without peer access or another process. 0 where nothing goes that way. */
static int mt_push(mt_state *s, int i, int side, int t) {
  mt_gpu *g = &s->g[i];
  const size_t plane = g->d.blk.sz * sizeof(double);
  const int src_plane = side == KIT_DOWN ? 1 : g->d.blk.nz;
  const double *src = laplace_dev_plane(&g->d, nxt(g, t), src_plane);
  const int n = g->local_nbr[side];
  if (n < 0 && s->halo.nbr[side] == MPI_PROC_NULL) return 0;
  if (kit_fault("stale-halo")) return 0;
  KIT_CUDA_CHECK(cudaStreamWaitEvent(g->send[side], g->boundary_done, 0));
  int h = kit_gpu_range_begin(side == KIT_DOWN ? "send_down" : "send_up", g->send[side]);
  if (n >= 0 && g->peer[side]) {
    mt_gpu *o = &s->g[n];
    /* The neighbour's previous boundary read the ghost plane we overwrite. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->send[side], o->boundary_done, 0));
    const int dst_plane = side == KIT_DOWN ? o->d.blk.nz + 1 : 0;
    KIT_CUDA_CHECK(cudaMemcpyPeerAsync(laplace_dev_plane(&o->d, nxt(o, t), dst_plane), o->d.device, src,
                                       g->d.device, plane, g->send[side]));
    KIT_CUDA_CHECK(cudaEventRecord(g->sent[side], g->send[side]));
  } else {
    KIT_CUDA_CHECK(cudaMemcpyAsync(g->stage[side], src, plane, cudaMemcpyDeviceToHost, g->send[side]));
  }
  kit_gpu_range_end(h, g->send[side]);
  return 1;
}

/* Send assistant of GPU i: each new boundary plane goes to the neighbour's ghost plane,
 * peer-to-peer, through pinned host memory, or through MPI. */
static void mt_send(mt_state *s, int i, int t) {
  mt_gpu *g = &s->g[i];
  for (int side = 0; side < 2; ++side) {
    if (!mt_push(s, i, side, t)) continue;
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->send[side]));
    if (g->local_nbr[side] < 0) kit_halo_send(&s->halo, side, g->stage[side]); /* the process's edge: MPI */
  }
}

/* Copy one incoming plane from host memory into this GPU's ghost plane on side's stream. */
static void mt_land(mt_gpu *g, int side, int t, const double *src) {
  const int dst_plane = side == KIT_DOWN ? 0 : g->d.blk.nz + 1;
  /* Our previous boundary read the ghost plane we overwrite. */
  KIT_CUDA_CHECK(cudaStreamWaitEvent(g->recv[side], g->boundary_done, 0));
  KIT_CUDA_CHECK(cudaMemcpyAsync(laplace_dev_plane(&g->d, nxt(g, t), dst_plane), src,
                                 g->d.blk.sz * sizeof(double), cudaMemcpyHostToDevice, g->recv[side]));
  KIT_CUDA_CHECK(cudaEventRecord(g->received[side], g->recv[side]));
  KIT_CUDA_CHECK(cudaStreamSynchronize(g->recv[side])); /* src may be reused next step */
}

/* Receive assistant of GPU i, first part: ghost planes from another process. */
static void mt_recv_remote(mt_state *s, int i, int t) {
  mt_gpu *g = &s->g[i];
  for (int side = 0; side < 2; ++side) {
    if (!g->inbox[side] || kit_fault("stale-halo")) continue;
    kit_halo_recv(&s->halo, side, g->inbox[side]);
    mt_land(g, side, t, g->inbox[side]);
  }
}

/* Receive assistant of GPU i, second part: planes a local neighbour staged in host memory. */
static void mt_recv_staged(mt_state *s, int i, int t) {
  mt_gpu *g = &s->g[i];
  for (int side = 0; side < 2; ++side) {
    const int n = g->local_nbr[side];
    if (n < 0 || g->peer[side] || kit_fault("stale-halo")) continue;
    mt_land(g, side, t, s->g[n].stage[1 - side]); /* the neighbour sent towards us */
  }
}

/* Whether GPU i sends towards `side` in exchange phase `phase` of the baseline (Paper I Sec. 3,
 * after its reference [5]). left-right: every GPU to the next, then every GPU to the previous
 * (each link carries one direction at a time); pairwise: the pairs (0,1), (2,3), ... both ways,
 * then the pairs (1,2), (3,4), ... (each link both directions at once). */
static int mt_in_phase(int pairwise, int phase, int i, int side) {
  if (!pairwise) return phase == (side == KIT_UP ? 0 : 1);
  const int lower = side == KIT_UP ? i : i - 1; /* the pair's first GPU (-1: none) */
  return lower >= 0 && lower % 2 == phase;
}

/* Paper I's Baseline (Sec. 5.1): the calling thread alone drives every GPU. Each step it
 * launches every GPU's boundary and bulk (mt_compute, the assistants' main thread's own), then
 * runs the exchange in two phases, waiting at the end of each for its copies (the state of the
 * art's synchronisation gap, Paper I Fig. 2): nothing of one phase overlaps the next, and the
 * host issues every copy in turn. One process only (laplace_check). */
static void mt_run_single(mt_state *s, int steps) {
  const int pairwise = s->c.p->exchange_order && strcmp(s->c.p->exchange_order, "pairwise") == 0;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    for (int i = 0; i < s->ngpu; ++i) {
      KIT_CUDA_CHECK(cudaSetDevice(s->g[i].d.device));
      mt_compute(s, i, t);
    }
    for (int phase = 0; phase < 2; ++phase) {
      KIT_RANGE_PUSH(phase ? "exchange_phase2" : "exchange_phase1");
      int pushed[LAPLACE_MT_MAX_GPUS][2] = {{0}};
      for (int i = 0; i < s->ngpu; ++i)
        for (int side = 0; side < 2; ++side)
          if (mt_in_phase(pairwise, phase, i, side)) {
            KIT_CUDA_CHECK(cudaSetDevice(s->g[i].d.device));
            pushed[i][side] = mt_push(s, i, side, t);
          }
      for (int i = 0; i < s->ngpu; ++i)
        for (int side = 0; side < 2; ++side) {
          if (!pushed[i][side]) continue;
          mt_gpu *g = &s->g[i];
          KIT_CUDA_CHECK(cudaStreamSynchronize(g->send[side]));
          if (!g->peer[side]) { /* staged: on into the neighbour's ghost plane */
            mt_gpu *o = &s->g[g->local_nbr[side]];
            KIT_CUDA_CHECK(cudaSetDevice(o->d.device));
            mt_land(o, 1 - side, t, g->stage[side]);
          }
        }
      KIT_RANGE_POP();
    }
    KIT_RANGE_POP();
  }
  for (int i = 0; i < s->ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    KIT_CUDA_CHECK(cudaSetDevice(g->d.device));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
    KIT_CUDA_CHECK(cudaStreamSynchronize(g->bulk));
    if (steps % 2) laplace_dev_swap(&g->d);
  }
  KIT_CUDA_CHECK(cudaSetDevice(s->g[0].d.device));
}

static void mt_run(void *st, int steps) {
  mt_state *s = st;
  if (strcmp(s->c.p->mt_scheme, "single") == 0) {
    mt_run_single(s, steps);
    return;
  }
  const int ngpu = s->ngpu;
  enum { MAIN = 0, SENDER = 1, RECEIVER = 2 };
#pragma omp parallel num_threads(3 * ngpu)
  {
    /* Every role must have its thread: a smaller team (OMP_THREAD_LIMIT, OMP_DYNAMIC) would
     * leave sends or receives undone and the answer silently wrong. */
    if (omp_get_num_threads() != 3 * ngpu)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "multi-thread needs %d OpenMP threads (3 per GPU), got %d", 3 * ngpu, omp_get_num_threads());
    const int i = omp_get_thread_num() / 3, role = omp_get_thread_num() % 3;
    mt_gpu *g = &s->g[i];
    KIT_CUDA_CHECK(cudaSetDevice(g->d.device));
    for (int t = 0; t < steps; ++t) {
      if (role == MAIN) {
        if (i == 0) KIT_RANGE_PUSH("step");
        mt_compute(s, i, t);
      }
#pragma omp barrier /* boundary_done of this step is recorded on every GPU */
      if (role == SENDER) mt_send(s, i, t);
      if (role == RECEIVER) mt_recv_remote(s, i, t);
#pragma omp barrier /* every staged plane is in host memory */
      if (role == RECEIVER) mt_recv_staged(s, i, t);
#pragma omp barrier /* every incoming copy is enqueued and its event recorded */
      if (role == MAIN && i == 0) KIT_RANGE_POP();
    }
    if (role == MAIN) {
      KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
      KIT_CUDA_CHECK(cudaStreamSynchronize(g->bulk));
      if (steps % 2) laplace_dev_swap(&g->d);
    }
  }
}

static void mt_fetch(void *st, void *out) {
  mt_state *s = st;
  size_t offset = 0;
  for (int i = 0; i < s->ngpu; ++i) {
    laplace_dev_block_fetch(&s->g[i].d, (double *)out + offset);
    offset += (size_t)s->g[i].d.blk.nz * s->g[i].d.blk.nx * s->g[i].d.blk.ny;
  }
}

static const kit_halo *mt_halo(void *st) {
  return &((mt_state *)st)->halo;
}

static void mt_teardown(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    KIT_CUDA_CHECK(cudaSetDevice(g->d.device));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->boundary));
    KIT_CUDA_CHECK(cudaStreamDestroy(g->bulk));
    KIT_CUDA_CHECK(cudaEventDestroy(g->boundary_done));
    KIT_CUDA_CHECK(cudaEventDestroy(g->bulk_done));
    for (int side = 0; side < 2; ++side) {
      KIT_CUDA_CHECK(cudaStreamDestroy(g->send[side]));
      KIT_CUDA_CHECK(cudaStreamDestroy(g->recv[side]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->sent[side]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->received[side]));
      if (g->stage[side]) kit_host_free(g->stage[side], 1);
      if (g->inbox[side]) kit_host_free(g->inbox[side], 1);
    }
    laplace_dev_block_free(&g->d);
  }
  kit_halo_free(&s->halo);
  free(s);
}

const laplace_variant laplace_multi_thread = {
    .name = "multi-thread",
    .summary =
        "one process drives all its GPUs: a main, a send and a receive thread per GPU, P2P or staged copies",
    .needs_gpu = 1,
    .setup = mt_setup,
    .reset = mt_reset,
    .run = mt_run,
    .fetch = mt_fetch,
    .halo = mt_halo,
    .teardown = mt_teardown,
    /* Its end GPUs' threads call MPI themselves: MPI_THREAD_MULTIPLE over several ranks. */
    .gpus_max = LAPLACE_MT_MAX_GPUS,
    .thread_level = MPI_THREAD_MULTIPLE,
};
