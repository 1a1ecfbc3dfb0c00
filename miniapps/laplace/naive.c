/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: compute
 * every point, then exchange the faces (a z-slab's two boundary planes; on a process grid,
 * --procs PxQxR, up to six faces, the x and y ones packed by a kernel) over --comm's
 * transport (host: device-to-host, MPI, host-to-device; ipc, nccl, nvshmem: device to
 * device), and wait. The GPU idles during every copy and message (Bernaschi et al. Sec. 2,
 * the baseline that Fig. 2 improves on).
 *   mpiexec -n 2 build/bin/laplace --variant naive --size 256
 *   mpiexec -n 4 build/bin/laplace --variant naive --size 256 --procs 2x2x1 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  laplace_ctx c;
  laplace_dev_block d;
  cudaStream_t stream;
  laplace_dev_halo h; /* the faces' exchange (--comm, --procs) */
} naive_state;

static void *naive_setup(const void *arg) {
  const laplace_ctx *c = arg;
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
  laplace_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  laplace_dev_halo_init(&s->h, c, &s->d);
  return s;
}

static void naive_reset(void *st) {
  naive_state *s = st;
  laplace_dev_block_reset(&s->d);
  laplace_dev_halo_reset(&s->h, &s->d);
}

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  laplace_dev_block *d = &s->d;
  const laplace_params *p = s->c.p;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    const int g = kit_gpu_range_begin("gpu_compute", s->stream);
    launch_laplace_sweep(&d->blk, d->u, d->un, 1, d->blk.nz + 1, p->alpha, p->beta, s->stream);
    kit_gpu_range_end(g, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("exchange");
    laplace_dev_halo_run(&s->h, d, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    laplace_dev_swap(d);
    KIT_RANGE_POP();
  }
}

static void naive_fetch(void *st, void *out) {
  laplace_dev_block_fetch(&((naive_state *)st)->d, out);
}
static const kit_halo *naive_halo(void *st) {
  return &((naive_state *)st)->h.x.halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  laplace_dev_halo_free(&s->h);
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
