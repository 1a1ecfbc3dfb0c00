/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap: update every
 * plane, then copy the five populations that leave the slab through each face to the host,
 * exchange them with MPI, and copy the received ones into the ghost planes (Risso Sec. 4.2's
 * host-staged exchange; Bernaschi et al. Sec. 2's baseline). The GPU idles during every copy
 * and message.
 *   mpiexec -n 2 build/bin/lbm --variant naive --size 128 */
#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  lbm_ctx c;
  lbm_dev_block d;
  cudaStream_t stream;
  kit_halo halo; /* pinned staging: 5 populations of a plane per side */
} naive_state;

/* The receive buffers start out holding the initial ghost populations, so a message that
 * never arrives (KIT_FAULT=stale-halo) leaves the ghosts stale, as cpu.c does. */
static void init_state(naive_state *s) {
  lbm_dev_block *d = &s->d;
  lbm_dev_block_reset(d);
  if (s->halo.recv[KIT_DOWN]) lbm_dev_pack_async(d, d->init, 0, 1, s->halo.recv[KIT_DOWN], s->stream);
  if (s->halo.recv[KIT_UP]) lbm_dev_pack_async(d, d->init, d->blk.nz + 1, 0, s->halo.recv[KIT_UP], s->stream);
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
}

static void *naive_setup(const lbm_ctx *c) {
  naive_state *s = calloc(1, sizeof *s);
  s->c = *c;
  lbm_dev_block_init(&s->d, c->p, &c->blk, c->env->device);
  KIT_CUDA_CHECK(cudaStreamCreate(&s->stream));
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], (size_t)LBM_ZQ * c->blk.plane, 1, 1);
  init_state(s);
  return s;
}

static void naive_reset(void *st) { init_state(st); }

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  lbm_dev_block *d = &s->d;
  const lbm_params *p = s->c.p;
  const int nz = d->blk.nz;
  kit_halo *h = &s->halo;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("compute");
    int g = kit_gpu_range_begin("gpu_compute", s->stream);
    launch_lbm_update(&d->geom, d->f, d->fn, 1, nz + 1, p->omega, p->force[0], p->force[1], p->force[2], s->stream);
    kit_gpu_range_end(g, s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("d2h");
    if (h->send[KIT_DOWN]) lbm_dev_pack_async(d, d->fn, 1, 0, h->send[KIT_DOWN], s->stream);
    if (h->send[KIT_UP]) lbm_dev_pack_async(d, d->fn, nz, 1, h->send[KIT_UP], s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();

    KIT_RANGE_PUSH("mpi");
    for (int side = 0; side < 2; ++side) kit_halo_irecv(h, side, h->recv[side]);
    for (int side = 0; side < 2; ++side) kit_halo_isend(h, side, h->send[side]);
    kit_halo_waitall(h);
    KIT_RANGE_POP();

    /* From below come the populations moving up; they land in ghost plane 0. */
    KIT_RANGE_PUSH("h2d");
    if (h->recv[KIT_DOWN]) lbm_dev_unpack_async(d, d->fn, 0, 1, h->recv[KIT_DOWN], s->stream);
    if (h->recv[KIT_UP]) lbm_dev_unpack_async(d, d->fn, nz + 1, 0, h->recv[KIT_UP], s->stream);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KIT_RANGE_POP();
    lbm_dev_swap(d);
    KIT_RANGE_POP();
  }
}

static void naive_fetch(void *st, double *macro) { lbm_dev_block_fetch(&((naive_state *)st)->d, macro); }
static void naive_fetch_lattice(void *st, double *f) { lbm_dev_block_fetch_lattice(&((naive_state *)st)->d, f); }
static const kit_halo *naive_halo(void *st) { return &((naive_state *)st)->halo; }

static void naive_teardown(void *st) {
  naive_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->stream));
  kit_halo_free(&s->halo);
  lbm_dev_block_free(&s->d);
  free(s);
}

const lbm_variant lbm_naive = {
    "naive", "one rank per GPU, one stream: update, then D2H, MPI, H2D (no overlap)", 1,
    naive_setup, naive_reset, naive_run, naive_fetch, naive_fetch_lattice, naive_halo, naive_teardown,
};
