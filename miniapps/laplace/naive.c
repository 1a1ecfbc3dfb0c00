/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: compute
 * every plane, then copy the two boundary planes device-to-host, exchange them with MPI,
 * copy the received ghost planes host-to-device. The GPU idles during every copy and
 * message (Bernaschi et al. Sec. 2, the baseline that Fig. 2 improves on).
 *   mpiexec -n 2 build/bin/laplace --variant naive --size 256 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  laplace_ctx c;
  laplace_dev_block d;
  cudaStream_t stream;
  kit_halo halo; /* pinned staging buffers for the planes */
} naive_state;

static void *naive_setup(const void *arg) {
  const laplace_ctx *c = arg;
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
  laplace_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.sz, 1, 1);
  return s;
}

static void naive_reset(void *st) { laplace_dev_block_reset(&((naive_state *)st)->d); }

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  laplace_dev_block *d = &s->d;
  const laplace_block *b = &d->blk;
  const laplace_params *p = s->c.p;
  const size_t plane = b->sz * sizeof(double);
  /* Local plane each side sends (first/last interior) and receives into (ghosts). */
  const int send_plane[2] = {1, b->nz}, ghost_plane[2] = {0, b->nz + 1};
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    int g = kit_gpu_range_begin("gpu_compute", s->stream);
    launch_laplace_sweep(b, d->u, d->un, 1, b->nz + 1, p->alpha, p->beta, s->stream);
    kit_gpu_range_end(g, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("d2h");
    for (int side = 0; side < 2; ++side)
      if (s->halo.send[side])
        KIT_CUDA_CHECK(cudaMemcpyAsync(s->halo.send[side], laplace_dev_plane(d, d->un, send_plane[side]),
                                       plane, cudaMemcpyDeviceToHost, s->stream));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("mpi");
    for (int side = 0; side < 2; ++side) kit_halo_irecv(&s->halo, side, s->halo.recv[side]);
    for (int side = 0; side < 2; ++side) kit_halo_isend(&s->halo, side, s->halo.send[side]);
    kit_halo_waitall(&s->halo);
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("h2d");
    for (int side = 0; side < 2; ++side)
      if (s->halo.recv[side])
        KIT_CUDA_CHECK(cudaMemcpyAsync(laplace_dev_plane(d, d->un, ghost_plane[side]), s->halo.recv[side],
                                       plane, cudaMemcpyHostToDevice, s->stream));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    laplace_dev_swap(d);
    KIT_RANGE_POP();
  }
}

static void naive_fetch(void *st, void *out) { laplace_dev_block_fetch(&((naive_state *)st)->d, out); }
static const kit_halo *naive_halo(void *st) { return &((naive_state *)st)->halo; }

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  kit_halo_free(&s->halo);
  laplace_dev_block_free(&s->d);
  free(s);
}

const laplace_variant laplace_naive = {
    .name = "naive",
    .summary = "one rank per GPU, one stream: compute all, then D2H, MPI, H2D (no overlap)",
    .needs_gpu = 1,
    .setup = naive_setup,
    .reset = naive_reset,
    .run = naive_run,
    .fetch = naive_fetch,
    .halo = naive_halo,
    .teardown = naive_teardown,
};
