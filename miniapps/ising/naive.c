/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: each
 * half-sweep updates every plane of its colour, then copies the changed boundary parts
 * device-to-host, exchanges them with MPI and copies the received ghost parts back. The
 * GPU idles during every copy and message (Bernaschi et al. Sec. 2, the baseline).
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
  kit_halo halo; /* pinned staging buffers, one part each */
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
  kit_halo_init_typed(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP],
                      ising_message_bytes(c->p, &c->blk), MPI_INT8_T, 1, 1, 1);
  for (int col = 0; col < 2; ++col) s->plan[col] = ising_make_plan(&c->blk, col);
  ising_prime_inboxes(s->halo.recv, ising_message_bytes(c->p, &c->blk));
  return s;
}

static void naive_reset(void *st) {
  naive_state *s = st;
  ising_dev_block_reset(&s->d);
  ising_prime_inboxes(s->halo.recv, ising_message_bytes(s->d.p, &s->d.blk));
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void naive_run(void *st, int sweeps) {
  naive_state *s = st;
  ising_dev_block *d = &s->d;
  const size_t bytes = ising_message_bytes(d->p, &d->blk);
  for (int t = 0; t < sweeps; ++t, ++s->sweep) {
    KIT_RANGE_PUSH("sweep");
    for (int col = 0; col < 2; ++col) {
      const ising_plan *pl = &s->plan[col];
      KIT_RANGE_PUSH("compute");
      int g = kit_gpu_range_begin("gpu_compute", s->stream);
      ising_dev_half_sweep(d, col, s->sweep, pl->boundary, s->stream);
      ising_dev_half_sweep(d, col, s->sweep, pl->bulk, s->stream);
      kit_gpu_range_end(g, s->stream);
      KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
      KIT_RANGE_POP();

      KIT_RANGE_PUSH("d2h");
      for (int side = 0; side < 2; ++side)
        if (pl->send_plane[side] >= 0)
          KIT_CUDA_CHECK(cudaMemcpyAsync(s->halo.send[side],
                                         ising_dev_part(d, pl->send_plane[side], pl->part), bytes,
                                         cudaMemcpyDeviceToHost, s->stream));
      KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
      KIT_RANGE_POP();

      KIT_RANGE_PUSH("mpi");
      for (int side = 0; side < 2; ++side)
        if (pl->recv_plane[side] >= 0) kit_halo_irecv(&s->halo, side, s->halo.recv[side]);
      for (int side = 0; side < 2; ++side)
        if (pl->send_plane[side] >= 0) kit_halo_isend(&s->halo, side, s->halo.send[side]);
      kit_halo_waitall(&s->halo);
      KIT_RANGE_POP();

      KIT_RANGE_PUSH("h2d");
      for (int side = 0; side < 2; ++side)
        if (pl->recv_plane[side] >= 0)
          KIT_CUDA_CHECK(cudaMemcpyAsync(ising_dev_part(d, pl->recv_plane[side], pl->part),
                                         s->halo.recv[side], bytes, cudaMemcpyHostToDevice, s->stream));
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
  return &((naive_state *)st)->halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  kit_halo_free(&s->halo);
  ising_dev_block_free(&s->d);
  free(s);
}

const ising_variant ising_naive = {
    .name = "naive",
    .summary = "one rank per GPU, one stream: update, then D2H, MPI, H2D per half-sweep (no overlap)",
    .needs_gpu = 1,
    .setup = naive_setup,
    .reset = naive_reset,
    .run = naive_run,
    .fetch = naive_fetch,
    .halo = naive_halo,
    .teardown = naive_teardown,
};
