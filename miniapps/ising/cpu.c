/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU. Each half-sweep updates
 * the boundary planes first, starts the exchange of the part they changed, updates the
 * bulk while it travels, and waits (Bernaschi Sec. 3.1, Fig. 3: z-decomposition; Fig. 5:
 * checkerboard sends both ways, sliced one way).
 *   mpiexec -n 2 build/bin/ising --variant cpu --size 16 --sweeps 20 */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"
#include "ising.h"

typedef struct cpu_state {
  ising_ctx c;
  int8_t *spin;      /* local planes 0..n+1 */
  uint8_t *coupling; /* local planes 1..n */
  kit_halo halo;
  ising_plan plan[2];
  uint32_t sweep;    /* global index of the next sweep */
} cpu_state;

static void *cpu_setup(const ising_ctx *c) {
  cpu_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->sweep = (uint32_t)c->p->start_sweep;
  const ising_block *b = &c->blk;
  s->spin = kit_malloc((size_t)(b->n + 2) * b->plane_stride, "spins");
  s->coupling = kit_malloc((size_t)b->n * b->plane_stride, "couplings");
  /* Parts travel straight from and into the spin array: no staging. */
  kit_halo_init_typed(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], b->part_stride, MPI_INT8_T, 1, 0, 0);
  for (int col = 0; col < 2; ++col) s->plan[col] = ising_make_plan(b, col);
  ising_fill(c->p, b, s->spin, s->coupling, c->env->threads);
  return s;
}

static void cpu_reset(void *st) {
  cpu_state *s = st;
  ising_fill(s->c.p, &s->c.blk, s->spin, s->coupling, s->c.env->threads);
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void cpu_run(void *st, int sweeps) {
  cpu_state *s = st;
  const ising_block *b = &s->c.blk;
  const int threads = s->c.env->threads;
  for (int t = 0; t < sweeps; ++t, ++s->sweep) {
    KIT_RANGE_PUSH("sweep");
    for (int col = 0; col < 2; ++col) {
      const ising_plan *pl = &s->plan[col];
      for (int side = 0; side < 2; ++side)
        if (pl->recv_plane[side] >= 0)
          kit_halo_irecv(&s->halo, side, s->spin + ising_part_offset(b, pl->recv_plane[side], pl->part));
      KIT_RANGE_PUSH("boundary");
      ising_sweep_host(s->c.p, b, s->spin, s->coupling, col, s->sweep, pl->boundary, threads);
      KIT_RANGE_POP();
      for (int side = 0; side < 2; ++side)
        if (pl->send_plane[side] >= 0)
          kit_halo_isend(&s->halo, side, s->spin + ising_part_offset(b, pl->send_plane[side], pl->part));
      KIT_RANGE_PUSH("bulk");
      ising_sweep_host(s->c.p, b, s->spin, s->coupling, col, s->sweep, pl->bulk, threads);
      KIT_RANGE_POP();
      KIT_RANGE_PUSH("mpi_wait");
      kit_halo_waitall(&s->halo);
      KIT_RANGE_POP();
    }
    KIT_RANGE_POP();
  }
}

static void cpu_fetch(void *st, int8_t *interior) {
  cpu_state *s = st;
  const ising_block *b = &s->c.blk;
  memcpy(interior, s->spin + b->plane_stride, (size_t)b->n * b->plane_stride);
}

static const kit_halo *cpu_halo(void *st) { return &((cpu_state *)st)->halo; }

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  kit_halo_free(&s->halo);
  free(s->spin);
  free(s->coupling);
  free(s);
}

const ising_variant ising_cpu = {
    "cpu", "MPI ranks x OpenMP threads, no GPU (the reference and CPU baseline)", 0,
    cpu_setup, cpu_reset, cpu_run, cpu_fetch, cpu_halo, cpu_teardown,
};
