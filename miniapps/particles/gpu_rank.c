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
  /* Alone in the periodic box, every message would go to this rank itself: the device makes
   * them (images.h), unless --images host asks for the staged path (multi-thread's tiles and
   * hybrid's CPU share, which reads the copies on the host, keep it). */
  int self = r->dec.nconn > 0 && tiles_per_rank == 0 && !host_forces &&
             (!p->images || strcmp(p->images, "device") == 0);
  for (int k = 0; k < r->dec.nconn; ++k) self = self && r->dec.conn[k].rank == r->dec.me;
  r->images = self;
  if (r->images) pt_tile_images_init(&r->t);
  /* --neighbor list: its copies are the rank's own particles, so it needs the images on the
   * device (problem.c refuses the other cases with a message). */
  r->list = p->list;
  if (r->list && !r->images)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "--neighbor list on a GPU needs one rank alone in the periodic box (--images device)");
  if (r->list) pt_tile_list_init(&r->t);
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

/* The copies the last device images dropped, once their kept count has reached the host
 * (after any synchronisation of the boundary stream). */
static void account_images(pt_gpu_rank *r) {
  if (!r->img_sent) return;
  r->tr.ghosts_discarded += r->img_sent - *r->t.h_kept;
  r->tr.device_images += *r->t.h_kept;
  r->img_sent = 0;
}

void pt_rank_zero_counters(pt_gpu_rank *r) {
  const long long entries = r->tr.list_entries, owned = r->tr.list_particles;
  memset(&r->tr, 0, sizeof r->tr);
  r->tr.list_entries = entries; /* the lists of the set-up's build, until the next one */
  r->tr.list_particles = owned;
  r->img_sent = 0;
  r->ghost.messages = r->ghost.bytes = r->migr.messages = r->migr.bytes = 0;
}

void pt_rank_migrate_start(pt_gpu_rank *r) {
  double *rec = NULL;
  PUSH(r, "migrate");
  r->leavers = pt_tile_leavers(&r->t, &rec);
  account_images(r);
  r->tr.wall_hits += r->t.wall_hits;
  r->tr.migrated += r->t.wrapped; /* the device's own migrants, counted as the host path would */
  pt_pack_migrants(r->p, &r->dec, rec, r->leavers, &r->migr, &r->tr);
  /* Alone in the box, nothing to send means nothing to receive: no message to itself. */
  if (!(r->images && r->leavers == 0)) px_start(&r->migr);
  POP(r);
}

void pt_rank_migrate_finish(pt_gpu_rank *r) {
  PUSH(r, "migrate");
  r->arr.n = 0;
  if (!(r->images && r->leavers == 0)) {
    px_finish(&r->migr);
    pt_unpack_migrants(r->p, &r->dec, &r->migr, &r->arr);
  }
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

/* Alone in the periodic box: the copies the host path would pack, send to itself and filter,
 * made on the device; what it would count, counted here from the frontier rows on the host. */
static void device_images(pt_gpu_rank *r) {
  pt_gpu_tile *t = &r->t;
  if (pt_rank_exchanges(r)) {
    r->img_sent = pt_count_frontier(&r->dec, t->h_cstart, &r->tr);
    pt_tile_image_candidates(t, r->img_sent);
  }
  pt_tile_place_images(t);
  r->exchanged = 1;
}

void pt_rank_ghosts(pt_gpu_rank *r) {
  pt_gpu_tile *t = &r->t;
  if (r->images) {
    PUSH(r, "images");
    device_images(r);
    POP(r);
    return;
  }
  PUSH(r, "d2h");
  pt_tile_fetch_frontier(t);
  POP(r);
  pt_rank_frontier_start(r);
  pt_rank_frontier_finish(r);
  PUSH(r, "h2d");
  pt_tile_put_ghosts(t, &r->g);
  POP(r);
}

/* --neighbor list: a build, as cpu.c's list_rebuild on one rank: the particles binned and
 * sorted by cell (not at set-up, where pt_rank_load did it), the images, the lists. */
static void list_build(pt_gpu_rank *r, int sort) {
  pt_gpu_tile *t = &r->t;
  if (sort) {
    PUSH(r, "sort");
    pt_tile_bin(t);
    const pt_set none = {0};
    pt_tile_arrive_and_sort(t, &none, 0);
    POP(r);
  }
  PUSH(r, "images");
  device_images(r);
  POP(r);
  PUSH(r, "list_build");
  pt_tile_list_build(t); /* synchronises: the images' kept count is in */
  POP(r);
  account_images(r);
  r->tr.list_entries = t->entries;
  r->tr.list_particles = t->n;
}

/* --neighbor list, one step (cpu.c's, one rank): kick, drift, wrap in place and the test for
 * a build; a build, or the order cells; the forces over the lists; the closing kick. Both
 * naive and two-stream take it: with one rank nothing travels, so there is nothing to overlap. */
static void list_step(pt_gpu_rank *r) {
  pt_gpu_tile *t = &r->t;
  pt_tile_list_kick_drift(t);
  PUSH(r, "list_check");
  const int far = pt_tile_list_far(t);
  POP(r);
  if (far) {
    list_build(r, 1);
    r->tr.list_builds++;
  } else {
    pt_tile_list_cells(t);
  }
  pt_tile_list_forces(t);
  pt_tile_end_step(t, 0);
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
  if (v->r.list) {
    list_build(&v->r, 0);
    pt_tile_list_forces(&v->r.t);
  } else {
    v->forces(v);
    if (v->bulk) pt_tile_join(&v->r.t); /* the thermo row reads the bulk's energies too */
  }
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
    if (r->list) {
      list_step(r);
      r->tr.steps++;
      KIT_RANGE_POP();
      continue;
    }
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
  account_images(r);
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
