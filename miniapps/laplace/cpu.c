/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU: each rank sweeps its
 * z-slab with all its threads and exchanges one plane with each neighbour per step.
 * Paper III's CPU-only runs; with one rank it is the CPU baseline the GPU variants beat.
 *   mpiexec -n 2 build/bin/laplace --variant cpu --size 64 */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernel.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "laplace.h"

typedef struct cpu_state {
  laplace_ctx c;
  double *u, *un; /* current and next field, ghost planes included */
  kit_halo halo;
  laplace_cpu_block kernel; /* --cpu-block, resolved (auto: tuned on this grid) */
} cpu_state;

static void *cpu_setup(const void *arg) {
  const laplace_ctx *c = arg;
  cpu_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->u = kit_malloc(c->blk.points * sizeof(double), "laplace field");
  s->un = kit_malloc(c->blk.points * sizeof(double), "laplace field");
  /* Planes go straight from and into the field arrays: no staging buffers. */
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.sz, 0, 0);
  laplace_fill(c->p, &c->blk, s->u);
  laplace_fill(c->p, &c->blk, s->un);
  /* The host kernel (--cpu-block; auto times a few on this slab, sweeping u into un). */
  s->kernel = laplace_cpu_block_resolve(&c->p->cpu_block, c->env, c->p, &c->blk, s->u, s->un, 1,
                                        c->blk.nz + 1, c->env->threads);
  laplace_fill(c->p, &c->blk, s->un);
  return s;
}

static void cpu_reset(void *st) {
  cpu_state *s = st;
  laplace_fill(s->c.p, &s->c.blk, s->u);
  laplace_fill(s->c.p, &s->c.blk, s->un);
}

static void cpu_run(void *st, int steps) {
  cpu_state *s = st;
  const laplace_block *b = &s->c.blk;
  const int threads = s->c.env->threads;
  const laplace_cpu_block *k = &s->kernel;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* Ghost planes of the next field arrive while this rank computes. */
    kit_halo_irecv(&s->halo, KIT_DOWN, s->un);
    kit_halo_irecv(&s->halo, KIT_UP, s->un + (size_t)(b->nz + 1) * b->sz);
    KIT_RANGE_PUSH("boundary");
    laplace_cpu_sweep(s->c.p, b, s->u, s->un, 1, 2, threads, k);
    if (b->nz > 1) laplace_cpu_sweep(s->c.p, b, s->u, s->un, b->nz, b->nz + 1, threads, k);
    KIT_RANGE_POP();
    kit_halo_isend(&s->halo, KIT_DOWN, s->un + b->sz);
    kit_halo_isend(&s->halo, KIT_UP, s->un + (size_t)b->nz * b->sz);
    KIT_RANGE_PUSH("bulk");
    if (b->nz > 2) laplace_cpu_sweep(s->c.p, b, s->u, s->un, 2, b->nz, threads, k);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi_wait");
    kit_halo_waitall(&s->halo);
    KIT_RANGE_POP();
    double *t_ = s->u;
    s->u = s->un;
    s->un = t_;
    KIT_RANGE_POP();
  }
}

static void cpu_fetch(void *st, void *out) {
  double *interior = out;
  cpu_state *s = st;
  laplace_copy_interior(&s->c.blk, s->u, 1, s->c.blk.nz + 1, interior);
}

static const kit_halo *cpu_halo(void *st) {
  return &((cpu_state *)st)->halo;
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  kit_halo_free(&s->halo);
  free(s->u);
  free(s->un);
  free(s);
}

const laplace_variant laplace_cpu = {
    .name = "cpu",
    .summary = "MPI ranks x OpenMP threads, no GPU (the reference and CPU baseline)",
    .needs_gpu = 0,
    .setup = cpu_setup,
    .reset = cpu_reset,
    .run = cpu_run,
    .fetch = cpu_fetch,
    .halo = cpu_halo,
    .teardown = cpu_teardown,
};
