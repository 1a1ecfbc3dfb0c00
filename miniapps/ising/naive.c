/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: each
 * half-sweep updates every plane of its colour, then exchanges the changed boundary parts
 * with the neighbours (kit/exchange.h, --comm: host stages device-to-host, MPI,
 * host-to-device; ipc, nccl and cuda-aware move them from device memory) and waits. The GPU
 * idles during every copy and message (Bernaschi et al. Sec. 2, the baseline).
 *   mpiexec -n 2 build/bin/ising --variant naive --size 256 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  ising_ctx c;
  ising_dev_block d;
  cudaStream_t stream;
  kit_exchange x; /* the parts' transport (--comm) */
  ising_plan plan[2];
  uint32_t sweep;
} naive_state;

static void *naive_setup(const void *arg) {
  const ising_ctx *c = arg;
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->sweep = (uint32_t)c->p->start_sweep;
  ising_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  ising_exchange_init(&s->x, c);
  for (int col = 0; col < 2; ++col) s->plan[col] = ising_make_plan(&c->blk, col);
  return s;
}

static void naive_reset(void *st) {
  naive_state *s = st;
  ising_dev_block_reset(&s->d);             /* ghosts too: a stale halo starts from the initial spins again */
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void naive_run(void *st, int sweeps) {
  naive_state *s = st;
  ising_dev_block *d = &s->d;
  for (int t = 0; t < sweeps; ++t, ++s->sweep) {
    KIT_RANGE_PUSH("sweep");
    for (int col = 0; col < 2; ++col) {
      const ising_plan *pl = &s->plan[col];
      KIT_RANGE_PUSH("compute");
      const int g = kit_gpu_range_begin("gpu_compute", s->stream);
      ising_dev_half_sweep(d, col, s->sweep, pl->boundary, s->stream);
      ising_dev_half_sweep(d, col, s->sweep, pl->bulk, s->stream);
      kit_gpu_range_end(g, s->stream);
      KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
      KIT_RANGE_POP();

      /* The parts this colour changed, straight from and into the slab (NULL: nothing on
       * that side this half-sweep); then wait, so nothing overlaps (ipc and nccl only
       * enqueue). */
      KIT_RANGE_PUSH("exchange");
      void *send[2], *recv[2];
      ising_dev_faces(d, pl, send, recv);
      kit_exchange_run(&s->x, send, recv, s->stream);
      KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
      KIT_RANGE_POP();
    }
    KIT_RANGE_POP();
  }
}

static void naive_fetch(void *st, void *out) {
  ising_dev_block_fetch(&((naive_state *)st)->d, out);
}
static const kit_halo *naive_halo(void *st) {
  return &((naive_state *)st)->x.halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  kit_exchange_free(&s->x);
  ising_dev_block_free(&s->d);
  free(s);
}

const ising_variant ising_naive = {
    .name = "naive",
    .summary = "one rank per GPU, one stream: update, then exchange (--comm) per half-sweep (no overlap)",
    .needs_gpu = 1,
    .setup = naive_setup,
    .reset = naive_reset,
    .run = naive_run,
    .fetch = naive_fetch,
    .halo = naive_halo,
    .teardown = naive_teardown,
};
