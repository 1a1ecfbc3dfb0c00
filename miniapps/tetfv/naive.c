/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: compute every
 * row of the rank's part (Paper III's blocked GPU storage, kernels.cu), then pack the send lists
 * on the device and exchange them with the neighbouring parts over --comm's transport
 * (kit/exchange.h: host stages through pinned host memory and MPI, ipc and nccl go device to
 * device), the neighbours' values landing straight in the ghost range of the new field. The
 * GPU idles during every copy and message (Bernaschi et al. Sec. 2, the baseline that
 * two-stream improves on).
 *   mpiexec -n 2 build/bin/tetfv --variant naive --mesh box:40 --iters 100 [--comm nccl] */
#include <stdlib.h>

#include "gpu_block.h"
#include "kit/ranges.h"

typedef struct naive_state {
  tetfv_ctx c;
  tetfv_gpu_rank r; /* the rank's part (all rows one launch range) and its exchange */
  cudaStream_t stream;
} naive_state;

static void *naive_setup(const void *ctx) {
  const tetfv_ctx *c = ctx;
  naive_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  const int cut[2] = {0, c->l->nown};
  tetfv_gpu_rank_init(&s->r, c->env->device, c->l, c->u0, 1, cut, kit_comm_of(c->p->comm), c->p->no_exchange);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  return s;
}

static void naive_reset(void *st) {
  tetfv_gpu_rank_reset(&((naive_state *)st)->r);
}

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  tetfv_gpu *g = &s->r.g;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    const int r = kit_gpu_range_begin("gpu_compute", s->stream);
    tetfv_gpu_rows(g, 0, g->u, g->un, s->stream);
    kit_gpu_range_end(r, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    /* Pack, then the layer: the ghosts of the new field are complete once the stream is. */
    KIT_RANGE_PUSH("exchange");
    tetfv_gpu_rank_exchange(&s->r, g->un, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    tetfv_gpu_swap(g);
    KIT_RANGE_POP();
  }
}

static void naive_fetch(void *st, void *out) {
  double *u = out;
  naive_state *s = st;
  tetfv_gpu_fetch(&s->r.g, 0, s->c.l->nown, u);
}

static const kit_halo *naive_halo(void *st) {
  return &((naive_state *)st)->r.x.halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaSetDevice(s->r.g.device));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  tetfv_gpu_rank_free(&s->r);
  free(s);
}

const tetfv_variant tetfv_naive = {
    .name = "naive",
    .summary = "one rank per GPU, one stream: compute all rows, then pack and exchange (--comm; no overlap)",
    .needs_gpu = 1,
    .setup = naive_setup,
    .reset = naive_reset,
    .run = naive_run,
    .fetch = naive_fetch,
    .halo = naive_halo,
    .teardown = naive_teardown,
};
