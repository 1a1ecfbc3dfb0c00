/* verify.c: the checks of a laplace run (README.md "Verification").
 * - oracle: the gathered field equals the serial reference (reference.c) bit for bit;
 * - fixed point, no oracle needed: g = x + 2y + 3z is the exact fixed point when
 *   alpha + 6 beta = 1 with non-negative weights, so by the discrete maximum principle
 *   max|u - g| cannot grow: the variant's final error is at most the initial one, and the
 *   oracle's error never grows from one sweep to the next. Rounding can add a few ulps
 *   of |g| <= 6 per sweep once the error itself is that small, hence the tolerance. */
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/halo.h"
#include "kit/report.h"
#include "laplace.h"
#include "stencil.h"

/* Rounding slack of the fixed-point checks: 16 x 6 x machine epsilon, 6 being the largest
 * |g|: a few roundings of values of that size per sweep. */
#define FIXED_POINT_TOL (16.0 * 6.0 * 2.220446049250313e-16)

int laplace_fixed_point_applies(const laplace_params *p) {
  return p->alpha >= 0.0 && p->beta >= 0.0 && fabs(p->alpha + 6.0 * p->beta - 1.0) <= 1e-12;
}

double laplace_max_error_vs_g(const laplace_params *p, const laplace_block *b, const double *interior) {
  double e = 0.0;
  const size_t nx = (size_t)b->nx, ny = (size_t)b->ny;
#pragma omp parallel for collapse(2) reduction(max : e) schedule(static)
  for (int l = 0; l < b->nz; ++l)
    for (int j = 0; j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i) {
        const double g = laplace_g(b->i0 + i, b->j0 + j, b->k0 + l, p->size[0], p->size[1], p->size[2]);
        const double d = fabs(interior[((size_t)l * ny + (size_t)j) * nx + (size_t)i] - g);
        if (!(d <= e)) e = d; /* NaN counts as the worst error */
      }
  return e;
}

/* A grid's gather: rank 0 collects every rank's box (i0, nx, j0, ny, k0, nz) with MPI_Gather,
 * checks that the boxes tile the domain (their points add up to it, each lies inside it), then
 * receives each box a plane (nx*ny doubles) per message, so counts stay ints, and places it
 * by its offsets. */
static double *gather_boxes(const laplace_params *p, const kit_env *env, const laplace_block *b,
                            const double *interior) {
  enum { TAG_BOX_PLANE = 310 };
  const int mine[6] = {b->i0, b->nx, b->j0, b->ny, b->k0, b->nz};
  int *boxes = env->rank == 0 ? kit_malloc(6 * (size_t)env->nranks * sizeof(int), "gather boxes") : NULL;
  KIT_MPI_CHECK(MPI_Gather(mine, 6, MPI_INT, boxes, 6, MPI_INT, 0, MPI_COMM_WORLD));
  const size_t plane = (size_t)b->nx * b->ny;
  if (env->rank != 0) {
    for (int l = 0; l < b->nz; ++l)
      KIT_MPI_CHECK(
          MPI_Send(interior + (size_t)l * plane, (int)plane, MPI_DOUBLE, 0, TAG_BOX_PLANE, MPI_COMM_WORLD));
    return NULL;
  }
  const size_t NX = (size_t)p->size[0], NY = (size_t)p->size[1];
  unsigned long long points = 0;
  for (int r = 0; r < env->nranks; ++r) {
    const int *q = boxes + 6 * r;
    for (int d = 0; d < 3; ++d)
      if (q[2 * d] < 1 || q[2 * d + 1] < 1 || q[2 * d] + q[2 * d + 1] - 1 > p->size[d])
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "laplace gather: rank %d's box leaves the domain", r);
    points += (unsigned long long)q[1] * q[3] * q[5];
  }
  if (points != (unsigned long long)NX * NY * p->size[2])
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "laplace gather: the boxes hold %llu points, the domain %llu", points,
            (unsigned long long)NX * NY * p->size[2]);
  double *all = kit_malloc(NX * NY * (size_t)p->size[2] * sizeof(double), "gathered field");
  double *buf = kit_malloc(NX * NY * sizeof(double), "gather plane");
  for (int r = 0; r < env->nranks; ++r) {
    const int *q = boxes + 6 * r;
    const size_t nx = (size_t)q[1], ny = (size_t)q[3];
    for (int l = 0; l < q[5]; ++l) {
      const double *src = interior + (size_t)l * nx * ny;
      if (r != 0) {
        KIT_MPI_CHECK(
            MPI_Recv(buf, (int)(nx * ny), MPI_DOUBLE, r, TAG_BOX_PLANE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        src = buf;
      }
      const size_t k = (size_t)(q[4] - 1 + l);
      for (size_t j = 0; j < ny; ++j)
        memcpy(all + (k * NY + (size_t)(q[2] - 1) + j) * NX + (size_t)(q[0] - 1), src + j * nx,
               nx * sizeof(double));
    }
  }
  free(buf);
  free(boxes);
  return all;
}

double *laplace_gather(const laplace_params *p, const kit_env *env, const laplace_block *b,
                       const double *interior) {
  if (!laplace_grid_is_slab(p->procs)) return gather_boxes(p, env, b, interior);
  return kit_gather_planes(MPI_COMM_WORLD, interior, b->k0 - 1, b->nz, (size_t)p->size[0] * p->size[1],
                           p->size[2], MPI_DOUBLE, sizeof(double));
}

void laplace_verify(const laplace_params *p, const kit_env *env, const laplace_block *b,
                    const double *interior, const double *gathered, kit_report *r) {
  /* Fixed-point bound on the variant's own field: no oracle involved. */
  double *init = kit_malloc(b->points * sizeof(double), "initial state");
  double *init_interior = kit_malloc((size_t)b->nx * b->ny * b->nz * sizeof(double), "initial state");
  laplace_fill(p, b, init);
  laplace_copy_interior(b, init, 1, b->nz + 1, init_interior);
  double e[2] = {laplace_max_error_vs_g(p, b, init_interior), laplace_max_error_vs_g(p, b, interior)};
  free(init);
  free(init_interior);
  double eg[2];
  KIT_MPI_CHECK(MPI_Allreduce(e, eg, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  kit_report_result(r, "max_err_initial", eg[0], "");
  kit_report_result(r, "max_err", eg[1], "");
  if (laplace_fixed_point_applies(p)) {
    const int ok = eg[1] <= eg[0] + FIXED_POINT_TOL;
    kit_report_check(r, "fixed_point_bound", ok ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, eg[1],
                     eg[0] + FIXED_POINT_TOL, "max|u-g| %.3e after %d sweeps <= initial %.3e", eg[1],
                     p->run.iters, eg[0]);
  } else {
    kit_report_check(r, "fixed_point_bound", KIT_VERIFY_SKIPPED, eg[1], 0.0,
                     "not applicable: needs alpha + 6 beta = 1, alpha, beta >= 0");
  }

  /* Oracle comparison on rank 0, over the whole field. */
  double res[4] = {0, 0, 0, 0}; /* max_abs, max_rel, monotone ok, worst growth */
  if (env->rank == 0) {
    const size_t n = (size_t)p->size[0] * p->size[1] * p->size[2];
    double *ref = kit_malloc(n * sizeof(double), "oracle result");
    double *err = kit_malloc(((size_t)p->run.iters + 1) * sizeof(double), "oracle errors");
    laplace_reference(p, ref, err);
    double max_abs = 0.0, max_rel = 0.0;
    for (size_t i = 0; i < n; ++i) {
      const double d = fabs(gathered[i] - ref[i]);
      if (d > max_abs || d != d) max_abs = d != d ? INFINITY : d;
      const double rel = ref[i] != 0.0 ? d / fabs(ref[i]) : d;
      if (rel > max_rel) max_rel = rel;
    }
    double growth = -INFINITY;
    for (int t = 0; t < p->run.iters; ++t)
      if (err[t + 1] - err[t] > growth) growth = err[t + 1] - err[t];
    res[0] = max_abs;
    res[1] = max_rel;
    res[3] = p->run.iters > 0 ? growth : 0.0;
    free(ref);
    free(err);
  }
  KIT_MPI_CHECK(MPI_Bcast(res, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  r->reference = "serial oracle (reference.c), 1 rank";
  r->max_abs_diff = res[0];
  r->max_rel_diff = res[1];
#ifdef KIT_EXACT_OFF
  const double limit = 1e-12;
#else
  const double limit = 0.0; /* KIT_EXACT: same expressions, same order, same bits */
#endif
  kit_report_check(r, "oracle", res[0] <= limit ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[0], limit,
                   "max |u - oracle| = %.3e over %d x %d x %d points (limit %g)", res[0], p->size[0],
                   p->size[1], p->size[2], limit);
  if (laplace_fixed_point_applies(p))
    kit_report_check(
        r, "fixed_point_monotone", res[3] <= FIXED_POINT_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[3],
        FIXED_POINT_TOL, "oracle's max|u-g| never grows by more than %.1e per sweep", FIXED_POINT_TOL);
}

double *laplace_fetch_interior(const laplace_block *b, const kit_variant *v, void *st) {
  double *interior = kit_malloc((size_t)b->nx * b->ny * b->nz * sizeof(double), "result");
  v->fetch(st, interior);
  return interior;
}

void laplace_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  const laplace_run *r = ctx;
  const laplace_ctx *c = &r->c;
  const laplace_params *p = c->p, *initial = &r->initial;
  double *interior = laplace_fetch_interior(&c->blk, v, st);
  double *gathered = (p->run.verify || p->dump) ? laplace_gather(p, c->env, &c->blk, interior) : NULL;
  if (p->run.verify) laplace_verify(initial, c->env, &c->blk, interior, gathered, rep);
  double s2 = 0.0, all = 0.0;
  for (size_t i = 0; i < (size_t)c->blk.nx * c->blk.ny * c->blk.nz; ++i) s2 += interior[i] * interior[i];
  KIT_MPI_CHECK(MPI_Allreduce(&s2, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  kit_report_result(rep, "l2_norm", sqrt(all), "");
  if (p->dump && c->env->rank == 0)
    kit_write_doubles(p->dump, gathered, (size_t)p->size[0] * p->size[1] * p->size[2]);
  free(gathered);
  free(interior);
}
