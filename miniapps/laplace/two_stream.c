/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream
 * and a bulk stream: the outer layer (the points next to a face with a neighbour rank: a
 * z-slab's two boundary planes, on a process grid --procs PxQxR up to six faces' layers,
 * laplace_layer_parts) is computed first and exchanged on the boundary stream (--comm host:
 * copied to the host, MPI, copied back; ipc, nccl, nvshmem: device to device; x and y faces
 * packed and unpacked by kernels on the same stream), while the inner box computes on the
 * other stream. Sourouri Paper II Listing 1 (Figs. 3-5 for the grids); Bernaschi et al. Fig. 2.
 * Unlike Listing 1, a step does not end with a device synchronisation: two events order
 * the streams instead (the next boundary waits for this bulk, which reads the planes it
 * overwrites), so the bulk kernels run back to back and the GPU never idles between steps
 * while the host waits (docs/architecture.md, "two-stream").
 *   mpiexec -n 2 build/bin/laplace --variant two-stream --size 512
 *   mpiexec -n 4 build/bin/laplace --variant two-stream --size 512 --procs 2x2x1 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  laplace_ctx c;
  laplace_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done; /* this step's boundary kernels are complete */
  cudaEvent_t bulk_done;     /* this step's bulk is complete */
  laplace_dev_halo h;        /* the faces' exchange (--comm, --procs) */
} two_stream_state;

static void *ts_setup(const void *arg) {
  const laplace_ctx *c = arg;
  two_stream_state *s = calloc(1, sizeof *s);
  s->c = *c;
  laplace_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  /* The boundary stream gets the higher priority so its small kernels are not queued
   * behind the bulk kernel's blocks (the stall Paper II Fig. 2 shows). */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  laplace_dev_halo_init(&s->h, c, &s->d);
  return s;
}

static void ts_reset(void *st) {
  two_stream_state *s = st;
  laplace_dev_block_reset(&s->d);
  laplace_dev_halo_reset(&s->h, &s->d);
}

static void ts_run(void *st, int steps) {
  two_stream_state *s = st;
  laplace_dev_block *d = &s->d;
  const laplace_block *b = &d->blk;
  const laplace_params *p = s->c.p;
  /* The outer layer's parts and the inner box partition the box (laplace.h): every point is
   * computed once, by the same kernel. */
  int part[LAPLACE_FACES][6], lo[3], hi[3];
  const int nparts = laplace_layer_parts(b, s->h.side, part);
  laplace_inner_box(b, s->h.side, lo, hi);
  const int inner[6] = {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* The outer layer first. It overwrites points that the previous bulk reads, so it waits
     * for it. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
    int g = kit_gpu_range_begin("boundary", s->boundary);
    for (int q = 0; q < nparts; ++q)
      launch_laplace_sweep_box(b, d->u, d->un, part[q], p->alpha, p->beta, s->boundary);
    kit_gpu_range_end(g, s->boundary);
    KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done, s->boundary));

    /* The bulk overlaps everything that follows. It overwrites points the previous
     * boundary kernels read, and reads the ones they wrote: it waits for those kernels
     * only, never for the exchange, so communication stays off the bulk's critical path
     * (the inner box reads no ghost a message fills). */
    g = kit_gpu_range_begin("bulk", s->bulk);
    launch_laplace_sweep_box(b, d->u, d->un, inner, p->alpha, p->beta, s->bulk);
    kit_gpu_range_end(g, s->bulk);
    KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

    /* The layer's faces to the neighbours, theirs into the ghosts, on the boundary stream
     * behind the boundary kernels (--comm host: the host waits for the copies and MPI here;
     * the device transports: it only enqueues). */
    KIT_RANGE_PUSH("exchange");
    laplace_dev_halo_run(&s->h, d, s->boundary);
    KIT_RANGE_POP();
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done, 0)); /* for the next bulk */
    laplace_dev_swap(d);
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_bulk");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_RANGE_POP();
}

static void ts_fetch(void *st, void *out) {
  laplace_dev_block_fetch(&((two_stream_state *)st)->d, out);
}
static const kit_halo *ts_halo(void *st) {
  return &((two_stream_state *)st)->h.x.halo;
}

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  laplace_dev_halo_free(&s->h);
  laplace_dev_block_free(&s->d);
  free(s);
}

const laplace_variant laplace_two_stream = {
    .name = "two-stream",
    .summary = "one rank per GPU; boundary stream (compute, D2H, MPI, H2D) overlaps the bulk stream",
    .needs_gpu = 1,
    .setup = ts_setup,
    .reset = ts_reset,
    .run = ts_run,
    .fetch = ts_fetch,
    .halo = ts_halo,
    .teardown = ts_teardown,
};
