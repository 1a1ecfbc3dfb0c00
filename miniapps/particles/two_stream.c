/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and a
 * bulk stream (Bernaschi et al. Fig. 2 and the last paragraph of Sec. 3.2.2: "the bulk/boundary
 * split lets communication overlap"). One velocity-Verlet step:
 *   1. (boundary) half kick, drift and binning; migration through the host; the cell matrix
 *      rebuilt (as naive.c: every later stage depends on it);
 *   2. (bulk) forces on the internal cells, which need no copy from anyone, launched as soon
 *      as the cell matrix is ready;
 *   3. (boundary, meanwhile) the frontier cells' particles to the host, MPI to the connections
 *      of each cell's row, the filtered copies back to the device, forces on the frontier
 *      cells;
 *   4. (boundary, after waiting for the bulk) second half kick, thermodynamics.
 * Streams and events: the bulk kernel waits for `sorted`; the boundary stream waits for
 * `bulk_done` before the kick, so the next step's drift never moves a particle the bulk is
 * still reading. The internal and frontier kernels write disjoint forces, and the copies that
 * arrive during the bulk kernel land behind the owned particles, where it never reads.
 *   mpiexec -n 2 build/bin/particles --variant two-stream --cells 40 --iters 100 */
#include <stdlib.h>

#include "gpu_rank.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  pt_gpu_rank r;
} two_stream_state;

/* Steps 2-3 (also the initial forces). */
static void forces(two_stream_state *s) {
  pt_gpu_rank *r = &s->r;
  pt_gpu_tile *t = &r->t;
  const pt_decomp *d = &r->dec;
  KIT_RANGE_PUSH("internal_launch");
  pt_tile_forces_bulk(t, 0, d->first[1]);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("d2h");
  pt_tile_fetch_frontier(t);
  KIT_RANGE_POP();
  pt_rank_frontier_start(r);
  pt_rank_frontier_finish(r);
  KIT_RANGE_PUSH("h2d");
  pt_tile_put_ghosts(t, &r->g);
  KIT_RANGE_POP();
  const int g = kit_gpu_range_begin("gpu_frontier", t->boundary);
  pt_tile_forces(t, d->first[1], d->first[2], t->boundary);
  kit_gpu_range_end(g, t->boundary);
}

static void init_state(two_stream_state *s) {
  pt_rank_load(&s->r);
  forces(s);
  pt_tile_join(&s->r.t); /* the thermo row reads the bulk's energies too */
  pt_tile_thermo_row(&s->r.t);
  pt_tile_sync(&s->r.t);
  pt_rank_zero_counters(&s->r);
}

static void *ts_setup(const pt_ctx *c) {
  two_stream_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  pt_rank_setup(&s->r, c->p, c->comm, c->dec, c->init, c->env->device, c->dec.first[1], 0, 0, 0, c->faults);
  init_state(s);
  return s;
}

static void ts_reset(void *st) {
  init_state(st);
}

static void ts_run(void *st, int steps) {
  two_stream_state *s = st;
  pt_gpu_rank *r = &s->r;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    pt_tile_kick_drift(&r->t);
    pt_rank_migrate_start(r);
    pt_rank_migrate_finish(r);
    forces(s);
    pt_tile_end_step(&r->t, 1);
    r->tr.steps++;
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_gpu");
  pt_tile_sync(&r->t);
  KIT_RANGE_POP();
}

static long long ts_fetch(void *st, double *out) {
  return pt_rank_fetch(&((two_stream_state *)st)->r, out);
}

static const double *ts_thermo(void *st, int *steps) {
  two_stream_state *s = st;
  *steps = s->r.t.th_rows - 1;
  return s->r.t.th;
}

static const pt_traffic *ts_traffic(void *st) {
  return pt_rank_traffic(&((two_stream_state *)st)->r);
}

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  pt_rank_free(&s->r);
  free(s);
}

const pt_variant pt_two_stream = {
    "two-stream",
    "one rank per GPU; internal cells on the bulk stream while the frontier goes D2H, MPI, H2D and computes",
    1,
    ts_setup,
    ts_reset,
    ts_run,
    ts_fetch,
    ts_thermo,
    ts_traffic,
    ts_teardown,
};
