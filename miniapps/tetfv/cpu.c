/* cpu.c: the `cpu` variant, MPI ranks x OpenMP threads, no GPU: Paper III's CPU-only runs.
 * Per step, as Sec. 3.2 orders it: post the receives of the ghost values, compute the MPI
 * separator rows, pack and send them, compute the interior rows while the messages travel,
 * wait, swap. The ghosts of u_old are complete when a step starts, so interior rows that
 * read ghosts need not wait; only the separator values must leave early.
 *   mpiexec -n 4 build/bin/tetfv --variant cpu --mesh box:12 --iters 100 */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"
#include "tetfv.h"

void tetfv_rows(const tetfv_matrix *z, const double *u, double *un, int r0, int r1) {
#pragma omp for schedule(static)
  for (int i = r0; i < r1; ++i) un[i] = tetfv_row(z->D, z->A, z->I, u, i);
}

typedef struct cpu_state {
  tetfv_ctx c;
  double *u, *un; /* nown + nghost each: owned rows, then the ghost ranges */
  tetfv_exchange x;
} cpu_state;

/* Both fields start as the initial state, ghosts included, so a missing exchange leaves the
 * ghosts stale (as it would be), rather than zero. */
static void init_state(cpu_state *s) {
  const size_t n = (size_t)s->c.l->nown + s->c.l->nghost;
  memcpy(s->u, s->c.u0, n * sizeof(double));
  memcpy(s->un, s->c.u0, n * sizeof(double));
}

static void *cpu_setup(const void *ctx) {
  const tetfv_ctx *c = ctx;
  cpu_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  const size_t n = (size_t)c->l->nown + c->l->nghost + 1;
  s->u = kit_malloc(n * sizeof(double), "tetfv field");
  s->un = kit_malloc(n * sizeof(double), "tetfv field");
  tetfv_exchange_init(&s->x, c->l, tetfv_exchange_off(c->p));
  init_state(s);
  return s;
}

static void cpu_reset(void *st) {
  init_state(st);
}

static void cpu_run(void *st, int steps) {
  cpu_state *s = st;
  const tetfv_local *l = s->c.l;
  const int threads = s->c.env->threads;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* One team for the whole step; the master alone talks to MPI (Paper III: a single MPI
     * communication thread), between the two worksharing loops. */
#pragma omp parallel num_threads(threads)
    {
#pragma omp master
      KIT_RANGE_PUSH("separator");
      tetfv_rows(&l->m, s->u, s->un, 0, l->nsep); /* implicit barrier: separator complete */
#pragma omp master
      {
        KIT_RANGE_POP();
        tetfv_exchange_pack(&s->x, s->un);
        tetfv_exchange_start(&s->x, s->un + l->nown);
        KIT_RANGE_PUSH("interior");
      }
      tetfv_rows(&l->m, s->u, s->un, l->nsep, l->nown);
#pragma omp master
      KIT_RANGE_POP();
    }
    KIT_RANGE_PUSH("mpi_wait");
    tetfv_exchange_finish(&s->x);
    KIT_RANGE_POP();
    double *tmp = s->u;
    s->u = s->un;
    s->un = tmp;
    KIT_RANGE_POP();
  }
}

static void cpu_fetch(void *st, void *out) {
  double *u = out;
  cpu_state *s = st;
  memcpy(u, s->u, (size_t)s->c.l->nown * sizeof(double));
}

static const kit_halo *cpu_halo(void *st) {
  return tetfv_exchange_counters(&((cpu_state *)st)->x);
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  tetfv_exchange_free(&s->x);
  free(s->u);
  free(s->un);
  free(s);
}

const tetfv_variant tetfv_cpu = {
    .name = "cpu",
    .summary = "MPI ranks x OpenMP threads, no GPU (the reference and CPU baseline)",
    .setup = cpu_setup,
    .reset = cpu_reset,
    .run = cpu_run,
    .fetch = cpu_fetch,
    .halo = cpu_halo,
    .teardown = cpu_teardown,
};
