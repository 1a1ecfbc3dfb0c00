/* multi_thread.c: the `multi-thread` variant. One process drives every GPU it may use
 * (--gpus), one OpenMP thread per GPU, each GPU holding a sub-slab of the process's planes
 * (Sourouri Paper I's thread-per-GPU scheme on Risso's z-decomposition, Sec. 4.2-4.3). Each
 * step: the two boundary planes first (boundary stream), then the five populations that leave
 * the sub-slab through each face are copied straight into the neighbouring GPU's ghost plane
 * with cudaMemcpyPeerAsync (peer-to-peer where the hardware allows; the driver stages through
 * host memory where not), while the inner planes update on the bulk stream. MPI only at the
 * ends of the process's slab, by the threads of the end GPUs (MPI_THREAD_MULTIPLE).
 * Lattices are chosen by the parity of the step (no pointer swaps another thread could miss),
 * and events of the previous step, made visible to every thread by one barrier per step,
 * order the copies: a copy into a neighbour's ghost plane waits until that neighbour's
 * previous boundary update, which read the same lattice, is done.
 *   build/bin/lbm --variant multi-thread --gpus 2 --size 128,128,256 */
#include <omp.h>
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

typedef struct mt_gpu {
  lbm_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done[2], bulk_done[2]; /* by step parity */
  cudaEvent_t sent[2][2];                     /* [parity][side]: copies into the neighbour done */
  int local_nbr[2];                           /* neighbouring GPU of this process, or -1 */
  double *stage[2], *inbox[2];                /* pinned MPI buffers at the process's ends */
} mt_gpu;

typedef struct mt_state {
  lbm_ctx c;
  int ngpu;
  mt_gpu g[LBM_MT_MAX_GPUS];
  kit_halo halo;
} mt_state;

/* The lattice read (cur) and written (nxt) in step t: f, fn by parity. */
static double *cur(const mt_gpu *g, int t) {
  return t % 2 ? g->d.fn : g->d.f;
}
static double *nxt(const mt_gpu *g, int t) {
  return t % 2 ? g->d.f : g->d.fn;
}

/* Receive buffers start with the initial ghost populations (as cpu.c), so a message that
 * never arrives leaves the ghosts stale rather than zero. */
static void init_inboxes(mt_gpu *g) {
  lbm_dev_block *d = &g->d;
  if (g->inbox[KIT_DOWN]) lbm_dev_pack_async(d, d->init, 0, 1, g->inbox[KIT_DOWN], g->boundary);
  if (g->inbox[KIT_UP]) lbm_dev_pack_async(d, d->init, d->blk.nz + 1, 0, g->inbox[KIT_UP], g->boundary);
  KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
}

static void *mt_setup(const void *arg) {
  const lbm_ctx *c = arg;
  mt_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->ngpu = c->gpus;
  const size_t count = (size_t)LBM_ZQ * c->blk.plane;
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], count, 0, 1);
  const int visible = c->env->gpus_visible;
  for (int i = 0; i < s->ngpu; ++i) {
    mt_gpu *g = &s->g[i];
    const kit_block part = kit_block_split(c->blk.nz, s->ngpu, i);
    const lbm_block b = lbm_block_make(c->blk.nx, c->blk.ny, c->blk.k0 + part.begin, part.count);
    /* Consecutive devices of this process's share of the node; more sub-slabs than devices
     * wrap around, which lets one GPU run the multi-GPU code path in tests. */
    lbm_dev_block_init(&g->d, c->p, &b, (c->env->local_rank * s->ngpu + i) % visible);
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->boundary, cudaStreamNonBlocking));
    KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&g->bulk, cudaStreamNonBlocking));
    for (int par = 0; par < 2; ++par) {
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->boundary_done[par], cudaEventDisableTiming));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->bulk_done[par], cudaEventDisableTiming));
      for (int side = 0; side < 2; ++side)
        KIT_CUDA_CHECK(cudaEventCreateWithFlags(&g->sent[par][side], cudaEventDisableTiming));
    }
    g->local_nbr[KIT_DOWN] = i > 0 ? i - 1 : -1;
    g->local_nbr[KIT_UP] = i < s->ngpu - 1 ? i + 1 : -1;
    for (int side = 0; side < 2; ++side) {
      const int remote = g->local_nbr[side] < 0 && s->halo.nbr[side] != MPI_PROC_NULL;
      g->stage[side] = remote ? kit_host_alloc(count * sizeof(double), 1) : NULL;
      g->inbox[side] = remote ? kit_host_alloc(count * sizeof(double), 1) : NULL;
      /* Direct access to the neighbour where the hardware allows it (both ways). */
      if (g->local_nbr[side] >= 0)
        (void)kit_enable_peer(g->d.device, (c->env->local_rank * s->ngpu + g->local_nbr[side]) % visible);
    }
    init_inboxes(g);
  }
  return s;
}

static void mt_reset(void *st) {
  mt_state *s = st;
  for (int i = 0; i < s->ngpu; ++i) {
    lbm_dev_block_reset(&s->g[i].d);
    init_inboxes(&s->g[i]);
  }
}

/* The five populations of plane `from` of lattice `src` on GPU a that move towards side
 * `side`, into plane `to` of lattice `dst` on GPU b, on `stream`. */
static void peer_faces(const mt_gpu *a, const double *src, int from, const mt_gpu *b, double *dst, int to,
                       int up, cudaStream_t stream) {
  const size_t plane = a->d.blk.plane;
  for (int m = 0; m < LBM_ZQ; ++m) {
    const int q = lbm_zdir(up, m);
    KIT_CUDA_CHECK(cudaMemcpyPeerAsync(dst + (size_t)q * b->d.blk.qs + (size_t)to * plane, b->d.device,
                                       src + (size_t)q * a->d.blk.qs + (size_t)from * plane, a->d.device,
                                       plane * sizeof(double), stream));
  }
}

static void mt_step(mt_state *s, int i, int t, int first) {
  mt_gpu *g = &s->g[i];
  lbm_dev_block *d = &g->d;
  const lbm_params *p = s->c.p;
  const int nz = d->blk.nz, now = t % 2, prev = 1 - now;
  const double Fx = p->force[0], Fy = p->force[1], Fz = p->force[2];
  double *f = cur(g, t), *fn = nxt(g, t);
  if (!first) {
    /* The boundary update writes planes the previous bulk read and reads the ghost planes
     * neighbours filled during the previous step. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, g->bulk_done[prev], 0));
    for (int side = 0; side < 2; ++side)
      if (g->local_nbr[side] >= 0)
        KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, s->g[g->local_nbr[side]].sent[prev][1 - side], 0));
    /* The bulk writes planes the previous boundary update read, and reads its output. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(g->bulk, g->boundary_done[prev], 0));
  }
  int r = kit_gpu_range_begin("boundary", g->boundary);
  launch_lbm_update(&d->geom, f, fn, 1, 2, p->omega, Fx, Fy, Fz, g->boundary);
  if (nz > 1) launch_lbm_update(&d->geom, f, fn, nz, nz + 1, p->omega, Fx, Fy, Fz, g->boundary);
  kit_gpu_range_end(r, g->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(g->boundary_done[now], g->boundary));
  r = kit_gpu_range_begin("bulk", g->bulk);
  launch_lbm_update(&d->geom, f, fn, 2, nz, p->omega, Fx, Fy, Fz, g->bulk);
  kit_gpu_range_end(r, g->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(g->bulk_done[now], g->bulk));

  /* Within the process: into the neighbour's next lattice, ghost plane on our side. */
  const int stale = kit_fault("stale-halo");
  for (int side = 0; side < 2; ++side) {
    const int n = g->local_nbr[side];
    if (n >= 0 && !stale) {
      mt_gpu *o = &s->g[n];
      /* The neighbour's previous boundary update read the lattice we write into. */
      if (!first) KIT_CUDA_CHECK(cudaStreamWaitEvent(g->boundary, o->boundary_done[prev], 0));
      if (side == KIT_DOWN)
        peer_faces(g, fn, 1, o, nxt(o, t), o->d.blk.nz + 1, 0, g->boundary);
      else
        peer_faces(g, fn, nz, o, nxt(o, t), 0, 1, g->boundary);
    }
    KIT_CUDA_CHECK(cudaEventRecord(g->sent[now][side], g->boundary));
  }

  /* At the process's ends: through pinned host memory and MPI. */
  if (!g->stage[KIT_DOWN] && !g->stage[KIT_UP]) return;
  if (g->stage[KIT_DOWN]) lbm_dev_pack_async(d, fn, 1, 0, g->stage[KIT_DOWN], g->boundary);
  if (g->stage[KIT_UP]) lbm_dev_pack_async(d, fn, nz, 1, g->stage[KIT_UP], g->boundary);
  KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
  for (int side = 0; side < 2; ++side)
    if (g->inbox[side]) kit_halo_irecv(&s->halo, side, g->inbox[side]);
  for (int side = 0; side < 2; ++side)
    if (g->stage[side]) kit_halo_isend(&s->halo, side, g->stage[side]);
  for (int side = 0; side < 2; ++side)
    if (g->stage[side]) kit_halo_wait(&s->halo, side);
  if (g->inbox[KIT_DOWN]) lbm_dev_unpack_async(d, fn, 0, 1, g->inbox[KIT_DOWN], g->boundary);
  if (g->inbox[KIT_UP]) lbm_dev_unpack_async(d, fn, nz + 1, 0, g->inbox[KIT_UP], g->boundary);
  /* The inboxes are reused next step. */
  KIT_CUDA_CHECK(cudaStreamSynchronize(g->boundary));
}

static void mt_run(void *st, int steps) {
  mt_state *s = st;
  const int ngpu = s->ngpu;
#pragma omp parallel num_threads(ngpu)
  {
    if (omp_get_num_threads() != ngpu)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "multi-thread needs %d OpenMP threads (one per GPU), got %d", ngpu, omp_get_num_threads());
    const int i = omp_get_thread_num();
    KIT_CUDA_CHECK(cudaSetDevice(s->g[i].d.device));
    for (int t = 0; t < steps; ++t) {
      if (i == 0) KIT_RANGE_PUSH("step");
        /* Every event of step t - 1 is recorded before anyone waits on it. */
#pragma omp barrier
      mt_step(s, i, t, t == 0);
      if (i == 0) KIT_RANGE_POP();
    }
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->g[i].boundary));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->g[i].bulk));
    /* A neighbour may still be in its last step, reading our lattices by parity. */
#pragma omp barrier
    if (steps % 2) lbm_dev_swap(&s->g[i].d); /* f is the current lattice again */
  }
}

static void mt_fetch(void *st, void *out) {
  double *macro = out; /* rho, ux, uy, uz per cell */
  mt_state *s = st;
  size_t offset = 0;
  for (int i = 0; i < s->ngpu; ++i) {
    lbm_dev_block_fetch(&s->g[i].d, macro + offset);
    offset += 4 * s->g[i].d.blk.plane * (size_t)s->g[i].d.blk.nz;
  }
}

static void mt_fetch_lattice(void *st, double *out) {
  mt_state *s = st;
  size_t offset = 0;
  for (int i = 0; i < s->ngpu; ++i) {
    lbm_dev_block_fetch_lattice(&s->g[i].d, out + offset);
    offset += (size_t)LBM_Q * s->g[i].d.blk.plane * (size_t)s->g[i].d.blk.nz;
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
    lbm_dev_block_free(&g->d);
  }
  kit_halo_free(&s->halo);
  free(s);
}

const lbm_variant lbm_multi_thread = {
    .base =
        {
            .name = "multi-thread",
            .summary = "one process drives all its GPUs, a thread per GPU, "
                       "peer copies of the face populations, MPI at the ends",
            .needs_gpu = 1,
            .setup = mt_setup,
            .reset = mt_reset,
            .run = mt_run,
            .fetch = mt_fetch,
            .halo = mt_halo,
            .teardown = mt_teardown,
            .gpus_max = LBM_MT_MAX_GPUS,
            .thread_level = MPI_THREAD_MULTIPLE,
        },
    .fetch_lattice = mt_fetch_lattice,
};
