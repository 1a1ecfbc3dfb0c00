/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and
 * a bulk stream (Bernaschi et al. Sec. 3.1 and Fig. 2): each half-sweep updates the
 * boundary planes of its colour first and exchanges their changed parts with the
 * neighbours on the boundary stream (kit/exchange.h, --comm: host stages device-to-host,
 * MPI, host-to-device; ipc, nccl and cuda-aware move them from device memory), while the
 * bulk planes update on the other stream. With the sliced layout a half-sweep sends one
 * message instead of two (Fig. 5).
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
  kit_exchange x;            /* the parts' transport (--comm) */
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
  ising_exchange_init(&s->x, c);
  for (int col = 0; col < 2; ++col) s->plan[col] = ising_make_plan(&c->blk, col);
  return s;
}

static void ts_reset(void *st) {
  two_stream_state *s = st;
  ising_dev_block_reset(&s->d);             /* ghosts too: a stale halo starts from the initial spins again */
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void ts_run(void *st, int sweeps) {
  two_stream_state *s = st;
  ising_dev_block *d = &s->d;
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

      /* The bulk reads only planes 1..n (never a ghost) and writes neither a part the
       * exchange sends (boundary planes) nor one it receives (ghosts), so it overlaps the
       * exchange. It needs the previous boundary kernel (which wrote the other colour of
       * planes it reads, and read the planes it writes), not that half-sweep's exchange.
       * Launched before the exchange: with host and cuda-aware the host waits inside it. */
      g = kit_gpu_range_begin("bulk", s->bulk);
      ising_dev_half_sweep(d, col, s->sweep, pl->bulk, s->bulk);
      kit_gpu_range_end(g, s->bulk);
      KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

      /* The changed parts to the neighbours, theirs into the ghost parts, on the boundary
       * stream behind this boundary kernel (NULL: nothing on that side this half-sweep).
       * host and cuda-aware: the layer synchronises the boundary stream before MPI and the
       * host waits here; ipc and nccl: it only enqueues. The next boundary kernel, queued
       * behind it on the same stream, reads the new ghosts and may overwrite the parts sent. */
      KIT_RANGE_PUSH("exchange");
      void *send[2], *recv[2];
      ising_dev_faces(d, pl, send, recv);
      kit_exchange_run(&s->x, send, recv, s->boundary);
      KIT_RANGE_POP();
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
  return &((two_stream_state *)st)->x.halo;
}

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  kit_exchange_free(&s->x);
  ising_dev_block_free(&s->d);
  free(s);
}

const ising_variant ising_two_stream = {
    .name = "two-stream",
    .summary = "one rank per GPU; boundary stream (update, exchange over --comm) overlaps the bulk stream",
    .needs_gpu = 1,
    .setup = ts_setup,
    .reset = ts_reset,
    .run = ts_run,
    .fetch = ts_fetch,
    .halo = ts_halo,
    .teardown = ts_teardown,
};
