/* cpu.c: the `cpu` variant. MPI ranks x OpenMP threads, no GPU: each rank sweeps its
 * z-slab with all its threads and exchanges one plane with each neighbour per step.
 * Paper III's CPU-only runs; with one rank it is the CPU baseline the GPU variants beat.
 * On a process grid other than 1x1xN (--procs, Paper II Figs. 3-5) the same overlap in 3D
 * (Paper II Listing 1): each rank sweeps its box's outer layer, packs its x and y faces, posts
 * up to six faces through kit/exchange.h (kit_exchange_start), sweeps the inner box, waits
 * (kit_exchange_finish), unpacks, swaps.
 *   mpiexec -n 2 build/bin/laplace --variant cpu --size 64
 *   mpiexec -n 4 build/bin/laplace --variant cpu --size 64 --procs 2x2x1 */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernel.h"
#include "kit/check.h"
#include "kit/exchange.h"
#include "kit/ranges.h"
#include "laplace.h"

typedef struct cpu_state {
  laplace_ctx c;
  double *u, *un;           /* current and next field, ghost planes included */
  kit_halo halo;            /* 1x1xN: the overlapped z-slab exchange */
  int grid;                 /* any other grid: layer, post the faces, inner box, wait, swap */
  int side[LAPLACE_FACES];  /* grid: faces with a neighbour rank (the outer layer's sides) */
  kit_exchange x;           /* grid: one link per face (LAPLACE_XM ... LAPLACE_ZP); its buffers hold the
                               x and y faces, packed (NULL without a neighbour) */
  laplace_cpu_block kernel; /* --cpu-block, resolved (auto: tuned on this grid) */
} cpu_state;

/* Each face's link (laplace_face_links), host buffers for the x and y faces. */
static void grid_init(cpu_state *s) {
  const laplace_block *b = &s->c.blk;
  kit_link links[LAPLACE_FACES];
  laplace_face_links(b, s->c.face_nbr, links);
  for (int f = 0; f < LAPLACE_FACES; ++f) s->side[f] = s->c.face_nbr[f] != MPI_PROC_NULL;
  kit_exchange_init_links(&s->x, KIT_COMM_HOST, MPI_COMM_WORLD, LAPLACE_FACES, links, MPI_DOUBLE,
                          sizeof(double), 1);
  kit_exchange_buffers(&s->x, laplace_packed_faces);
}

/* The receive buffers start as the ghost layers they will be unpacked into, so an exchange
 * that moves nothing (KIT_FAULT=stale-halo) leaves the ghosts as they were. */
static void grid_reset(cpu_state *s) {
  for (int f = 0; f < LAPLACE_ZM; ++f)
    if (s->x.buf_recv[f]) laplace_face_pack(&s->c.blk, s->un, f, 1, s->x.buf_recv[f]);
}

static void *cpu_setup(const void *arg) {
  const laplace_ctx *c = arg;
  cpu_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->u = kit_malloc(c->blk.points * sizeof(double), "laplace field");
  s->un = kit_malloc(c->blk.points * sizeof(double), "laplace field");
  s->grid = !laplace_grid_is_slab(c->p->procs);
  /* Planes go straight from and into the field arrays: no staging buffers. */
  if (s->grid)
    grid_init(s);
  else
    kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.sz, 0, 0);
  laplace_fill(c->p, &c->blk, s->u);
  laplace_fill(c->p, &c->blk, s->un);
  /* The host kernel (--cpu-block; auto times a few on this slab, sweeping u into un). */
  s->kernel = laplace_cpu_block_resolve(&c->p->cpu_block, c->env, c->p, &c->blk, s->u, s->un, 1,
                                        c->blk.nz + 1, c->env->threads);
  laplace_fill(c->p, &c->blk, s->un);
  if (s->grid) grid_reset(s);
  return s;
}

static void cpu_reset(void *st) {
  cpu_state *s = st;
  laplace_fill(s->c.p, &s->c.blk, s->u);
  laplace_fill(s->c.p, &s->c.blk, s->un);
  if (s->grid) grid_reset(s);
}

/* A grid's step, Paper II Listing 1 in 3D: the outer layer (the points next to a face with a
 * neighbour: what the neighbours need), the x and y faces packed and every face posted
 * (kit_exchange_start), the inner box while the messages travel, the wait
 * (kit_exchange_finish) and the unpacking into the ghost layers, the swap. A side at the
 * domain's edge sends nothing, so its points are left to the inner box: the work before the
 * messages leave is only what they carry. The layer and the inner box partition the box
 * (laplace_layer_parts), so every point is computed once, by the same expression. The
 * phases are the slab's: boundary (layer, pack, post), bulk, mpi_wait (with the layer's mpi). */
static void grid_run(cpu_state *s, int steps) {
  const laplace_block *b = &s->c.blk;
  const int threads = s->c.env->threads;
  const laplace_cpu_block *k = &s->kernel;
  int lo[3], hi[3];
  laplace_inner_box(b, s->side, lo, hi);
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    KIT_RANGE_PUSH("boundary");
    laplace_cpu_sweep_layer(s->c.p, b, s->u, s->un, s->side, threads, k);
    void *send[LAPLACE_FACES], *recv[LAPLACE_FACES];
    for (int f = 0; f < LAPLACE_ZM; ++f) {
      if (s->x.buf_send[f]) laplace_face_pack(b, s->un, f, 0, s->x.buf_send[f]);
      send[f] = s->x.buf_send[f];
      recv[f] = s->x.buf_recv[f];
    }
    /* z faces straight from and into the field: planes 1 and nz are in the layer wherever
     * they are sent, and the inner box writes neither them nor the ghost planes. */
    send[LAPLACE_ZM] = s->un + b->sz;
    send[LAPLACE_ZP] = s->un + (size_t)b->nz * b->sz;
    recv[LAPLACE_ZM] = s->un;
    recv[LAPLACE_ZP] = s->un + (size_t)(b->nz + 1) * b->sz;
    kit_exchange_start(&s->x, send, recv, NULL);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("bulk");
    laplace_cpu_sweep_box(s->c.p, b, s->u, s->un, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], threads, k);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi_wait");
    kit_exchange_finish(&s->x);
    for (int f = 0; f < LAPLACE_ZM; ++f)
      if (s->x.buf_recv[f]) laplace_face_unpack(b, s->un, f, 1, s->x.buf_recv[f]);
    KIT_RANGE_POP();
    double *t_ = s->u;
    s->u = s->un;
    s->un = t_;
    KIT_RANGE_POP();
  }
}

static void cpu_run(void *st, int steps) {
  cpu_state *s = st;
  if (s->grid) {
    grid_run(s, steps);
    return;
  }
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
