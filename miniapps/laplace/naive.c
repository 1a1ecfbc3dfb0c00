/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: compute
 * every plane, then exchange the two boundary planes (--comm host: device-to-host, MPI,
 * host-to-device; nccl: device to device), and wait. The GPU idles during every copy and
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
  kit_exchange x; /* the planes' transport (--comm) */
} naive_state;

static void *naive_setup(const void *arg) {
  const laplace_ctx *c = arg;
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
  laplace_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  laplace_exchange_init(&s->x, c);
  return s;
}

static void naive_reset(void *st) {
  laplace_dev_block_reset(&((naive_state *)st)->d);
}

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  laplace_dev_block *d = &s->d;
  const laplace_block *b = &d->blk;
  const laplace_params *p = s->c.p;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    const int g = kit_gpu_range_begin("gpu_compute", s->stream);
    launch_laplace_sweep(b, d->u, d->un, 1, b->nz + 1, p->alpha, p->beta, s->stream);
    kit_gpu_range_end(g, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("exchange");
    void *send[2], *recv[2];
    laplace_dev_faces(d, send, recv);
    kit_exchange_run(&s->x, send, recv, s->stream);
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
  return &((naive_state *)st)->x.halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  kit_exchange_free(&s->x);
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
