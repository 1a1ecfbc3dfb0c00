/* hybrid.c: the `hybrid` variant. One MPI rank per GPU, and the rank's CPU cores compute the
 * forces of a share of its cells (--cpu-fraction F, or auto: Sourouri Paper II's bandwidth
 * model, kept only if a short measurement beats the GPU-only schedule: kit_main, which
 * measures this variant at share 0 for that schedule). The CPU takes the last
 * k = round(F x owned cells) cells in local order: frontier cells first (they need the
 * received copies, which come to the host anyway: Bernaschi et al. Sec. 3.2.1), then, for
 * larger shares, internal cells too. Everything else is two-stream's (two_stream.c).
 * One velocity-Verlet step:
 *   1. (GPU, boundary stream) half kick, drift, binning; migration; the cell matrix;
 *   2. (GPU, bulk stream) forces on the internal cells the GPU keeps;
 *   3. (host) the particles of the frontier cells and of the CPU's cells and their
 *      neighbours to the host mirror; the frontier packed and sent; the CPU computes its
 *      internal cells while the messages travel;
 *   4. (host) the copies received and filtered, into the mirror and onto the device; the GPU
 *      computes its frontier cells (boundary stream), the CPU its frontier cells, with the
 *      same lj_force_on (lj.h) in the same order, so the split does not change a bit;
 *   5. (GPU, boundary stream) the CPU's forces to the device; after the bulk, the second half
 *      kick and thermodynamics.
 * With F = 0 the CPU computes nothing and the step is two-stream's. Step 1 and the end of
 * step 5 are every one-rank-per-GPU variant's (pt_rv_run, gpu_rank.c).
 *   mpiexec -n 2 build/bin/particles --variant hybrid --cpu-fraction 0.05 --cells 40 */
#include <stdlib.h>

#include "gpu_rank.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"
#include "lj.h"

typedef struct hybrid_state {
  pt_rank_variant v; /* first: the pt_rv_* contract functions take the state */
  int cpu_c0;        /* the CPU computes owned cells [cpu_c0, first[2]) */
  int cpu_cells;     /* first[2] - cpu_c0 */
} hybrid_state;

/* Forces of the owned cells [a, b) on the host, from the mirror (rows h_cstart, positions
 * h_x: owned particles and copies), into h_f, h_pe, h_vir. */
static void cpu_forces(hybrid_state *s, int a, int b) {
  if (b <= a) return;
  pt_gpu_tile *t = &s->v.r.t;
  const int *cs = t->h_cstart, *nbr = s->v.r.dec.nbr;
  const double *x = t->h_x, rc2 = s->v.r.p->rc2, eshift = s->v.r.p->eshift;
  double *f = t->h_f, *pe = t->h_pe, *vir = t->h_vir;
#pragma omp parallel for schedule(dynamic, 8)
  for (int c = a; c < b; ++c)
    for (int i = cs[c]; i < cs[c + 1]; ++i)
      lj_force_on(i, c, x, nbr, cs, rc2, eshift, f + 3 * i, pe + i, vir + i);
}

/* Steps 2-5 but the kick (also the initial forces). */
static void forces(pt_rank_variant *v) {
  hybrid_state *s = (hybrid_state *)v;
  pt_gpu_rank *r = &v->r;
  pt_gpu_tile *t = &r->t;
  const int f1 = r->dec.first[1], f2 = r->dec.first[2], c0 = s->cpu_c0;
  const int gpu_internal_end = c0 < f1 ? c0 : f1, cpu_frontier_begin = c0 > f1 ? c0 : f1;
  KIT_RANGE_PUSH("internal_launch");
  pt_tile_forces_bulk(t, 0, gpu_internal_end);
  KIT_RANGE_POP();
  KIT_RANGE_PUSH("d2h");
  pt_tile_fetch_frontier(t);
  KIT_RANGE_POP();
  pt_rank_frontier_start(r);
  KIT_RANGE_PUSH("cpu_internal");
  cpu_forces(s, c0, f1);
  KIT_RANGE_POP();
  pt_rank_frontier_finish(r);
  KIT_RANGE_PUSH("h2d");
  pt_tile_put_ghosts(t, &r->g);
  KIT_RANGE_POP();
  const int g = kit_gpu_range_begin("gpu_frontier", t->boundary);
  pt_tile_forces(t, f1, cpu_frontier_begin, t->boundary);
  kit_gpu_range_end(g, t->boundary);
  KIT_RANGE_PUSH("cpu_frontier");
  cpu_forces(s, cpu_frontier_begin, f2);
  KIT_RANGE_POP();
  pt_tile_put_forces(t, c0);
}

static void *hy_setup(const void *ctx) {
  const pt_ctx *c = ctx;
  const pt_decomp *d = &c->dec;
  /* kit_cpu_planes: round(F n), and the GPU keeps at least one cell. */
  const int cpu_cells = c->cpu_fraction > 0.0 ? kit_cpu_planes(d->first[2], c->cpu_fraction) : 0;
  const int cpu_c0 = d->first[2] - cpu_cells;
  /* The host mirror must hold the CPU cells' owned neighbours (the lowest local index among
   * them; the cell itself is one) and the frontier cells (their particles are sent). */
  int lo = d->first[1];
  for (int cell = cpu_c0; cell < d->first[2]; ++cell)
    for (int m = 0; m < 27; ++m) {
      const int nb = d->nbr[27 * cell + m];
      if (nb < lo) lo = nb;
    }
  hybrid_state *s = (hybrid_state *)pt_rv_new(c, sizeof *s, lo, 1, forces, 1);
  s->cpu_cells = cpu_cells;
  s->cpu_c0 = cpu_c0;
  pt_rv_start(&s->v);
  return s;
}

const pt_variant pt_hybrid = {
    .base = {.name = "hybrid",
             .summary = "one rank per GPU; the CPU cores compute the forces of a share of the cells "
                        "(--cpu-fraction F|auto)",
             .needs_gpu = 1,
             .setup = hy_setup,
             PT_RV_BASE,
             .hybrid = 1},
    PT_RV_HOOKS,
};
