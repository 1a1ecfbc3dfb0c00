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
 * Step 1 and the end of step 4 are every one-rank-per-GPU variant's (pt_rv_run, gpu_rank.c);
 * this file is the forces stage.
 *   mpiexec -n 2 build/bin/particles --variant two-stream --cells 40 --iters 100 */
#include <stdlib.h>

#include "gpu_rank.h"
#include "kit/check.h"
#include "kit/ranges.h"

/* Steps 2-3 (also the initial forces). */
static void forces(pt_rank_variant *v) {
  pt_gpu_rank *r = &v->r;
  pt_gpu_tile *t = &r->t;
  const pt_decomp *d = &r->dec;
  KIT_RANGE_PUSH("internal_launch");
  pt_tile_forces_bulk(t, 0, d->first[1]);
  KIT_RANGE_POP();
  pt_rank_ghosts(r);
  const int g = kit_gpu_range_begin("gpu_frontier", t->boundary);
  pt_tile_forces(t, d->first[1], d->first[2], t->boundary);
  kit_gpu_range_end(g, t->boundary);
}

static void *ts_setup(const void *ctx) {
  const pt_ctx *c = ctx;
  pt_rank_variant *v = pt_rv_new(c, sizeof *v, c->dec.first[1], 0, forces, 1);
  pt_rv_start(v);
  return v;
}

const pt_variant pt_two_stream = {
    .base = {.name = "two-stream",
             .summary = "one rank per GPU; internal cells on the bulk stream "
                        "while the frontier goes D2H, MPI, H2D and computes",
             .needs_gpu = 1,
             .setup = ts_setup,
             PT_RV_BASE},
    PT_RV_HOOKS,
};
