/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: update every
 * plane, then move the five populations that leave the slab through each face out of the
 * lattice, exchange them with the neighbours, and move the received ones into the ghost
 * planes (Risso Sec. 4.2's exchange; Bernaschi et al. Sec. 2's baseline). The GPU idles
 * during every copy and message. How the populations leave and enter the lattice is --halo
 * (faces.h: five copies per face to pinned host memory, or a pack kernel into a device
 * buffer); how they travel between processes is --comm (kit/exchange.h: host, ipc, nccl,
 * cuda-aware; copies only with host, whose MPI then reads the pinned faces as they are).
 * On a process grid other than 1x1xN (--procs) the rank's box (gpu_box.h) does the same:
 * update every cell, pack its up to 18 links (6 faces, 12 edges) by a kernel, exchange, unpack.
 *   mpiexec -n 2 build/bin/lbm --variant naive --size 128 --halo pack
 *   mpiexec -n 2 build/bin/lbm --variant naive --size 128 --comm nccl
 *   mpiexec -n 4 build/bin/lbm --variant naive --size 128 --procs 2x2x1 --comm ipc */
#include <stdlib.h>

#include "faces.h"
#include "gpu_box.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  lbm_ctx c;
  lbm_dev_block d;
  cudaStream_t stream;
  lbm_dev_faces faces; /* where the populations leave and enter the lattice (--halo) */
  kit_exchange x;      /* how they move between processes (--comm), and the counters */
  int grid;            /* a --procs grid other than 1x1xN: the box below instead of d, faces, x */
  lbm_dev_box box;
} naive_state;

static void init_state(naive_state *s) {
  if (s->grid) {
    lbm_dev_box_reset(&s->box);
    return;
  }
  lbm_dev_block_reset(&s->d);
  lbm_dev_faces_prime(&s->faces, &s->d, s->stream);
}

static void *naive_setup(const void *arg) {
  const lbm_ctx *c = arg;
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->grid = lbm_on_grid(c->p);
  if (s->grid) {
    KIT_CUDA_CHECK(cudaSetDevice(c->env->device));
    KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
    lbm_dev_box_init(&s->box, c);
    return s;
  }
  lbm_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  int mode[2];
  lbm_dev_faces_mpi_modes(c, mode);
  lbm_dev_faces_init(&s->faces, &s->d, mode, 0);
  lbm_exchange_init(&s->x, c);
  init_state(s);
  return s;
}

static void naive_reset(void *st) {
  init_state(st);
}

/* A grid's step: every cell, then the links out, exchanged and in, on the one stream. */
static void grid_run(naive_state *s, int steps) {
  lbm_dev_box *d = &s->box;
  const int lo[3] = {1, 1, 1}, hi[3] = {d->box.nx + 1, d->box.ny + 1, d->box.nz + 1};
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    const int g = kit_gpu_range_begin("gpu_compute", s->stream);
    lbm_dev_box_update(d, lo, hi, s->stream);
    kit_gpu_range_end(g, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("exchange");
    lbm_dev_box_exchange(d, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    lbm_dev_box_swap(d);
    KIT_RANGE_POP();
  }
}

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  if (s->grid) {
    grid_run(s, steps);
    return;
  }
  lbm_dev_block *d = &s->d;
  const lbm_params *p = s->c.p;
  const int nz = d->blk.nz;
  const lbm_dev_faces *x = &s->faces;
  void *send[2], *recv[2];
  lbm_dev_faces_msgs(x, send, recv);
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    int g = kit_gpu_range_begin("gpu_compute", s->stream);
    launch_lbm_update(&d->geom, d->f, d->fn, 1, nz + 1, p->omega, p->force[0], p->force[1], p->force[2],
                      s->stream);
    kit_gpu_range_end(g, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    /* The exchange, timed as a whole and in its three parts (the --halo and --comm
     * comparisons); each part ends with the stream, so its time is the GPU's too. */
    KIT_RANGE_PUSH("exchange");
    KIT_RANGE_PUSH("halo_out");
    for (int side = 0; side < 2; ++side) lbm_dev_faces_out(x, d, d->fn, side, s->stream);
    /* Needed under copies: MPI reads the pinned faces as they are (an on_host exchange). */
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    /* The layer's own ranges show inside (mpi; d2h and h2d when host stages a pack; ipc_*,
     * nccl); ipc and nccl only enqueue, so the stream is waited for here. */
    KIT_RANGE_PUSH("transport");
    kit_exchange_run(&s->x, send, recv, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    /* From below come the populations moving up; they land in ghost plane 0. */
    KIT_RANGE_PUSH("halo_in");
    for (int side = 0; side < 2; ++side) lbm_dev_faces_in(x, d, d->fn, side, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    KIT_RANGE_POP();
    lbm_dev_swap(d);
    KIT_RANGE_POP();
  }
}

static void naive_fetch(void *st, void *out) {
  naive_state *s = st;
  if (s->grid)
    lbm_dev_box_fetch(&s->box, out);
  else
    lbm_dev_block_fetch(&s->d, out);
}
static void naive_fetch_lattice(void *st, double *f) {
  naive_state *s = st;
  if (s->grid)
    lbm_dev_box_fetch_lattice(&s->box, f);
  else
    lbm_dev_block_fetch_lattice(&s->d, f);
}
static const kit_halo *naive_halo(void *st) {
  naive_state *s = st;
  return s->grid ? &s->box.x.halo : &s->x.halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
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

const lbm_variant lbm_naive = {
    .base =
        {
            .name = "naive",
            .summary = "one rank per GPU, one stream: update, then faces out, exchange, faces in (no "
                       "overlap; --halo, --comm)",
            .needs_gpu = 1,
            .setup = naive_setup,
            .reset = naive_reset,
            .run = naive_run,
            .fetch = naive_fetch,
            .halo = naive_halo,
            .teardown = naive_teardown,
        },
    .fetch_lattice = naive_fetch_lattice,
};
