/* reference.c: the independent all-pairs code the cell code is checked against (README.md
 * "Verification"). O(N^2), serial, minimum-image convention, no cells, no ranks, and the
 * Lennard-Jones expressions written out again here rather than taken from lj.h, so an error
 * in the cell classification, the connection matrix, the exchange, the filter, the migration
 * or the pair function itself cannot agree with itself. Only for small systems: the driver
 * runs it up to --allpairs-max particles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "particles.h"

void pt_allpairs_forces(const pt_params *p, long long n, const double *x, double *f, double *pe, double *vir) {
  const double rc2 = p->rc * p->rc;
  /* V(r) = 4 (r^-12 - r^-6), minus V(rc) with --shift; -dV/dr / r = (48 r^-14 - 24 r^-8). */
  const double vrc = p->shift ? 4.0 * (pow(p->rc, -12.0) - pow(p->rc, -6.0)) : 0.0;
  double e = 0.0, w = 0.0;
  memset(f, 0, (size_t)n * 3 * sizeof *f);
  for (long long i = 0; i < n; ++i)
    for (long long j = i + 1; j < n; ++j) {
      double d[3], r2 = 0.0;
      for (int a = 0; a < 3; ++a) {
        d[a] = x[3 * i + a] - x[3 * j + a];
        d[a] -= p->box[a] * nearbyint(d[a] / p->box[a]); /* the nearest image */
        r2 += d[a] * d[a];
      }
      if (r2 >= rc2) continue;
      const double s2 = 1.0 / r2, s6 = s2 * s2 * s2, s12 = s6 * s6;
      const double fr = (48.0 * s12 - 24.0 * s6) * s2;
      e += 4.0 * (s12 - s6) - vrc;
      w += fr * r2;
      for (int a = 0; a < 3; ++a) {
        f[3 * i + a] += fr * d[a]; /* Newton's third law: the pair once, both ends */
        f[3 * j + a] -= fr * d[a];
      }
    }
  *pe = e;
  *vir = w;
}

void pt_allpairs_run(const pt_params *p, long long n, double *x, double *v, int steps) {
  double *f = kit_malloc((size_t)n * 3 * sizeof *f, "all-pairs forces");
  double pe, vir;
  pt_allpairs_forces(p, n, x, f, &pe, &vir);
  for (int t = 0; t < steps; ++t) {
    for (long long k = 0; k < 3 * n; ++k) {
      v[k] += 0.5 * p->dt * f[k];
      x[k] += p->dt * v[k];
    }
    /* Positions stay unwrapped here: the minimum image makes wrapping unnecessary, and the
     * comparison wraps both sides. */
    pt_allpairs_forces(p, n, x, f, &pe, &vir);
    for (long long k = 0; k < 3 * n; ++k) v[k] += 0.5 * p->dt * f[k];
  }
  free(f);
}
