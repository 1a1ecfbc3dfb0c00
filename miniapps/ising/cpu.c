/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU. Each half-sweep updates
 * the boundary planes first, starts the exchange of the part they changed, updates the
 * bulk while it travels, and waits (Bernaschi Sec. 3.1, Fig. 3: z-decomposition; Fig. 5:
 * checkerboard sends both ways, sliced one way). With --layout msc the slab is stored one
 * bit per spin and updated by the GPU kernel's own per-thread code (sliced_bits.h, Lulli
 * et al. Sec. III), a slice as bits travelling.
 *   mpiexec -n 2 build/bin/ising --variant cpu --size 16 --iters 20 */
#include <stdlib.h>
#include <string.h>

#include "ising.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "sliced_bits.h"

typedef struct cpu_state {
  ising_ctx c;
  int bits;          /* --layout msc */
  int8_t *spin;      /* local planes 0..n+1 (bytes; NULL with bits) */
  uint8_t *coupling; /* local planes 1..n */
  uint32_t *sbits;   /* with bits: spins of local planes 0..n+1 */
  uint32_t *jbits;   /* with bits: the six coupling planes of local planes 1..n */
  kit_halo halo;
  ising_plan plan[2];
  uint32_t sweep; /* global index of the next sweep */
} cpu_state;

static void fill(cpu_state *s) {
  if (s->bits)
    ising_bits_fill_host(s->c.p, &s->c.blk, s->sbits, s->jbits, s->c.env->threads);
  else
    ising_fill(s->c.p, &s->c.blk, s->spin, s->coupling, s->c.env->threads);
}

/* A plane part where it lives and travels: no staging. */
static void *part(cpu_state *s, int plane, int p) {
  if (s->bits) return s->sbits + (size_t)plane * ising_bits_plane_words(&s->c.blk);
  return s->spin + ising_part_offset(&s->c.blk, plane, p);
}

static void sweep(cpu_state *s, int colour, ising_planes planes) {
  const int threads = s->c.env->threads;
  if (s->bits)
    ising_bits_sweep_host(s->c.p, &s->c.blk, s->sbits, s->jbits, colour, s->sweep, planes, threads);
  else
    ising_sweep_host(s->c.p, &s->c.blk, s->spin, s->coupling, colour, s->sweep, planes, threads);
}

static void *cpu_setup(const void *arg) {
  const ising_ctx *c = arg;
  cpu_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->sweep = (uint32_t)c->p->start_sweep;
  s->bits = ising_msc(c->p);
  const ising_block *b = &c->blk;
  if (s->bits) {
    const size_t pw = ising_bits_plane_words(b);
    s->sbits = kit_malloc((size_t)(b->n + 2) * pw * sizeof *s->sbits, "spin bits");
    s->jbits = kit_malloc((size_t)6 * b->n * pw * sizeof *s->jbits, "coupling bits");
  } else {
    s->spin = kit_malloc((size_t)(b->n + 2) * b->plane_stride, "spins");
    s->coupling = kit_malloc((size_t)b->n * b->plane_stride, "couplings");
  }
  kit_halo_init_typed(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP],
                      ising_message_bytes(c->p, b), MPI_INT8_T, 1, 0, 0);
  for (int col = 0; col < 2; ++col) s->plan[col] = ising_make_plan(b, col);
  fill(s);
  return s;
}

static void cpu_reset(void *st) {
  cpu_state *s = st;
  fill(s);
  s->sweep = (uint32_t)s->c.p->start_sweep; /* a restart continues the random numbers */
}

static void cpu_run(void *st, int sweeps) {
  cpu_state *s = st;
  for (int t = 0; t < sweeps; ++t, ++s->sweep) {
    KIT_RANGE_PUSH("sweep");
    for (int col = 0; col < 2; ++col) {
      const ising_plan *pl = &s->plan[col];
      for (int side = 0; side < 2; ++side)
        if (pl->recv_plane[side] >= 0)
          kit_halo_irecv(&s->halo, side, part(s, pl->recv_plane[side], pl->part));
      KIT_RANGE_PUSH("boundary");
      sweep(s, col, pl->boundary);
      KIT_RANGE_POP();
      for (int side = 0; side < 2; ++side)
        if (pl->send_plane[side] >= 0)
          kit_halo_isend(&s->halo, side, part(s, pl->send_plane[side], pl->part));
      KIT_RANGE_PUSH("bulk");
      sweep(s, col, pl->bulk);
      KIT_RANGE_POP();
      KIT_RANGE_PUSH("mpi_wait");
      kit_halo_waitall(&s->halo);
      KIT_RANGE_POP();
    }
    KIT_RANGE_POP();
  }
}

static void cpu_fetch(void *st, void *dst) {
  int8_t *interior = dst; /* layout order, local planes 1..n */
  cpu_state *s = st;
  const ising_block *b = &s->c.blk;
  if (s->bits)
    ising_bits_unpack_host(b, s->sbits, interior, s->c.env->threads);
  else
    memcpy(interior, s->spin + b->plane_stride, (size_t)b->n * b->plane_stride);
}

static const kit_halo *cpu_halo(void *st) {
  return &((cpu_state *)st)->halo;
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  kit_halo_free(&s->halo);
  free(s->spin);
  free(s->coupling);
  free(s->sbits);
  free(s->jbits);
  free(s);
}

const ising_variant ising_cpu = {
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
