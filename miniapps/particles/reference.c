/* reference.c: the independent all-pairs code the cell code is checked against (README.md
 * "Verification"). O(N^2), serial, minimum-image convention, no cells, no ranks, and the
 * Lennard-Jones expressions written out again here rather than taken from lj.h, so an error
 * in the cell classification, the connection matrix, the exchange, the filter, the migration
 * or the pair function itself cannot agree with itself. Only for small systems: the driver
 * runs it up to --allpairs-max particles. An irregular domain (p->geom) is not periodic: no
 * image at all, and the integrator reflects off the voxel walls by the rule of walls.h,
 * written out again here (floor on the voxel grid, mirror, flip), not called from there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "kit/check.h"
#include "kit/driver.h"
#include "particles.h"

void pt_allpairs_forces(const pt_params *p, long long n, const double *x, double *f, double *pe,
                        double *vir) {
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
        if (!p->geom) d[a] -= p->box[a] * nearbyint(d[a] / p->box[a]); /* the nearest image */
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

/* Is the voxel holding x open? Outside the grid is wall. */
static int open_at(const pt_geom *g, const double x[3]) {
  long long idx = 0;
  for (int a = 2; a >= 0; --a) {
    const double q = floor(x[a] / g->h);
    if (q < 0 || q >= g->nv[a]) return 0;
    idx = idx * g->nv[a] + (long long)q;
  }
  return g->mask[idx];
}

/* A drift from x0 that ended in a wall voxel: every coordinate that changed voxel is mirrored
 * across the face between its old and new voxel, and its velocity flips. */
static void bounce(const pt_geom *g, const double x0[3], double x[3], double v[3]) {
  if (open_at(g, x)) return;
  for (int a = 0; a < 3; ++a) {
    const double before = floor(x0[a] / g->h), after = floor(x[a] / g->h);
    if (before == after) continue;
    const double face = g->h * (after > before ? before + 1.0 : before);
    x[a] = face - (x[a] - face);
    v[a] = -v[a];
  }
}

void pt_allpairs_run(const pt_params *p, long long n, double *x, double *v, int steps) {
  double *f = kit_malloc((size_t)n * 3 * sizeof *f, "all-pairs forces");
  double pe, vir;
  pt_allpairs_forces(p, n, x, f, &pe, &vir);
  kit_progress pr = kit_progress_start(&p->run);
  for (int t = 0; t < steps; ++t) {
    for (long long i = 0; i < n; ++i) {
      double *xi = x + 3 * i, *vi = v + 3 * i;
      const double x0[3] = {xi[0], xi[1], xi[2]};
      for (int a = 0; a < 3; ++a) {
        vi[a] += 0.5 * p->dt * f[3 * i + a];
        xi[a] += p->dt * vi[a];
      }
      if (p->geom) bounce(p->geom, x0, xi, vi);
    }
    /* Positions stay unwrapped here: the minimum image makes wrapping unnecessary, and the
     * comparison wraps both sides. */
    pt_allpairs_forces(p, n, x, f, &pe, &vir);
    for (long long k = 0; k < 3 * n; ++k) v[k] += 0.5 * p->dt * f[k];
    kit_progress_loop(&pr, "oracle step", t + 1, steps);
  }
  free(f);
}
