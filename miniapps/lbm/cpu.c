/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU. Each rank updates its
 * z-slab with all its threads; per step it sends the five populations that leave its top
 * plane upwards and the five that leave its bottom plane downwards (Risso Sec. 4.2: only
 * what crosses the face travels, 5 of 19), computing the inner planes while the messages
 * fly (the outer/inner split of Sec. 4.3, Fig. 4.1). With one rank it is the CPU baseline.
 *   mpiexec -n 2 build/bin/lbm --variant cpu --size 32 --iters 100 */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"
#include "lbm.h"

typedef struct cpu_state {
  lbm_ctx c;
  double *f, *fn; /* current and next lattice (post-collision populations), ghosts included */
  kit_halo halo;  /* staging buffers of 5 * nx * ny doubles per side */
} cpu_state;

/* The receive buffers start out holding the initial ghost populations, so a message that
 * never arrives (KIT_FAULT=stale-halo) leaves the ghosts stale, as a missing exchange would,
 * rather than filling them with zeros that any check would catch. */
static void init_state(cpu_state *s) {
  const lbm_block *b = &s->c.blk;
  lbm_fill(s->c.p, b, s->f);
  lbm_fill(s->c.p, b, s->fn);
  if (s->halo.recv[KIT_DOWN]) lbm_pack(b, s->f, 0, 1, s->halo.recv[KIT_DOWN]);
  if (s->halo.recv[KIT_UP]) lbm_pack(b, s->f, b->nz + 1, 0, s->halo.recv[KIT_UP]);
}

static void *cpu_setup(const void *arg) {
  const lbm_ctx *c = arg;
  cpu_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  s->f = kit_malloc(c->blk.total * sizeof(double), "lbm lattice");
  s->fn = kit_malloc(c->blk.total * sizeof(double), "lbm lattice");
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], (size_t)LBM_ZQ * c->blk.plane, 1,
                0);
  init_state(s);
  return s;
}

static void cpu_reset(void *st) {
  init_state(st);
}

static void cpu_run(void *st, int steps) {
  cpu_state *s = st;
  const lbm_block *b = &s->c.blk;
  const int threads = s->c.env->threads, nz = b->nz;
  kit_halo *h = &s->halo;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* The ghost populations of the next lattice arrive while this rank computes. */
    kit_halo_irecv(h, KIT_DOWN, h->recv[KIT_DOWN]);
    kit_halo_irecv(h, KIT_UP, h->recv[KIT_UP]);
    KIT_RANGE_PUSH("boundary");
    lbm_update_host(s->c.p, b, s->f, s->fn, 1, 2, threads);
    if (nz > 1) lbm_update_host(s->c.p, b, s->f, s->fn, nz, nz + 1, threads);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("pack");
    if (h->send[KIT_DOWN]) lbm_pack(b, s->fn, 1, 0, h->send[KIT_DOWN]);
    if (h->send[KIT_UP]) lbm_pack(b, s->fn, nz, 1, h->send[KIT_UP]);
    KIT_RANGE_POP();
    kit_halo_isend(h, KIT_DOWN, h->send[KIT_DOWN]);
    kit_halo_isend(h, KIT_UP, h->send[KIT_UP]);
    KIT_RANGE_PUSH("bulk");
    if (nz > 2) lbm_update_host(s->c.p, b, s->f, s->fn, 2, nz, threads);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi_wait");
    kit_halo_waitall(h);
    KIT_RANGE_POP();
    /* From below come the populations moving up; they land in ghost plane 0. */
    KIT_RANGE_PUSH("unpack");
    if (h->recv[KIT_DOWN]) lbm_unpack(b, s->fn, 0, 1, h->recv[KIT_DOWN]);
    if (h->recv[KIT_UP]) lbm_unpack(b, s->fn, nz + 1, 0, h->recv[KIT_UP]);
    KIT_RANGE_POP();
    double *t_ = s->f;
    s->f = s->fn;
    s->fn = t_;
    KIT_RANGE_POP();
  }
}

static void cpu_fetch(void *st, void *out) {
  double *macro = out; /* rho, ux, uy, uz per cell */
  cpu_state *s = st;
  lbm_macroscopic(s->c.p, &s->c.blk, s->f, 1, s->c.blk.nz + 1, macro);
}

static void cpu_fetch_lattice(void *st, double *f) {
  cpu_state *s = st;
  lbm_lattice_planes(&s->c.blk, s->f, f);
}

static const kit_halo *cpu_halo(void *st) {
  return &((cpu_state *)st)->halo;
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  kit_halo_free(&s->halo);
  free(s->f);
  free(s->fn);
  free(s);
}

const lbm_variant lbm_cpu = {
    .base =
        {
            .name = "cpu",
            .summary = "MPI ranks x OpenMP threads, no GPU (the reference and CPU baseline)",
            .needs_gpu = 0,
            .setup = cpu_setup,
            .reset = cpu_reset,
            .run = cpu_run,
            .fetch = cpu_fetch,
            .halo = cpu_halo,
            .teardown = cpu_teardown,
        },
    .fetch_lattice = cpu_fetch_lattice,
};
