/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and a
 * bulk stream (Risso Sec. 4.3, the outer/inner split of Fig. 4.1; Bernaschi et al. Fig. 2):
 * the two boundary planes are updated first and their five face-crossing populations copied
 * to the host on the boundary stream, while the inner planes update on the bulk stream; MPI
 * and the copies of the received populations into the ghost planes overlap the bulk.
 * Events order the streams (as laplace's two-stream): the next boundary update waits for this
 * bulk, the next bulk for this step's boundary update (never for the exchange). --halo
 * (faces.h) chooses how the populations reach MPI: copies, a pack kernel, or a CUDA-aware MPI
 * on the device buffers; all of it stays on the boundary stream.
 *   mpiexec -n 2 build/bin/lbm --variant two-stream --size 256 --halo pack */
#include <stdlib.h>

#include "faces.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  lbm_ctx c;
  lbm_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done; /* this step's boundary update is done */
  cudaEvent_t bulk_done;     /* this step's bulk is done */
  lbm_dev_faces faces;       /* the face buffers of --halo */
  kit_halo halo;             /* MPI neighbours and counters */
} two_stream_state;

static void init_state(two_stream_state *s) {
  lbm_dev_block_reset(&s->d);
  lbm_dev_faces_prime(&s->faces, &s->d, s->boundary);
}

static void *ts_setup(const void *arg) {
  const lbm_ctx *c = arg;
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
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], (size_t)LBM_ZQ * c->blk.plane, 0,
                1);
  int mode[2];
  lbm_dev_faces_mpi_modes(c, mode);
  lbm_dev_faces_init(&s->faces, &s->d, mode);
  init_state(s);
  return s;
}

static void ts_reset(void *st) {
  init_state(st);
}

static void ts_run(void *st, int steps) {
  two_stream_state *s = st;
  lbm_dev_block *d = &s->d;
  const lbm_params *p = s->c.p;
  const int nz = d->blk.nz;
  kit_halo *h = &s->halo;
  const lbm_dev_faces *x = &s->faces;
  const double Fx = p->force[0], Fy = p->force[1], Fz = p->force[2];
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* Boundary planes first, then their face-crossing populations out. They write
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
    g = kit_gpu_range_begin("halo_out", s->boundary);
    for (int side = 0; side < 2; ++side) lbm_dev_faces_out(x, d, d->fn, side, s->boundary);
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
    /* Receives are posted only now: the previous step's copies or unpack kernel out of the
     * receive buffers are complete once the boundary stream has drained, and so is this
     * step's pack (MPI may read the device buffer under cuda-aware). */
    for (int side = 0; side < 2; ++side) kit_halo_irecv(h, side, lbm_dev_faces_recv_buf(x, side));
    for (int side = 0; side < 2; ++side) kit_halo_isend(h, side, lbm_dev_faces_send_buf(x, side));
    kit_halo_waitall(h);
    KIT_RANGE_POP();

    g = kit_gpu_range_begin("halo_in", s->boundary);
    for (int side = 0; side < 2; ++side) lbm_dev_faces_in(x, d, d->fn, side, s->boundary);
    kit_gpu_range_end(g, s->boundary);
    lbm_dev_swap(d);
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_bulk");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_RANGE_POP();
}

static void ts_fetch(void *st, void *out) {
  lbm_dev_block_fetch(&((two_stream_state *)st)->d, out);
}
static void ts_fetch_lattice(void *st, double *f) {
  lbm_dev_block_fetch_lattice(&((two_stream_state *)st)->d, f);
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
  lbm_dev_faces_free(&s->faces);
  lbm_dev_block_free(&s->d);
  free(s);
}

const lbm_variant lbm_two_stream = {
    .base =
        {
            .name = "two-stream",
            .summary = "one rank per GPU; "
                       "boundary stream (update, faces out, MPI, faces in; --halo) overlaps the bulk stream",
            .needs_gpu = 1,
            .setup = ts_setup,
            .reset = ts_reset,
            .run = ts_run,
            .fetch = ts_fetch,
            .halo = ts_halo,
            .teardown = ts_teardown,
        },
    .fetch_lattice = ts_fetch_lattice,
};
