/* verify.c: the checks of a tetfv run (README.md "Verification") on Paper III's scheme:
 * - oracle: the gathered field equals the serial oracle (reference.c) bit for bit;
 * - row_sums: with zero-flux boundaries every row of the step sums to 1 (to round-off), so a
 *   constant field stays constant; with --init constant, constant: the field itself stays so;
 * - conservation: with zero-flux boundaries sum(V u) is conserved to round-off;
 * - max_principle: two-point fluxes at the stable step make each new value a convex
 *   combination of old ones (and of the boundary's 0), so no value leaves [min, max]
 *   (corrected fluxes are not monotone: skipped, with that reason);
 * - energy: sum V (u - mean)^2 (zero flux) or sum V u^2 (u = 0 on the boundary) never
 *   grows: two-point and limited fluxes at their step are contractions in that norm (proved,
 *   README.md "Stability"), the full correction is kept only where the set-up probe saw no
 *   growth, and this check is what catches a mode the probe missed;
 * - mode_decay: on box:N, N >= 3 (smaller boxes do not resolve the mode), cos(pi x)cos(pi y)cos(pi z) (sin
 * with Dirichlet) decays at pi^2 tr(K), and the measured rate is within a tolerance that shrinks with h. No
 * check compares a variant with itself: the oracle is a separate global loop, the others compare with closed
 * forms or invariants of the continuous problem. */
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "tetfv.h"

#define EPS 2.220446049250313e-16

/* Tolerances, stated and justified in README.md. Round-off per step is a few ulps of the
 * field (each new value is a sum of 17 products); we allow 16 per step. */
#define ROUNDOFF(steps) (16.0 * EPS * ((double)(steps) + 1.0))
#define ROW_SUM_TOL (32.0 * EPS)
/* Mode decay on box:N, relative error of the rate: C / N, C from the measured errors with a
 * margin of 2 or more (README.md "Verification"). */
#define MODE_C 0.25
/* The smallest box the check applies to: the mode is half a wavelength across the box, and
 * the error bound C / N is an asymptotic one (measured at N = 2: 40% with zero flux). */
#define MODE_MIN_N 3

double tetfv_mode_rate(const tetfv_mesh *m, const double *u0, const double *u, double T) {
  long double a0 = 0.0L, a = 0.0L;
  for (int c = 0; c < m->ncells; ++c) {
    a0 += (long double)m->volume[c] * u0[c] * u0[c];
    a += (long double)m->volume[c] * u[c] * u0[c];
  }
  return -log((double)(a / a0)) / T;
}

double tetfv_exact_rate(const tetfv_params *p) {
  /* K = kappa (I + A f f^T) with f = x: the trace is kappa (3 + A); the mode is an
   * eigenfunction of div(K grad) with either boundary condition. */
  return TETFV_PI * TETFV_PI * p->kappa * (3.0 + p->aniso);
}

double tetfv_mode_tolerance(const tetfv_params *p) {
  return MODE_C / p->box_n;
}

void tetfv_verify(const tetfv_params *p, const kit_env *env, const tetfv_problem *pr, kit_report *r) {
  const int neumann = strcmp(p->bc, "neumann") == 0, two_point = strcmp(p->flux, "two-point") == 0;
  enum {
    ORACLE_ABS,
    ORACLE_REL,
    ROWSUM,
    CONST,
    MASS0,
    MASS,
    MASSREF,
    UMIN,
    UMAX,
    U0MIN,
    U0MAX,
    RATE,
    E0,
    E,
    NRES
  };
  double res[NRES];
  for (int i = 0; i < NRES; ++i) res[i] = 0.0;
  const int steps = p->run.iters; /* the same on every rank */
  if (env->rank == 0) {
    const int n = pr->g->n;
    if (!p->skip_oracle) {
      double *ref = kit_malloc(((size_t)n + 1) * sizeof(double), "oracle result");
      tetfv_reference(pr->g, pr->u0, steps, ref, &p->run);
      double max_abs = 0.0, max_rel = 0.0;
      for (int i = 0; i < n; ++i) {
        const double d = fabs(pr->u[i] - ref[i]);
        if (!(d <= max_abs)) max_abs = d != d ? INFINITY : d;
        const double rel = ref[i] != 0.0 ? d / fabs(ref[i]) : d;
        if (!(rel <= max_rel)) max_rel = rel != rel ? INFINITY : rel;
      }
      res[ORACLE_ABS] = max_abs;
      res[ORACLE_REL] = max_rel;
      free(ref);
    }
    double rs = 0.0, cst = 0.0, lo = INFINITY, hi = -INFINITY, lo0 = INFINITY, hi0 = -INFINITY;
    long double m0 = 0.0L, m = 0.0L, mref = 0.0L;
    for (int i = 0; i < n; ++i) {
      double s = pr->g->D[i];
      for (int k = 0; k < TETFV_W; ++k) s += pr->g->A[(size_t)TETFV_W * i + k];
      if (!(fabs(s - 1.0) <= rs)) rs = fabs(s - 1.0);
      const double v = pr->mesh->volume[i];
      m0 += (long double)v * pr->u0[i];
      m += (long double)v * pr->u[i];
      mref += (long double)v * fabs(pr->u0[i]);
      if (!(fabs(pr->u[i] - pr->u0[i]) <= cst)) cst = fabs(pr->u[i] - pr->u0[i]);
      if (!(pr->u[i] >= lo)) lo = pr->u[i];
      if (!(pr->u[i] <= hi)) hi = pr->u[i];
      if (pr->u0[i] < lo0) lo0 = pr->u0[i];
      if (pr->u0[i] > hi0) hi0 = pr->u0[i];
    }
    res[ROWSUM] = rs;
    res[CONST] = cst;
    res[MASS0] = (double)m0;
    res[MASS] = (double)m;
    res[MASSREF] = (double)mref;
    res[UMIN] = lo;
    res[UMAX] = hi;
    res[U0MIN] = lo0;
    res[U0MAX] = hi0;
    /* The energy about the reference state: the conserved mean with zero flux, 0 with u = 0 on
     * the boundary (a second pass: the mean must be known first). */
    long double vol = 0.0L, e0 = 0.0L, e = 0.0L;
    for (int i = 0; i < n; ++i) vol += pr->mesh->volume[i];
    const double mean0 = neumann && vol > 0.0L ? (double)(m0 / vol) : 0.0,
                 mean = neumann && vol > 0.0L ? (double)(m / vol) : 0.0;
    for (int i = 0; i < n; ++i) {
      const double a = pr->u0[i] - mean0, b = pr->u[i] - mean;
      e0 += (long double)pr->mesh->volume[i] * a * a;
      e += (long double)pr->mesh->volume[i] * b * b;
    }
    res[E0] = (double)e0;
    res[E] = (double)e;
    res[RATE] = p->box_n > 0 ? tetfv_mode_rate(pr->mesh, pr->u0, pr->u, steps * p->dt) : 0.0;
  }
  KIT_MPI_CHECK(MPI_Bcast(res, NRES, MPI_DOUBLE, 0, MPI_COMM_WORLD));

  r->reference = p->skip_oracle ? "none (--skip-oracle)" : "serial oracle (reference.c), 1 rank, mesh order";
  r->max_abs_diff = res[ORACLE_ABS];
  r->max_rel_diff = res[ORACLE_REL];
#ifdef KIT_EXACT_OFF
  const double limit = 1e-12;
#else
  const double limit = 0.0; /* KIT_EXACT: same rows, same slot order, same bits */
#endif
  if (p->skip_oracle)
    kit_report_check(r, "oracle", KIT_VERIFY_SKIPPED, 0.0, limit, "skipped (--skip-oracle)");
  else
    kit_report_check(r, "oracle", res[ORACLE_ABS] <= limit ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED,
                     res[ORACLE_ABS], limit, "max |u - oracle| = %.3e after %d steps (limit %g)",
                     res[ORACLE_ABS], steps, limit);

  if (neumann) {
    kit_report_check(r, "row_sums", res[ROWSUM] <= ROW_SUM_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED,
                     res[ROWSUM], ROW_SUM_TOL,
                     "max |D_i + sum_j A_ij - 1| = %.3e (limit %.1e = 32 ulp): constants stay constant",
                     res[ROWSUM], ROW_SUM_TOL);
    const double dm = fabs(res[MASS] - res[MASS0]) / (res[MASSREF] > 0 ? res[MASSREF] : 1.0);
    const double mtol = ROUNDOFF(steps);
    kit_report_result(r, "total_V_u", res[MASS], "");
    kit_report_check(r, "conservation", dm <= mtol ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, dm, mtol,
                     "|sum V u - sum V u0| / sum V |u0| = %.3e after %d steps (limit %.2e: round-off)", dm,
                     steps, mtol);
  } else {
    kit_report_check(r, "row_sums", KIT_VERIFY_SKIPPED, res[ROWSUM], ROW_SUM_TOL,
                     "not applicable: Dirichlet boundaries take mass out");
    kit_report_check(r, "conservation", KIT_VERIFY_SKIPPED, 0.0, 0.0, "not applicable: Dirichlet boundaries");
  }
  if (strcmp(p->init, "constant") == 0 && neumann) {
    const double ctol = ROUNDOFF(steps);
    kit_report_check(r, "constant", res[CONST] <= ctol ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[CONST],
                     ctol, "max |u - 1| = %.3e after %d steps (limit %.2e: round-off)", res[CONST], steps,
                     ctol);
  }
  {
    /* Round-off: each step's new values carry a few ulps each, the norm squares them. */
    const double etol = 2.0 * ROUNDOFF(steps), grow = res[E0] > 0.0 ? res[E] / res[E0] - 1.0 : res[E];
    kit_report_result(r, "energy_ratio", res[E0] > 0.0 ? res[E] / res[E0] : res[E], "");
    kit_report_check(r, "energy", grow <= etol ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, grow, etol,
                     "%s: %.6g after %d steps, %.6g at the start (growth limit %.2e: round-off)",
                     neumann ? "sum V (u - mean)^2" : "sum V u^2", res[E], steps, res[E0], etol);
  }
  if (!two_point)
    kit_report_check(r, "max_principle", KIT_VERIFY_SKIPPED, 0.0, 0.0,
                     "not applicable: corrected fluxes are not monotone (two-point fluxes are)");
  if (two_point) {
    double lo = res[U0MIN], hi = res[U0MAX];
    if (!neumann) { /* the boundary holds 0 */
      if (lo > 0.0) lo = 0.0;
      if (hi < 0.0) hi = 0.0;
    }
    const double slack = ROUNDOFF(steps) * fmax(fabs(lo), fabs(hi));
    const double over = fmax(res[UMAX] - hi, lo - res[UMIN]);
    kit_report_check(r, "max_principle", over <= slack ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, over, slack,
                     "u in [%.6g, %.6g], initial range [%.6g, %.6g] (slack %.2e)", res[UMIN], res[UMAX], lo,
                     hi, slack);
  }
  const char *why =
      p->box_n == 0           ? "needs --mesh box:N"
      : p->box_n < MODE_MIN_N ? "needs box:N with N >= 3 (the C/N bound is asymptotic; 1 or 2 cubes a side "
                                "do not resolve the mode: box:1 samples it as 0)"
      : strcmp(p->init, "mode") != 0                  ? "needs --init mode"
      : p->aniso > 0.0 && strcmp(p->fibres, "x") != 0 ? "needs constant K (--fibres x)"
      : two_point
          ? "two-point fluxes are not consistent on these tetrahedra (README.md): use --flux corrected"
          : NULL;
  const double exact = tetfv_exact_rate(p), tol = p->box_n > 0 ? tetfv_mode_tolerance(p) : 0.0;
  const double err = fabs(res[RATE] / exact - 1.0);
  if (why) {
    kit_report_check(r, "mode_decay", KIT_VERIFY_SKIPPED, 0.0, 0.0, "not applicable: %s", why);
  } else {
    kit_report_result(r, "decay_rate", res[RATE], "1/time");
    kit_report_result(r, "decay_rate_exact", exact, "1/time");
    kit_report_result(r, "decay_rate_error", err, "relative");
    kit_report_check(r, "mode_decay", err <= tol ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, err, tol,
                     "rate %.6g vs pi^2 tr K = %.6g: relative error %.3e (limit %.3g = C/N, C %g)", res[RATE],
                     exact, err, tol, tol * p->box_n);
  }
}
