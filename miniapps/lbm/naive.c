/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: update every
 * plane, then move the five populations that leave the slab through each face out of the
 * lattice, exchange them with the neighbours, and move the received ones into the ghost
 * planes (Risso Sec. 4.2's exchange; Bernaschi et al. Sec. 2's baseline). The GPU idles
 * during every copy and message. How the populations leave and enter the lattice is --halo
 * (faces.h: five copies per face to pinned host memory, or a pack kernel into a device
 * buffer); how they travel between processes is --comm (kit/exchange.h: host, ipc, nccl,
 * cuda-aware; copies only with host, whose MPI then reads the pinned faces as they are).
 *   mpiexec -n 2 build/bin/lbm --variant naive --size 128 --halo pack
 *   mpiexec -n 2 build/bin/lbm --variant naive --size 128 --comm nccl */
#include <stdlib.h>

#include "faces.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  lbm_ctx c;
  lbm_dev_block d;
  cudaStream_t stream;
  lbm_dev_faces faces; /* where the populations leave and enter the lattice (--halo) */
  kit_exchange x;      /* how they move between processes (--comm), and the counters */
} naive_state;

static void init_state(naive_state *s) {
  lbm_dev_block_reset(&s->d);
  lbm_dev_faces_prime(&s->faces, &s->d, s->stream);
}

static void *naive_setup(const void *arg) {
  const lbm_ctx *c = arg;
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
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

static void naive_run(void *st, int steps) {
  naive_state *s = st;
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
  lbm_dev_block_fetch(&((naive_state *)st)->d, out);
}
static void naive_fetch_lattice(void *st, double *f) {
  lbm_dev_block_fetch_lattice(&((naive_state *)st)->d, f);
}
static const kit_halo *naive_halo(void *st) {
  return &((naive_state *)st)->x.halo;
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
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
