/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and a
 * bulk stream (Risso Sec. 4.3, the outer/inner split of Fig. 4.1; Bernaschi et al. Fig. 2):
 * the two boundary planes are updated first and their five face-crossing populations moved
 * out of the lattice on the boundary stream, while the inner planes update on the bulk
 * stream; the exchange with the neighbours and the moves of the received populations into
 * the ghost planes overlap the bulk. Events order the streams (as laplace's two-stream): the
 * next boundary update waits for this bulk, the next bulk for this step's boundary update
 * (never for the exchange). --halo (faces.h) chooses how the populations leave and enter the
 * lattice (five copies to pinned host memory, or a pack kernel into a device buffer), --comm
 * (kit/exchange.h) how they travel; all of it is ordered on the boundary stream, and whether
 * the host waits for that stream is the transport's business (host and cuda-aware: yes,
 * before MPI; ipc and nccl: no, they only enqueue), except under copies, whose pinned faces
 * MPI reads as they are.
 * On a process grid other than 1x1xN (--procs) the rank's box (gpu_box.h) splits the same way
 * in 3D, as the cpu variant does (lbm_box_regions_of): the outer layer's up to six parts, the
 * packing of its up to 18 links, the exchange and the unpacking on the boundary stream, the
 * inner box on the bulk stream.
 *   mpiexec -n 2 build/bin/lbm --variant two-stream --size 256 --halo pack
 *   mpiexec -n 2 build/bin/lbm --variant two-stream --size 256 --comm nccl
 *   mpiexec -n 4 build/bin/lbm --variant two-stream --size 256 --procs 2x2x1 --comm ipc */
#include <stdlib.h>

#include "faces.h"
#include "gpu_box.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  lbm_ctx c;
  lbm_dev_block d;
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done; /* this step's boundary update is done */
  cudaEvent_t bulk_done;     /* this step's bulk is done */
  lbm_dev_faces faces;       /* where the populations leave and enter the lattice (--halo) */
  kit_exchange x;            /* how they move between processes (--comm), and the counters */
  int grid;                  /* a --procs grid other than 1x1xN: the box below instead of d, faces, x */
  lbm_dev_box box;
} two_stream_state;

static void init_state(two_stream_state *s) {
  if (s->grid) {
    lbm_dev_box_reset(&s->box);
    return;
  }
  lbm_dev_block_reset(&s->d);
  lbm_dev_faces_prime(&s->faces, &s->d, s->boundary);
}

static void *ts_setup(const void *arg) {
  const lbm_ctx *c = arg;
  two_stream_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->grid = lbm_on_grid(c->p);
  KIT_CUDA_CHECK(cudaSetDevice(c->env->device));
  /* The boundary stream gets the higher priority so its small kernel is not queued behind
   * the bulk kernel's blocks. */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  if (s->grid) {
    lbm_dev_box_init(&s->box, c);
    return s;
  }
  lbm_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  int mode[2];
  lbm_dev_faces_mpi_modes(c, mode);
  lbm_dev_faces_init(&s->faces, &s->d, mode, 0);
  lbm_exchange_init(&s->x, c);
  init_state(s);
  return s;
}

static void ts_reset(void *st) {
  init_state(st);
}

/* A grid's step, the slab's schedule in 3D: the outer layer's parts on the boundary stream, then
 * its links packed, exchanged and unpacked there, while the inner box updates on the bulk
 * stream. The inner box reads no ghost a message fills (it is one cell inside every face with
 * a neighbour), so it waits for the previous layer's update only, as the slab's bulk does. */
static void grid_run(two_stream_state *s, int steps) {
  lbm_dev_box *d = &s->box;
  const lbm_box_regions *r = &d->r;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done, 0));
    int g = kit_gpu_range_begin("boundary", s->boundary);
    for (int f = 0; f < LBM_FACE_LINKS; ++f) lbm_dev_box_update(d, r->lo[f], r->hi[f], s->boundary);
    kit_gpu_range_end(g, s->boundary);
    KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done, s->boundary));
    g = kit_gpu_range_begin("bulk", s->bulk);
    lbm_dev_box_update(d, r->in_lo, r->in_hi, s->bulk);
    kit_gpu_range_end(g, s->bulk);
    KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));
    KIT_RANGE_PUSH("exchange");
    lbm_dev_box_exchange(d, s->boundary);
    KIT_RANGE_POP();
    lbm_dev_box_swap(d);
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_bulk");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_RANGE_POP();
}

static void ts_run(void *st, int steps) {
  two_stream_state *s = st;
  if (s->grid) {
    grid_run(s, steps);
    return;
  }
  lbm_dev_block *d = &s->d;
  const lbm_params *p = s->c.p;
  const int nz = d->blk.nz;
  const lbm_dev_faces *x = &s->faces;
  const int on_host = p->halo_mode == LBM_HALO_COPIES; /* the exchange's messages are pinned host */
  void *send[2], *recv[2];
  lbm_dev_faces_msgs(x, send, recv);
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

    /* Under copies MPI reads and writes the pinned faces as they are, so the copies out must
     * be done, and so must the previous step's copies out of the receive messages (the same
     * stream). Under pack the layer orders the exchange on the boundary stream behind the
     * pack kernels and before the unpack kernels: host and cuda-aware synchronise it before
     * MPI, ipc and nccl only enqueue, and the host goes on to the next step. */
    if (on_host) {
      KIT_RANGE_PUSH("wait_boundary");
      KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
      KIT_RANGE_POP();
    }
    KIT_RANGE_PUSH("exchange");
    kit_exchange_run(&s->x, send, recv, s->boundary);
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
  two_stream_state *s = st;
  if (s->grid)
    lbm_dev_box_fetch(&s->box, out);
  else
    lbm_dev_block_fetch(&s->d, out);
}
static void ts_fetch_lattice(void *st, double *f) {
  two_stream_state *s = st;
  if (s->grid)
    lbm_dev_box_fetch_lattice(&s->box, f);
  else
    lbm_dev_block_fetch_lattice(&s->d, f);
}
static const kit_halo *ts_halo(void *st) {
  two_stream_state *s = st;
  return s->grid ? &s->box.x.halo : &s->x.halo;
}

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  if (s->grid) {
    lbm_dev_box_free(&s->box);
    free(s);
    return;
  }
  kit_exchange_free(&s->x);
  lbm_dev_faces_free(&s->faces);
  lbm_dev_block_free(&s->d);
  free(s);
}

const lbm_variant lbm_two_stream = {
    .base =
        {
            .name = "two-stream",
            .summary = "one rank per GPU; "
                       "boundary stream (update, faces out, exchange, faces in; --halo, --comm) overlaps the "
                       "bulk stream",
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
