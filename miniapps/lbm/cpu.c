/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU. Each rank updates its
 * z-slab with all its threads; per step it sends the five populations that leave its top
 * plane upwards and the five that leave its bottom plane downwards (Risso Sec. 4.2: only
 * what crosses the face travels, 5 of 19), computing the inner planes while the messages
 * fly (the outer/inner split of Sec. 4.3, Fig. 4.1). With one rank it is the CPU baseline.
 * On a process grid other than 1x1xN (--procs) each rank owns a box (box.h) and exchanges
 * with up to 18 neighbours (6 faces: 5 populations each; 12 edges: 1 each) through
 * kit/exchange.h, with the same overlap: the outer layer, pack, post (kit_exchange_start),
 * the inner box while the messages travel, wait (kit_exchange_finish), unpack, swap.
 *   mpiexec -n 2 build/bin/lbm --variant cpu --size 32 --iters 100
 *   mpiexec -n 4 build/bin/lbm --variant cpu --size 32 --iters 100 --procs 2x2x1 */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/exchange.h"
#include "kit/ranges.h"
#include "lbm.h"

typedef struct cpu_state {
  lbm_ctx c;
  double *f, *fn;           /* current and next lattice (post-collision populations), ghosts included */
  kit_halo halo;            /* 1x1xN: staging buffers of 5 * nx * ny doubles per side */
  int grid;                 /* any other grid: the box's step (grid_run) */
  lbm_box box;              /* grid: the box and its padded storage (f, fn hold box.total doubles) */
  kit_exchange x;           /* grid: one link per face and edge (box.h's numbering), its buffers the
                               packed messages (NULL without a neighbour) */
  int side[LBM_FACE_LINKS]; /* grid: faces with a neighbour rank */
} cpu_state;

static void grid_init(cpu_state *s) {
  kit_link links[LBM_LINKS];
  lbm_box_links(&s->box, s->c.p->procs, s->c.env->rank, links);
  for (int n = 0; n < LBM_FACE_LINKS; ++n) s->side[n] = links[n].rank != MPI_PROC_NULL;
  kit_exchange_init_links(&s->x, KIT_COMM_HOST, MPI_COMM_WORLD, LBM_LINKS, links, MPI_DOUBLE, sizeof(double),
                          1);
  kit_exchange_buffers(&s->x, NULL); /* every link's message is packed */
}

/* The grid's initial state; the receive buffers start as the ghost layers they will be
 * unpacked into, so an exchange that moves nothing (KIT_FAULT=stale-halo) leaves the ghosts
 * stale, as a missing exchange would. */
static void grid_state(cpu_state *s) {
  lbm_box_fill(s->c.p, &s->box, s->f);
  lbm_box_fill(s->c.p, &s->box, s->fn);
  for (int n = 0; n < LBM_LINKS; ++n)
    if (s->x.buf_recv[n]) lbm_box_pack(&s->box, s->f, n, 1, s->x.buf_recv[n]);
}

/* The receive buffers start out holding the initial ghost populations, so a message that
 * never arrives (KIT_FAULT=stale-halo) leaves the ghosts stale, as a missing exchange would,
 * rather than filling them with zeros that any check would catch. */
static void init_state(cpu_state *s) {
  if (s->grid) {
    grid_state(s);
    return;
  }
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
  s->grid = lbm_on_grid(c->p);
  if (s->grid) {
    s->box = lbm_box_make(c->p, &c->blk);
    s->f = kit_malloc(s->box.total * sizeof(double), "lbm lattice");
    s->fn = kit_malloc(s->box.total * sizeof(double), "lbm lattice");
    grid_init(s);
  } else {
    s->f = kit_malloc(c->blk.total * sizeof(double), "lbm lattice");
    s->fn = kit_malloc(c->blk.total * sizeof(double), "lbm lattice");
    kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], (size_t)LBM_ZQ * c->blk.plane,
                  1, 0);
  }
  init_state(s);
  return s;
}

static void cpu_reset(void *st) {
  init_state(st);
}

/* A grid's step, the slab's overlap in 3D (Risso Sec. 4.3): the outer layer (the cells next to
 * a face with a neighbour rank: every cell a link sends from), the packing of every link and
 * its posting (kit_exchange_start), the inner box while the messages travel, the wait
 * (kit_exchange_finish), the unpacking into the ghost layers, the swap. Each cell is updated
 * once, by the same expressions wherever it falls, so the split does not touch the bits
 * (lbm_box_regions_of: the layer's up to six parts and the inner box). */
static void grid_run(cpu_state *s, int steps) {
  const lbm_box *b = &s->box;
  const int threads = s->c.env->threads;
  const lbm_box_regions r = lbm_box_regions_of(b, s->side);
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("boundary");
    for (int f = 0; f < LBM_FACE_LINKS; ++f)
      lbm_box_update(s->c.p, b, s->f, s->fn, r.lo[f], r.hi[f], threads);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("pack");
    void *send[LBM_LINKS], *recv[LBM_LINKS];
    for (int n = 0; n < LBM_LINKS; ++n) {
      if (s->x.buf_send[n]) lbm_box_pack(b, s->fn, n, 0, s->x.buf_send[n]);
      send[n] = s->x.buf_send[n];
      recv[n] = s->x.buf_recv[n];
    }
    KIT_RANGE_POP();
    kit_exchange_start(&s->x, send, recv, NULL);
    KIT_RANGE_PUSH("bulk");
    lbm_box_update(s->c.p, b, s->f, s->fn, r.in_lo, r.in_hi, threads);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi_wait");
    kit_exchange_finish(&s->x);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("unpack");
    for (int n = 0; n < LBM_LINKS; ++n)
      if (s->x.buf_recv[n]) lbm_box_unpack(b, s->fn, n, 1, s->x.buf_recv[n]);
    KIT_RANGE_POP();
    double *t_ = s->f;
    s->f = s->fn;
    s->fn = t_;
    KIT_RANGE_POP();
  }
}

static void cpu_run(void *st, int steps) {
  cpu_state *s = st;
  if (s->grid) {
    grid_run(s, steps);
    return;
  }
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
  if (s->grid)
    lbm_box_macroscopic(s->c.p, &s->box, s->f, macro);
  else
    lbm_macroscopic(s->c.p, &s->c.blk, s->f, 1, s->c.blk.nz + 1, macro);
}

static void cpu_fetch_lattice(void *st, double *f) {
  cpu_state *s = st;
  if (s->grid)
    lbm_box_lattice_planes(&s->box, s->f, f);
  else
    lbm_lattice_planes(&s->c.blk, s->f, f);
}

static const kit_halo *cpu_halo(void *st) {
  cpu_state *s = st;
  return s->grid ? &s->x.halo : &s->halo;
}

static void cpu_teardown(void *st) {
  cpu_state *s = st;
  if (s->grid) {
    kit_exchange_free(&s->x);
  } else {
    kit_halo_free(&s->halo);
  }
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
