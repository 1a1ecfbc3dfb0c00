/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and a
 * bulk stream (Risso Sec. 4.3, the outer/inner split of Fig. 4.1; Bernaschi et al. Fig. 2):
 * the two boundary planes are updated first and their five face-crossing populations copied
 * to the host on the boundary stream, while the inner planes update on the bulk stream; MPI
 * and the copies of the received populations into the ghost planes overlap the bulk.
 * Events order the streams (as laplace's two-stream): the next boundary update waits for this
 * bulk, the next bulk for this step's boundary update (never for the exchange).
 *   mpiexec -n 2 build/bin/lbm --variant two-stream --size 256 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  lbm_ctx c;
  lbm_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done; /* this step's boundary update is done */
  cudaEvent_t bulk_done; /* this step's bulk is done */
  kit_halo halo;
} two_stream_state;

/* As naive.c: receive buffers start with the initial ghost populations. */
static void init_state(two_stream_state *s) {
  lbm_dev_block *d = &s->d;
  lbm_dev_block_reset(d);
  if (s->halo.recv[KIT_DOWN]) lbm_dev_pack_async(d, d->init, 0, 1, s->halo.recv[KIT_DOWN], s->boundary);
  if (s->halo.recv[KIT_UP]) lbm_dev_pack_async(d, d->init, d->blk.nz + 1, 0, s->halo.recv[KIT_UP], s->boundary);
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
}

static void *ts_setup(const lbm_ctx *c) {
  two_stream_state *s = calloc(1, sizeof *s);
  s->c = *c;
  lbm_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  /* The boundary stream gets the higher priority so its small kernel is not queued behind
   * the bulk kernel's blocks. */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], (size_t)LBM_ZQ * c->blk.plane, 1, 1);
  init_state(s);
  return s;
}

static void ts_reset(void *st) { init_state(st); }

static void ts_run(void *st, int steps) {
  two_stream_state *s = st;
  lbm_dev_block *d = &s->d;
  const lbm_params *p = s->c.p;
  const int nz = d->blk.nz;
  kit_halo *h = &s->halo;
  const double Fx = p->force[0], Fy = p->force[1], Fz = p->force[2];
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* Boundary planes first, then their face-crossing populations to the host. They write
     * planes of the lattice the previous bulk read, so they wait for it. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
    /* This step's bulk needs the previous boundary update: enqueued now, before that event
     * is recorded again. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done, 0));
    int g = kit_gpu_range_begin("boundary", s->boundary);
    launch_lbm_update(&d->geom, d->f, d->fn, 1, 2, p->omega, Fx, Fy, Fz, s->boundary);
    if (nz > 1) launch_lbm_update(&d->geom, d->f, d->fn, nz, nz + 1, p->omega, Fx, Fy, Fz, s->boundary);
    kit_gpu_range_end(g, s->boundary);
    KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done, s->boundary));
    g = kit_gpu_range_begin("d2h", s->boundary);
    if (h->send[KIT_DOWN]) lbm_dev_pack_async(d, d->fn, 1, 0, h->send[KIT_DOWN], s->boundary);
    if (h->send[KIT_UP]) lbm_dev_pack_async(d, d->fn, nz, 1, h->send[KIT_UP], s->boundary);
    kit_gpu_range_end(g, s->boundary);

    /* The bulk reads planes 1..nz of f (the previous step's boundary planes included, never a
     * ghost) and writes inner planes the previous boundary update read. */
    g = kit_gpu_range_begin("bulk", s->bulk);
    launch_lbm_update(&d->geom, d->f, d->fn, 2, nz, p->omega, Fx, Fy, Fz, s->bulk);
    kit_gpu_range_end(g, s->bulk);
    KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

    KIT_RANGE_PUSH("wait_boundary");
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi");
    /* Receives are posted only now: the previous step's copies out of the receive buffers
     * are complete once the boundary stream has drained. */
    for (int side = 0; side < 2; ++side) kit_halo_irecv(h, side, h->recv[side]);
    for (int side = 0; side < 2; ++side) kit_halo_isend(h, side, h->send[side]);
    kit_halo_waitall(h);
    KIT_RANGE_POP();

    g = kit_gpu_range_begin("h2d", s->boundary);
    if (h->recv[KIT_DOWN]) lbm_dev_unpack_async(d, d->fn, 0, 1, h->recv[KIT_DOWN], s->boundary);
    if (h->recv[KIT_UP]) lbm_dev_unpack_async(d, d->fn, nz + 1, 0, h->recv[KIT_UP], s->boundary);
    kit_gpu_range_end(g, s->boundary);
    lbm_dev_swap(d);
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_bulk");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_RANGE_POP();
}

static void ts_fetch(void *st, double *macro) { lbm_dev_block_fetch(&((two_stream_state *)st)->d, macro); }
static void ts_fetch_lattice(void *st, double *f) { lbm_dev_block_fetch_lattice(&((two_stream_state *)st)->d, f); }
static const kit_halo *ts_halo(void *st) { return &((two_stream_state *)st)->halo; }

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  kit_halo_free(&s->halo);
  lbm_dev_block_free(&s->d);
  free(s);
}

const lbm_variant lbm_two_stream = {
    "two-stream", "one rank per GPU; boundary stream (update, D2H, MPI, H2D) overlaps the bulk stream", 1,
    ts_setup, ts_reset, ts_run, ts_fetch, ts_fetch_lattice, ts_halo, ts_teardown,
};
