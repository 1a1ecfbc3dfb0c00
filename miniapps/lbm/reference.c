/* reference.c: the oracle. A plain loop over the whole lattice, no decomposition, no halo,
 * no GPU: what every variant and rank count must reproduce bit for bit (DESIGN.md Sec. 6).
 * Each cell's update reads only the previous lattice, so the OpenMP loop gives the same bits
 * with any thread count; it is there only so that verification takes seconds, not minutes.
 * Risso Sec. 2.4 (the update), Sec. 2.5 (the cavity). */
#include <stdlib.h>

#include "d3q19.h"
#include "kit/check.h"
#include "kit/driver.h"
#include "lbm.h"

void lbm_reference(const lbm_params *p, int steps, double *out) {
  const lbm_block b = lbm_block_make(p->size[0], p->size[1], 1, p->size[2]);
  const lbm_geom g = lbm_geom_of(p, &b);
  double *f = kit_malloc(b.total * sizeof *f, "oracle lattice");
  double *fn = kit_malloc(b.total * sizeof *fn, "oracle lattice");
  lbm_fill(p, &b, f);
  lbm_fill(p, &b, fn);
  kit_progress pr = kit_progress_start(&p->run);
  for (int t = 0; t < steps; ++t) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int l = 1; l <= b.nz; ++l)
      for (int j = 0; j < b.ny; ++j)
        for (int i = 0; i < b.nx; ++i)
          lbm_update_cell(f, fn, &g, i, j, l, p->omega, p->force[0], p->force[1], p->force[2]);
    double *t_ = f;
    f = fn;
    fn = t_;
    kit_progress_loop(&pr, "oracle step", t + 1, steps);
  }
  lbm_macroscopic(p, &b, f, 1, b.nz + 1, out);
  free(f);
  free(fn);
}
