/* multi_thread.c: the `multi-thread` variant. One process drives every GPU it may use
 * (--gpus), one OpenMP thread per GPU, each GPU holding a sub-slab of the process's planes
 * (Sourouri Paper I's thread-per-GPU scheme; Bernaschi et al. Sec. 3.1's z-decomposition).
 * Each half-sweep: the boundary planes of the colour first (boundary stream), their changed
 * part copied straight into the neighbouring GPU's ghost plane with cudaMemcpyPeerAsync
 * (peer-to-peer where cudaDeviceCanAccessPeer allows; the driver stages through host memory
 * where not), while the bulk updates on the other stream. MPI only at the ends of the
 * process's slab, by the threads of the end GPUs (needs MPI_THREAD_MULTIPLE); a process alone
 * wraps its slab around by peer copies between its end GPUs.
 * Unlike laplace's multi-thread (a field pair per GPU, three threads per GPU), spins are
 * updated in place, so a copy into a neighbour's ghost must wait until that neighbour's
 * previous half-sweep has read it: events recorded in the previous half-sweep, made visible
 * to every thread by one barrier per half-sweep, order it. Events alternate by the parity
 * of the half-sweep so a wait never meets a newer record.
 *   build/bin/ising --variant multi-thread --gpus 2 --size 256 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

typedef struct mt_gpu {
  ising_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done[2]; /* by half-sweep parity: boundary kernel done (it read the ghosts) */
  cudaEvent_t bulk_done[2];     /* bulk done */
  cudaEvent_t sent[2][2];       /* [parity][side]: copy into the neighbour's ghost done */
  int local_nbr[2];             /* neighbouring GPU of this process on each side, or -1 */
  ising_plan plan[2];
  int8_t *stage[2], *inbox[2]; /* pinned MPI buffers at the process's ends */
} mt_gpu;

typedef struct mt_state {
  ising_ctx c;
  int ngpu;
  mt_gpu g[ISING_MT_MAX_GPUS];
  kit_halo halo; /* the process's MPI neighbours */
  uint32_t sweep;
} mt_state;

/* The MPI inboxes at the process's ends (ising_prime_inboxes). */
static void prime(mt_gpu *g) {
  void *const in[2] = {g->inbox[0], g->inbox[1]};
  ising_prime_inboxes(in, ising_message_bytes(g->d.p, &g->d.blk));
}

static void *mt_setup(const void *arg) {
  const ising_ctx *c = arg;
  mt_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->sweep = (uint32_t)c->p->start_sweep;
  s->ngpu = c->gpus;
  const int granule = ising_plane_granule(c->p);
  kit_halo_init_typed(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP],
                      ising_message_bytes(c->p, &c->blk), MPI_INT8_T, 1, 0, 1);
  const int visible = c->env->gpus_visible;
  for (int i = 0; i < s->ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    const kit_block part = kit_block_split(c->blk.n / granule, s->ngpu, i);
    const ising_block b = ising_block_make(c->p, c->blk.k0 + part.begin * granule, part.count * granule);
    /* Consecutive devices of this process's share of the node; more sub-slabs than devices
     * wrap around, which lets one GPU run the multi-GPU code path in tests. */
    ising_dev_block_init(&g->d, c->p, &b, (c->env->local_rank * s->ngpu + i) % visible);
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->boundary, cudaStreamNonBlocking));
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->bulk, cudaStreamNonBlocking));
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->boundary_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->bulk_done[par], cudaEventDisableTiming));
      for (int side = 0; side < 2; ++side)
        KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->sent[par][side], cudaEventDisableTiming));
    }
    /* A process that is its own neighbour (one rank: the periodic z wraps onto itself) links
     * its end GPUs to each other, copying as inner neighbours do, instead of sending MPI
     * messages to itself from two threads at once (which hangs MPICH 4.0's ch4:ucx). */
    const int alone = c->nbr[KIT_DOWN] == c->env->rank && c->nbr[KIT_UP] == c->env->rank;
    g->local_nbr[KIT_DOWN] = i > 0 ? i - 1 : (alone ? s->ngpu - 1 : -1);
    g->local_nbr[KIT_UP] = i < s->ngpu - 1 ? i + 1 : (alone ? 0 : -1);
    for (int col = 0; col < 2; ++col) g->plan[col] = ising_make_plan(&b, col);
    for (int side = 0; side < 2; ++side) {
      const int remote = g->local_nbr[side] < 0;
      g->stage[side] = remote ? kit_host_alloc(ising_message_bytes(c->p, &b), 1) : NULL;
      g->inbox[side] = remote ? kit_host_alloc(ising_message_bytes(c->p, &b), 1) : NULL;
      /* Direct access to the neighbour where the hardware allows it (both ways). */
      if (!remote)
        (void)kit_enable_peer(g->d.device, (c->env->local_rank * s->ngpu + g->local_nbr[side]) % visible);
    }
    prime(g);
  }
  return s;
}

static void mt_reset(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ngpu; ++i) {
    ising_dev_block_reset(&s->g[i].d);
    prime(&s->g[i]);
  }
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

/* Half-sweep number h (colour h % 2 of sweep t) on GPU i. `first`: no earlier half-sweep
 * in this run call (the previous call ended with every stream drained). */
static void mt_half_sweep(mt_state *s, int i, uint32_t t, int col, int h, int first) {
  mt_gpu *g = &s->g[i];
  ising_dev_block *d = &g->d;
  const ising_plan *pl = &g->plan[col];
  const int now = h % 2, prev = 1 - now;
  const size_t bytes = ising_message_bytes(d->p, &d->blk);
  if (!first) {
    /* The boundary kernel reads the other colour everywhere: the previous bulk's planes and
     * the ghosts that neighbours copied in during the previous half-sweep. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->bulk_done[prev], 0));
    for (int side = 0; side < 2; ++side)
      if (g->local_nbr[side] >= 0)
        KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, s->g[g->local_nbr[side]].sent[prev][1 - side], 0));
    /* The bulk reads the previous half-sweep's boundary planes. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->bulk, g->boundary_done[prev], 0));
  }
  int r = kit_gpu_range_begin("boundary", g->boundary);
  ising_dev_half_sweep(d, col, t, pl->boundary, g->boundary);
  kit_gpu_range_end(r, g->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(g->boundary_done[now], g->boundary));
  r = kit_gpu_range_begin("bulk", g->bulk);
  ising_dev_half_sweep(d, col, t, pl->bulk, g->bulk);
  kit_gpu_range_end(r, g->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(g->bulk_done[now], g->bulk));

  /* Within the process: straight into the neighbour's ghost plane. */
  const int stale = kit_fault("stale-halo");
  for (int side = 0; side < 2; ++side) {
    const int n = g->local_nbr[side];
    if (n >= 0 && pl->send_plane[side] >= 0 && !stale) {
      mt_gpu *o = &s->g[n];
      /* The neighbour's previous boundary kernel read the ghost we overwrite. */
      if (!first) KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, o->boundary_done[prev], 0));
      const ising_plan *opl = &o->plan[col];
      KIT_CUDA_CHECK(cudaMemcpyPeerAsync(ising_dev_part(&o->d, opl->recv_plane[1 - side], opl->part),
                                         o->d.device, ising_dev_part(d, pl->send_plane[side], pl->part),
                                         d->device, bytes, g->boundary));
    }
    KIT_CUDA_CHECK(cudaEventRecord(g->sent[now][side], g->boundary));
  }

  /* At the process's ends: through pinned host memory and MPI. */
  int mpi = 0;
  for (int side = 0; side < 2; ++side)
    if (g->local_nbr[side] < 0) {
      if (pl->send_plane[side] >= 0)
        KIT_CUDA_CHECK(cudaMemcpyAsync(g->stage[side], ising_dev_part(d, pl->send_plane[side], pl->part),
                                       bytes, cudaMemcpyDeviceToHost, g->boundary));
      mpi |= pl->send_plane[side] >= 0 || pl->recv_plane[side] >= 0;
    }
  if (!mpi) return;
  KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
  for (int side = 0; side < 2; ++side)
    if (g->local_nbr[side] < 0 && pl->recv_plane[side] >= 0) kit_halo_irecv(&s->halo, side, g->inbox[side]);
  for (int side = 0; side < 2; ++side)
    if (g->local_nbr[side] < 0 && pl->send_plane[side] >= 0) kit_halo_isend(&s->halo, side, g->stage[side]);
  for (int side = 0; side < 2; ++side)
    if (g->local_nbr[side] < 0) kit_halo_wait(&s->halo, side);
  for (int side = 0; side < 2; ++side)
    if (g->local_nbr[side] < 0 && pl->recv_plane[side] >= 0)
      KIT_CUDA_CHECK(cudaMemcpyAsync(ising_dev_part(d, pl->recv_plane[side], pl->part), g->inbox[side], bytes,
                                     cudaMemcpyHostToDevice, g->boundary));
  /* The inbox is reused next time: the copy out of it must be done. */
  KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
}

static void mt_run(void *st, int sweeps) {
  mt_state *s = st;
  const int ngpu = s->ngpu;
  const uint32_t t0 = s->sweep;
#pragma omp parallel num_threads(ngpu)
  {
    /* Every GPU needs its thread: a smaller team would leave sub-slabs idle and the
     * answer silently wrong. */
    if (omp_get_num_threads() != ngpu)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "multi-thread needs %d OpenMP threads (one per GPU), got %d", ngpu, omp_get_num_threads());
    const int i = omp_get_thread_num();
    KIT_CUDA_CHECK(cudaSetDevice(s->g[i].d.device));
    for (int t = 0; t < sweeps; ++t) {
      if (i == 0) KIT_RANGE_PUSH("sweep");
      for (int col = 0; col < 2; ++col) {
        const int h = 2 * t + col;
        /* Every event of half-sweep h - 1 is recorded before anyone waits on it. */
#pragma omp barrier
        mt_half_sweep(s, i, t0 + (uint32_t)t, col, h, h == 0);
      }
      if (i == 0) KIT_RANGE_POP();
    }
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->g[i].boundary));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->g[i].bulk));
  }
  s->sweep = t0 + (uint32_t)sweeps;
}

static void mt_fetch(void *st, void *dst) {
  int8_t *out = dst; /* layout order, local planes 1..n */
  mt_state *s = st;
  size_t offset = 0;
  for (int i = 0; i < s->ngpu; ++i) {
    ising_dev_block_fetch(&s->g[i].d, out + offset);
    offset += (size_t)s->g[i].d.blk.n * s->g[i].d.blk.plane_stride;
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
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventDestroy(g->boundary_done[par]));
      KIT_CUDA_CHECK(cudaEventDestroy(g->bulk_done[par]));
      for (int side = 0; side < 2; ++side) KIT_CUDA_CHECK(cudaEventDestroy(g->sent[par][side]));
    }
    for (int side = 0; side < 2; ++side) {
      if (g->stage[side]) kit_host_free(g->stage[side], 1);
      if (g->inbox[side]) kit_host_free(g->inbox[side], 1);
    }
    ising_dev_block_free(&g->d);
  }
  kit_halo_free(&s->halo);
  free(s);
}

const ising_variant ising_multi_thread = {
    .name = "multi-thread",
    .summary = "one process drives all its GPUs, a thread per GPU, peer copies between them, MPI at the ends",
    .needs_gpu = 1,
    .setup = mt_setup,
    .reset = mt_reset,
    .run = mt_run,
    .fetch = mt_fetch,
    .halo = mt_halo,
    .teardown = mt_teardown,
    /* Its end GPUs' threads call MPI themselves (periodic: also on one rank). */
    .gpus_max = ISING_MT_MAX_GPUS,
    .thread_level = MPI_THREAD_MULTIPLE,
};
