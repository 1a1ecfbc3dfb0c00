/* hybrid.c: the `hybrid` variant. One rank per GPU, and the rank's CPU cores take the top
 * `cpu_fraction` of its slab (whole granules: pairs of slices for the sliced layout), the
 * GPU the rest (Sourouri Paper II's CPU+GPU split, applied to Bernaschi Sec. 3.1's
 * z-decomposition). The GPU part and the CPU part are neighbours inside the rank and
 * exchange their boundary parts with cudaMemcpyAsync through pinned host memory; the GPU
 * part's lower end and the CPU part's upper end talk MPI with the neighbouring ranks.
 * Each half-sweep:
 *   GPU  (boundary stream): boundary planes, their changed parts to the CPU's ghost plane
 *        and to the MPI staging buffer; (bulk stream): the bulk;
 *   CPU  (all OpenMP threads, the master having queued the GPU work first): boundary
 *        planes, MPI sends and receives, the bulk, then the changed bottom part to the GPU.
 * With a share that gives the CPU no granule, the driver runs the two-stream variant.
 *   mpiexec -n 2 build/bin/ising --variant hybrid --cpu-fraction 0.05 --size 256 */
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

typedef struct hybrid_state {
  ising_ctx c;
  ising_dev_block d;  /* the GPU part: the lower planes of the slab */
  ising_block cb;     /* the CPU part: the upper planes */
  int8_t *cspin;      /* CPU part's spins with ghosts (pinned: async copies) */
  uint8_t *ccoupling; /* CPU part's couplings */
  cudaStream_t boundary, bulk;
  cudaEvent_t ghosts_in, bulk_done;
  kit_halo halo; /* side DOWN: the GPU part's MPI; side UP: the CPU part's */
  ising_plan gplan[2], cplan[2];
  uint32_t sweep;
} hybrid_state;

static void *hy_setup(const void *arg) {
  const ising_ctx *c = arg;
  hybrid_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->sweep = (uint32_t)c->p->start_sweep;
  const int granule = ising_plane_granule(c->p);
  const int nc = kit_cpu_planes(c->blk.n / granule, c->cpu_fraction) * granule, ng = c->blk.n - nc;
  const ising_block gb = ising_block_make(c->p, c->blk.k0, ng);
  s->cb = ising_block_make(c->p, c->blk.k0 + ng, nc);
  ising_dev_block_init(&s->d, c->p, &gb, c->env->device);
  s->cspin = kit_host_alloc((size_t)(nc + 2) * s->cb.plane_stride, 1);
  s->ccoupling = kit_malloc((size_t)nc * s->cb.plane_stride, "CPU part couplings");
  ising_fill(c->p, &s->cb, s->cspin, s->ccoupling, c->env->threads);
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->ghosts_in, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  /* Staging for the GPU part's MPI side only; the CPU part sends from its own array. */
  kit_halo_init_typed(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.part_stride,
                      MPI_INT8_T, 1, 1, 1);
  for (int col = 0; col < 2; ++col) {
    s->gplan[col] = ising_make_plan(&gb, col);
    s->cplan[col] = ising_make_plan(&s->cb, col);
  }
  ising_prime_inboxes(s->halo.recv, c->blk.part_stride);
  return s;
}

static void hy_reset(void *st) {
  hybrid_state *s = st;
  ising_dev_block_reset(&s->d);
  ising_prime_inboxes(s->halo.recv, s->c.blk.part_stride);
  ising_fill(s->c.p, &s->cb, s->cspin, s->ccoupling, s->c.env->threads);
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void hy_half_sweep(hybrid_state *s, int col, int first) {
  ising_dev_block *d = &s->d;
  const ising_block *cb = &s->cb;
  const ising_plan *gp = &s->gplan[col], *cp = &s->cplan[col];
  const size_t bytes = cb->part_stride;
  const int threads = s->c.env->threads, stale = kit_fault("stale-halo");
  const int part = gp->part;

  /* GPU: boundary first, its changed parts out; the bulk alongside. */
  if (!first) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
  int r = kit_gpu_range_begin("gpu_boundary", s->boundary);
  launch_ising_half_sweep(&d->blk, &d->rules, d->spin, d->coupling, col, s->sweep, gp->boundary, s->boundary);
  kit_gpu_range_end(r, s->boundary);
  if (gp->send_plane[KIT_UP] >= 0 && !stale) /* to the CPU part's ghost plane */
    KIT_CUDA_CHECK(cudaMemcpyAsync(s->cspin + ising_part_offset(cb, cp->recv_plane[KIT_DOWN], part),
                                   ising_dev_part(d, gp->send_plane[KIT_UP], part), bytes,
                                   cudaMemcpyDeviceToHost, s->boundary));
  if (gp->send_plane[KIT_DOWN] >= 0) /* to the rank below */
    KIT_CUDA_CHECK(cudaMemcpyAsync(s->halo.send[KIT_DOWN], ising_dev_part(d, gp->send_plane[KIT_DOWN], part),
                                   bytes, cudaMemcpyDeviceToHost, s->boundary));
  if (!first) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->ghosts_in, 0));
  r = kit_gpu_range_begin("gpu_bulk", s->bulk);
  launch_ising_half_sweep(&d->blk, &d->rules, d->spin, d->coupling, col, s->sweep, gp->bulk, s->bulk);
  kit_gpu_range_end(r, s->bulk);
  KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

  /* CPU: receives first, then the boundary planes and their sends, then the bulk. */
  if (gp->recv_plane[KIT_DOWN] >= 0) kit_halo_irecv(&s->halo, KIT_DOWN, s->halo.recv[KIT_DOWN]);
  if (cp->recv_plane[KIT_UP] >= 0)
    kit_halo_irecv(&s->halo, KIT_UP, s->cspin + ising_part_offset(cb, cp->recv_plane[KIT_UP], part));
  KIT_RANGE_PUSH("cpu_boundary");
  ising_sweep_host(s->c.p, cb, s->cspin, s->ccoupling, col, s->sweep, cp->boundary, threads);
  KIT_RANGE_POP();
  if (cp->send_plane[KIT_UP] >= 0)
    kit_halo_isend(&s->halo, KIT_UP, s->cspin + ising_part_offset(cb, cp->send_plane[KIT_UP], part));
  KIT_RANGE_PUSH("wait_gpu_boundary");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_RANGE_POP();
  if (gp->send_plane[KIT_DOWN] >= 0) kit_halo_isend(&s->halo, KIT_DOWN, s->halo.send[KIT_DOWN]);
  KIT_RANGE_PUSH("cpu_bulk");
  ising_sweep_host(s->c.p, cb, s->cspin, s->ccoupling, col, s->sweep, cp->bulk, threads);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("mpi_wait");
  kit_halo_waitall(&s->halo);
  KIT_RANGE_POP();

  /* Ghost parts into the GPU: from the rank below, and the CPU part's changed bottom. */
  r = kit_gpu_range_begin("h2d", s->boundary);
  if (gp->recv_plane[KIT_DOWN] >= 0)
    KIT_CUDA_CHECK(cudaMemcpyAsync(ising_dev_part(d, gp->recv_plane[KIT_DOWN], part), s->halo.recv[KIT_DOWN],
                                   bytes, cudaMemcpyHostToDevice, s->boundary));
  if (cp->send_plane[KIT_DOWN] >= 0 && !stale)
    KIT_CUDA_CHECK(cudaMemcpyAsync(ising_dev_part(d, gp->recv_plane[KIT_UP], part),
                                   s->cspin + ising_part_offset(cb, cp->send_plane[KIT_DOWN], part), bytes,
                                   cudaMemcpyHostToDevice, s->boundary));
  kit_gpu_range_end(r, s->boundary);
  KIT_CUDA_CHECK(cudaEventRecord(s->ghosts_in, s->boundary));
  /* The CPU updates the planes these copies read in the next half-sweep but one, and the
   * receive buffer is reposted next half-sweep: let the copies finish. */
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
}

static void hy_run(void *st, int sweeps) {
  hybrid_state *s = st;
  for (int t = 0; t < sweeps; ++t, ++s->sweep) {
    KIT_RANGE_PUSH("sweep");
    for (int col = 0; col < 2; ++col) hy_half_sweep(s, col, t == 0 && col == 0);
    KIT_RANGE_POP();
  }
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
}

static void hy_fetch(void *st, void *dst) {
  int8_t *out = dst; /* layout order, local planes 1..n */
  hybrid_state *s = st;
  ising_dev_block_fetch(&s->d, out);
  memcpy(out + (size_t)s->d.blk.n * s->d.blk.plane_stride, s->cspin + s->cb.plane_stride,
         (size_t)s->cb.n * s->cb.plane_stride);
}

static const kit_halo *hy_halo(void *st) {
  return &((hybrid_state *)st)->halo;
}

static void hy_teardown(void *st) {
  hybrid_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->ghosts_in));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  kit_halo_free(&s->halo);
  kit_host_free(s->cspin, 1);
  free(s->ccoupling);
  ising_dev_block_free(&s->d);
  free(s);
}

const ising_variant ising_hybrid = {
    .name = "hybrid",
    .summary =
        "one rank per GPU; the CPU cores take the top share of the slab (--cpu-fraction), MPI at both ends",
    .needs_gpu = 1,
    .setup = hy_setup,
    .reset = hy_reset,
    .run = hy_run,
    .fetch = hy_fetch,
    .halo = hy_halo,
    .teardown = hy_teardown,
    .hybrid = 1,
};
