/* gpu_rank.c: a GPU subdomain with its exchange plans (gpu_rank.h): the host half of the step
 * every GPU variant shares, Bernaschi et al. Sec. 3.2.2 (migration: leavers out, membership
 * test in) and Sec. 3.2.1 (frontier copies to the connections of each cell's row of the
 * connection matrix only, filter on receipt). */
#include "gpu_rank.h"

#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"

#define PUSH(r, name)                      \
  do {                                     \
    if ((r)->ranges) KIT_RANGE_PUSH(name); \
  } while (0)
#define POP(r)                        \
  do {                                \
    if ((r)->ranges) KIT_RANGE_POP(); \
  } while (0)

void pt_rank_setup(pt_gpu_rank *r, const pt_params *p, MPI_Comm comm, pt_decomp dec, const pt_particles *init,
                   int device, int lo_cell, int host_forces, int tiles_per_rank, int tile, int faults) {
  memset(r, 0, sizeof *r);
  r->p = p;
  r->dec = dec;
  r->init = init;
  r->ranges = 1;
  if (tiles_per_rank > 0) {
    px_init_tiles(&r->ghost, comm, &r->dec, PT_GHOST_W, 0, tile, tiles_per_rank);
    px_init_tiles(&r->migr, comm, &r->dec, PT_MIGRANT_W, 1, tile, tiles_per_rank);
  } else {
    /* The cpu variant's tags (cpu.c): ghosts at base 0, migrants at base 64. */
    px_init(&r->ghost, comm, &r->dec, PT_GHOST_W, 0);
    px_init(&r->migr, comm, &r->dec, PT_MIGRANT_W, 64);
  }
  r->stale = faults && kit_fault("stale-halo");
  pt_tile_init(&r->t, p, &r->dec, device, init->n, lo_cell, host_forces);
}

void pt_rank_free(pt_gpu_rank *r) {
  pt_tile_free(&r->t);
  px_free(&r->ghost);
  px_free(&r->migr);
  pt_ghosts_free(&r->g);
  pt_set_free(&r->arr);
  pt_decomp_free(&r->dec);
  memset(r, 0, sizeof *r);
}

void pt_rank_load(pt_gpu_rank *r) {
  const pt_particles *in = r->init;
  pt_tile_clear(&r->t);
  r->exchanged = 0;
  r->g.n = 0;
  r->arr.n = 0;
  pt_set_reserve(&r->arr, in->n + 1);
  for (long long i = 0; i < in->n; ++i) {
    const int c = pt_cell_of(r->p, &r->dec, in->x + 3 * i);
    if (c < 0 || pt_group(&r->dec, c) == PT_EXTERNAL)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "initial particle %lld is not in an owned cell",
              (long long)in->id[i]);
    r->arr.id[r->arr.n] = in->id[i];
    memcpy(r->arr.x + 3 * r->arr.n, in->x + 3 * i, 3 * sizeof(double));
    memcpy(r->arr.v + 3 * r->arr.n, in->v + 3 * i, 3 * sizeof(double));
    r->arr.cell[r->arr.n++] = c;
  }
  PUSH(r, "sort");
  pt_tile_arrive_and_sort(&r->t, &r->arr, 0);
  POP(r);
}

void pt_rank_zero_counters(pt_gpu_rank *r) {
  memset(&r->tr, 0, sizeof r->tr);
  r->ghost.messages = r->ghost.bytes = r->migr.messages = r->migr.bytes = 0;
}

void pt_rank_migrate_start(pt_gpu_rank *r) {
  double *rec = NULL;
  PUSH(r, "migrate");
  r->leavers = pt_tile_leavers(&r->t, &rec);
  r->tr.wall_hits += r->t.wall_hits;
  pt_pack_migrants(r->p, &r->dec, rec, r->leavers, &r->migr, &r->tr);
  px_start(&r->migr);
  POP(r);
}

void pt_rank_migrate_finish(pt_gpu_rank *r) {
  PUSH(r, "migrate");
  px_finish(&r->migr);
  r->arr.n = 0;
  pt_unpack_migrants(r->p, &r->dec, &r->migr, &r->arr);
  POP(r);
  PUSH(r, "sort");
  pt_tile_arrive_and_sort(&r->t, &r->arr, r->leavers);
  POP(r);
}

int pt_rank_exchanges(const pt_gpu_rank *r) {
  return !(r->stale && r->exchanged);
}

void pt_rank_frontier_start(pt_gpu_rank *r) {
  if (!pt_rank_exchanges(r)) return;
  PUSH(r, "pack");
  pt_pack_frontier(r->p, &r->dec, r->t.h_cstart, r->t.h_id, r->t.h_x, &r->ghost, &r->tr);
  px_start(&r->ghost);
  POP(r);
}

void pt_rank_frontier_finish(pt_gpu_rank *r) {
  if (pt_rank_exchanges(r)) {
    PUSH(r, "mpi_wait");
    px_finish(&r->ghost);
    POP(r);
    PUSH(r, "unpack");
    pt_unpack_ghosts(r->p, &r->dec, &r->ghost, &r->g, &r->tr);
    POP(r);
  }
  r->exchanged = 1;
}

long long pt_rank_fetch(pt_gpu_rank *r, double *out) {
  return pt_tile_fetch(&r->t, out);
}

const pt_traffic *pt_rank_traffic(pt_gpu_rank *r) {
  r->tr.messages = r->ghost.messages + r->migr.messages;
  r->tr.bytes = r->ghost.bytes + r->migr.bytes;
  return &r->tr;
}

pt_rank_variant *pt_rv_new(const pt_ctx *c, size_t size, int lo_cell, int host_forces,
                           void (*forces)(pt_rank_variant *), int bulk) {
  pt_rank_variant *v = calloc(1, size);
  if (!v) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  pt_decomp dec; /* the rank's own (pt_rank_free frees it): the caller keeps c->dec */
  pt_decomp_copy(&dec, &c->dec);
  pt_rank_setup(&v->r, c->p, c->comm, dec, c->init, c->env->device, lo_cell, host_forces, 0, 0, c->faults);
  v->forces = forces;
  v->bulk = bulk;
  return v;
}

void pt_rv_start(pt_rank_variant *v) {
  pt_rank_load(&v->r);
  v->forces(v);
  if (v->bulk) pt_tile_join(&v->r.t); /* the thermo row reads the bulk's energies too */
  pt_tile_thermo_row(&v->r.t);
  pt_tile_sync(&v->r.t);
  pt_rank_zero_counters(&v->r);
}

void pt_rv_reset(void *st) {
  pt_rv_start(st);
}

void pt_rv_run(void *st, int steps) {
  pt_rank_variant *v = st;
  pt_gpu_rank *r = &v->r;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    pt_tile_kick_drift(&r->t);
    pt_rank_migrate_start(r);
    pt_rank_migrate_finish(r);
    v->forces(v);
    pt_tile_end_step(&r->t, v->bulk);
    r->tr.steps++;
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_gpu");
  pt_tile_sync(&r->t);
  KIT_RANGE_POP();
}

void pt_rv_fetch(void *st, void *out) {
  pt_rank_fetch(&((pt_rank_variant *)st)->r, out);
}

long long pt_rv_count(void *st) {
  return pt_rank_fetch(&((pt_rank_variant *)st)->r, NULL);
}

const double *pt_rv_thermo(void *st, int *steps) {
  pt_rank_variant *v = st;
  *steps = v->r.t.th_rows - 1;
  return v->r.t.th;
}

const pt_traffic *pt_rv_traffic(void *st) {
  return pt_rank_traffic(&((pt_rank_variant *)st)->r);
}

void pt_rv_teardown(void *st) {
  pt_rank_free(&((pt_rank_variant *)st)->r);
  free(st);
}
