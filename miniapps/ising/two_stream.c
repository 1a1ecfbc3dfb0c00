/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and
 * a bulk stream (Bernaschi et al. Sec. 3.1 and Fig. 2): each half-sweep updates the
 * boundary planes of its colour first and copies the changed parts to the host on the
 * boundary stream, while the bulk planes update on the other stream; MPI and the copy of
 * the received ghost parts back to the device overlap the bulk. With the sliced layout a
 * half-sweep sends one message instead of two (Fig. 5).
 * Events order the streams: the next half-sweep reads what both wrote, so each stream
 * waits for the other's last event before its next kernel; the host never synchronises
 * the bulk.
 *   mpiexec -n 2 build/bin/ising --variant two-stream --size 512 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  ising_ctx c;
  ising_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done; /* this half-sweep's boundary kernel is done */
  cudaEvent_t bulk_done;     /* this half-sweep's bulk is done */
  kit_halo halo;
  ising_plan plan[2];
  uint32_t sweep;
} two_stream_state;

static void *ts_setup(const void *arg) {
  const ising_ctx *c = arg;
  two_stream_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->sweep = (uint32_t)c->p->start_sweep;
  ising_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  /* The boundary stream gets the higher priority so its small kernel is not queued behind
   * the bulk kernel's blocks. */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  kit_halo_init_typed(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP],
                      ising_message_bytes(c->p, &c->blk), MPI_INT8_T, 1, 1, 1);
  for (int col = 0; col < 2; ++col) s->plan[col] = ising_make_plan(&c->blk, col);
  ising_prime_inboxes(s->halo.recv, ising_message_bytes(c->p, &c->blk));
  return s;
}

static void ts_reset(void *st) {
  two_stream_state *s = st;
  ising_dev_block_reset(&s->d);
  ising_prime_inboxes(s->halo.recv, ising_message_bytes(s->d.p, &s->d.blk));
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void ts_run(void *st, int sweeps) {
  two_stream_state *s = st;
  ising_dev_block *d = &s->d;
  const size_t bytes = ising_message_bytes(d->p, &d->blk);
  int first = 1;
  for (int t = 0; t < sweeps; ++t, ++s->sweep) {
    KIT_RANGE_PUSH("sweep");
    for (int col = 0; col < 2; ++col, first = 0) {
      const ising_plan *pl = &s->plan[col];
      /* The boundary planes read the other colour, which the previous bulk wrote; this bulk
       * needs the previous boundary kernel (enqueued now, before that event is recorded
       * again for this half-sweep). */
      if (!first) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
      if (!first) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done, 0));
      int g = kit_gpu_range_begin("boundary", s->boundary);
      ising_dev_half_sweep(d, col, s->sweep, pl->boundary, s->boundary);
      kit_gpu_range_end(g, s->boundary);
      KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done, s->boundary));
      g = kit_gpu_range_begin("d2h", s->boundary);
      for (int side = 0; side < 2; ++side)
        if (pl->send_plane[side] >= 0)
          KIT_CUDA_CHECK(cudaMemcpyAsync(s->halo.send[side],
                                         ising_dev_part(d, pl->send_plane[side], pl->part), bytes,
                                         cudaMemcpyDeviceToHost, s->boundary));
      kit_gpu_range_end(g, s->boundary);

      /* The bulk reads only planes 1..n (never a ghost) and writes none the exchange
       * touches, so it overlaps everything below. It needs the previous boundary kernel
       * (which wrote the other colour of planes it reads, and read the planes it writes),
       * not that half-sweep's copies. */
      g = kit_gpu_range_begin("bulk", s->bulk);
      ising_dev_half_sweep(d, col, s->sweep, pl->bulk, s->bulk);
      kit_gpu_range_end(g, s->bulk);
      KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

      KIT_RANGE_PUSH("wait_boundary");
      KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
      KIT_RANGE_POP();
      KIT_RANGE_PUSH("mpi");
      /* Receives are posted only now: the previous host-to-device copy, which reads the
       * receive buffer, is complete once the boundary stream has drained. */
      for (int side = 0; side < 2; ++side)
        if (pl->recv_plane[side] >= 0) kit_halo_irecv(&s->halo, side, s->halo.recv[side]);
      for (int side = 0; side < 2; ++side)
        if (pl->send_plane[side] >= 0) kit_halo_isend(&s->halo, side, s->halo.send[side]);
      kit_halo_waitall(&s->halo);
      KIT_RANGE_POP();

      g = kit_gpu_range_begin("h2d", s->boundary);
      for (int side = 0; side < 2; ++side)
        if (pl->recv_plane[side] >= 0)
          KIT_CUDA_CHECK(cudaMemcpyAsync(ising_dev_part(d, pl->recv_plane[side], pl->part),
                                         s->halo.recv[side], bytes, cudaMemcpyHostToDevice, s->boundary));
      kit_gpu_range_end(g, s->boundary);
    }
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_bulk");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_RANGE_POP();
}

static void ts_fetch(void *st, void *out) {
  ising_dev_block_fetch(&((two_stream_state *)st)->d, out);
}
static const kit_halo *ts_halo(void *st) {
  return &((two_stream_state *)st)->halo;
}

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  kit_halo_free(&s->halo);
  ising_dev_block_free(&s->d);
  free(s);
}

const ising_variant ising_two_stream = {
    .name = "two-stream",
    .summary = "one rank per GPU; boundary stream (update, D2H, MPI, H2D) overlaps the bulk stream",
    .needs_gpu = 1,
    .setup = ts_setup,
    .reset = ts_reset,
    .run = ts_run,
    .fetch = ts_fetch,
    .halo = ts_halo,
    .teardown = ts_teardown,
};
