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
 * The GPU idles while 2 and 4 copy and talk. Steps 1-3 and the end of 5 are every
 * one-rank-per-GPU variant's (pt_rv_run, gpu_rank.c); this file is the forces stage.
 *   mpiexec -n 2 build/bin/particles --variant naive --cells 40 --iters 100 */
#include <stdlib.h>

#include "gpu_rank.h"
#include "kit/check.h"
#include "kit/ranges.h"

/* Steps 4-5 (also the initial forces): copies out, MPI, copies in, then every force. */
static void forces(pt_rank_variant *v) {
  pt_gpu_rank *r = &v->r;
  pt_gpu_tile *t = &r->t;
  pt_rank_ghosts(r);
  KIT_RANGE_PUSH("forces");
  const int g = kit_gpu_range_begin("gpu_forces", t->boundary);
  pt_tile_forces(t, 0, r->dec.first[2], t->boundary);
  kit_gpu_range_end(g, t->boundary);
  KIT_RANGE_POP();
}

static void *naive_setup(const void *ctx) {
  const pt_ctx *c = ctx;
  pt_rank_variant *v = pt_rv_new(c, sizeof *v, c->dec.first[1], 0, forces, 0 /* one stream */);
  pt_rv_start(v);
  return v;
}

const pt_variant pt_naive = {
    .base = {.name = "naive",
             .summary = "one rank per GPU, one stream: "
                        "drift, migrate, sort, then D2H, MPI, H2D of the frontier, then all forces",
             .needs_gpu = 1,
             .setup = naive_setup,
             PT_RV_BASE},
    PT_RV_HOOKS,
};
