/* reference.c: the oracle. A plain loop over the whole domain, no decomposition, no halo,
 * no GPU: what every variant must reproduce bit for bit (DESIGN.md Sec. 6). Each point is
 * computed independently, so the OpenMP loop gives the same bits with any thread count;
 * it is there only so that verifying a 512^3 run takes seconds, not minutes.
 * It also records max|u - g| after every sweep for the fixed-point check. */
#include <math.h>
#include <stdlib.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "laplace.h"
#include "stencil.h"

static double max_err(const laplace_params *p, const laplace_block *b, const double *u) {
  double e = 0.0;
#pragma omp parallel for collapse(2) reduction(max : e) schedule(static)
  for (int k = 1; k <= b->nz; ++k)
    for (int j = 1; j <= b->ny; ++j)
      for (int i = 1; i <= b->nx; ++i) {
        const double d = fabs(u[k * b->sz + j * b->sy + i] - laplace_g(i, j, k, b->nx, b->ny, b->nz));
        if (!(d <= e)) e = d; /* NaN counts as the worst error */
      }
  return e;
}

void laplace_reference(const laplace_params *p, double *out, double *err) {
  const laplace_block b = laplace_block_make(p->size[0], p->size[1], 1, p->size[2]);
  double *u = kit_malloc(b.points * sizeof *u, "oracle field");
  double *un = kit_malloc(b.points * sizeof *un, "oracle field");
  laplace_fill(p, &b, u);
  laplace_fill(p, &b, un);
  if (err) err[0] = max_err(p, &b, u);
  kit_progress pr = kit_progress_start(&p->run);
  for (int t = 1; t <= p->run.iters; ++t) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 1; k <= b.nz; ++k)
      for (int j = 1; j <= b.ny; ++j)
        for (int i = 1; i <= b.nx; ++i) {
          const size_t c = k * b.sz + j * b.sy + i;
          un[c] = laplace_update(u[c], u[c + 1], u[c + b.sy], u[c + b.sz], u[c - 1], u[c - b.sy], u[c - b.sz],
                                 p->alpha, p->beta);
        }
    double *t_ = u;
    u = un;
    un = t_;
    if (err) err[t] = max_err(p, &b, u);
    kit_progress_loop(&pr, "oracle step", t, p->run.iters);
  }
  laplace_copy_interior(&b, u, 1, b.nz + 1, out);
  free(u);
  free(un);
}
