/* naive.c: the `naive` variant. One MPI rank per GPU, one stream, no overlap (Bernaschi et al.
 * Sec. 2's baseline, "GPUs idle during copies", on the particle scheme of Sec. 3.2). The
 * particles live on the device; one velocity-Verlet step:
 *   1. half kick, drift and binning on the GPU;
 *   2. migration: the leavers to the host, MPI to the connections owning their cells, the
 *      arrivals (membership test) back to the device;
 *   3. the cell matrix rebuilt on the GPU (counting sort by cell, then by id);
 *   4. the frontier cells' particles to the host, MPI to the connections of each cell's row
 *      of the connection matrix, the filtered copies back to the device;
 *   5. forces on every owned cell (internal and frontier) in one kernel, second half kick.
 * The GPU idles while 2 and 4 copy and talk.
 *   mpiexec -n 2 build/bin/particles --variant naive --cells 40 --iters 100 */
#include <stdlib.h>

#include "gpu_rank.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct naive_state {
  pt_gpu_rank r;
} naive_state;

/* Steps 4-5 (also the initial forces): copies out, MPI, copies in, then every force. */
static void forces(naive_state *s) {
  pt_gpu_rank *r = &s->r;
  pt_gpu_tile *t = &r->t;
  KIT_RANGE_PUSH("d2h");
  pt_tile_fetch_frontier(t);
  KIT_RANGE_POP();
  pt_rank_frontier_start(r);
  pt_rank_frontier_finish(r);
  KIT_RANGE_PUSH("h2d");
  pt_tile_put_ghosts(t, &r->g);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("forces");
  const int g = kit_gpu_range_begin("gpu_forces", t->boundary);
  pt_tile_forces(t, 0, r->dec.first[2], t->boundary);
  kit_gpu_range_end(g, t->boundary);
  KIT_RANGE_POP();
}

static void init_state(naive_state *s) {
  pt_rank_load(&s->r);
  forces(s);
  pt_tile_thermo_row(&s->r.t);
  pt_tile_sync(&s->r.t);
  pt_rank_zero_counters(&s->r);
}

static void *naive_setup(const pt_ctx *c) {
  naive_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  pt_rank_setup(&s->r, c->p, c->comm, c->dec, c->init, c->env->device, c->dec.first[1], 0, 0, 0, c->faults);
  init_state(s);
  return s;
}

static void naive_reset(void *st) {
  init_state(st);
}

static void naive_run(void *st, int steps) {
  naive_state *s = st;
  pt_gpu_rank *r = &s->r;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    pt_tile_kick_drift(&r->t);
    pt_rank_migrate_start(r);
    pt_rank_migrate_finish(r);
    forces(s);
    pt_tile_end_step(&r->t, 0);
    r->tr.steps++;
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_gpu");
  pt_tile_sync(&r->t);
  KIT_RANGE_POP();
}

static long long naive_fetch(void *st, double *out) {
  return pt_rank_fetch(&((naive_state *)st)->r, out);
}

static const double *naive_thermo(void *st, int *steps) {
  naive_state *s = st;
  *steps = s->r.t.th_rows - 1;
  return s->r.t.th;
}

static const pt_traffic *naive_traffic(void *st) {
  return pt_rank_traffic(&((naive_state *)st)->r);
}

static void naive_teardown(void *st) {
  naive_state *s = st;
  pt_rank_free(&s->r);
  free(s);
}

const pt_variant pt_naive = {
    "naive",
    "one rank per GPU, one stream: drift, migrate, sort, then D2H, MPI, H2D of the frontier, then all forces",
    1,
    naive_setup,
    naive_reset,
    naive_run,
    naive_fetch,
    naive_thermo,
    naive_traffic,
    naive_teardown,
};
