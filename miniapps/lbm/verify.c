/* verify.c: the checks of an lbm run (README.md "Verification"), Risso Sec. 5.2 and 6.1.
 * - oracle: rho and u gathered on rank 0 equal the serial reference (reference.c) bit for bit;
 * - mass: the closed domain (cavity; Poiseuille: walls in z, periodic in x and y) conserves
 *   the total mass to round-off;
 * - mirror symmetry (cavity from rest): the flow is symmetric about the mid-plane y = 1/2;
 * - Poiseuille: the steady profile against the analytic parabola;
 * - cavity at Re = 1000: the steady centre-line profiles against Albensoeder & Kuhlmann 2005;
 * - steady state: with --until-steady, the run got there within --iters steps.
 * No check compares a variant with itself: the oracle is a separate loop over the whole
 * domain, and the others compare with closed forms or published numbers. */
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ak2005.h"
#include "kit/check.h"
#include "kit/halo.h"
#include "kit/procgrid.h"
#include "kit/report.h"
#include "lbm.h"

#define EPS 2.220446049250313e-16

double *lbm_gather(const lbm_params *p, const lbm_block *b, const double *macro) {
  if (lbm_on_grid(p)) { /* boxes: rho, ux, uy, uz per cell, placed by their offsets */
    const kit_block part[3] = {{b->i0, b->nx}, {b->j0, b->ny}, {b->k0 - 1, b->nz}};
    return kit_procs_gather(MPI_COMM_WORLD, part, p->size, 1, 4, macro);
  }
  return kit_gather_planes(MPI_COMM_WORLD, macro, b->k0 - 1, b->nz, 4 * (size_t)p->size[0] * p->size[1],
                           p->size[2], MPI_DOUBLE, sizeof(double));
}

/* The one or two middle cells of n: [*a, *b]. */
static void middle(int n, int *a, int *b) {
  *a = (n - 1) / 2;
  *b = n / 2;
}

int lbm_centreline(const lbm_params *p, const double *all, int which, double *s, double *v) {
  const int nx = p->size[0], ny = p->size[1], nz = p->size[2];
  int i0, i1, j0, j1, k0, k1;
  middle(nx, &i0, &i1);
  middle(ny, &j0, &j1);
  middle(nz, &k0, &k1);
  const int n = which == 0 ? nz : nx;
  for (int m = 0; m < n; ++m) {
    double sum = 0.0;
    int cnt = 0;
    for (int j = j0; j <= j1; ++j)
      for (int a = which == 0 ? i0 : k0; a <= (which == 0 ? i1 : k1); ++a) {
        const int i = which == 0 ? a : m, k = which == 0 ? m : a;
        const size_t c = ((size_t)k * ny + (size_t)j) * nx + (size_t)i;
        sum += all[4 * c + (which == 0 ? 1 : 3)];
        cnt++;
      }
    s[m] = (m + 0.5) / n;
    v[m] = sum / cnt / p->u_ref;
  }
  return n;
}

double lbm_profile_at(const double *s, const double *v, int n, double wall0, double wall1, double s0) {
  if (s0 <= s[0]) return wall0 + (v[0] - wall0) * (s0 / s[0]);
  if (s0 >= s[n - 1]) return v[n - 1] + (wall1 - v[n - 1]) * ((s0 - s[n - 1]) / (1.0 - s[n - 1]));
  int m = 0;
  while (m + 1 < n - 1 && s[m + 1] < s0) ++m;
  return v[m] + (v[m + 1] - v[m]) * ((s0 - s[m]) / (s[m + 1] - s[m]));
}

double lbm_poiseuille_bgk(const lbm_params *p, int k) {
  /* BGK with half-way bounce-back solves Poiseuille flow exactly up to a uniform slip
   * F (16 L - 3) / (24 nu), L = (tau - 1/2)^2, zero at tau = 1/2 + sqrt(3/16) (He, Zou, Luo &
   * Dembo, J. Stat. Phys. 87 (1997) 115; Ginzburg & d'Humieres 2003). */
  const double L = (p->tau - 0.5) * (p->tau - 0.5);
  return lbm_poiseuille_exact(p, k) + p->force[0] * (16.0 * L - 3.0) / (24.0 * p->nu) / p->u_ref;
}

double lbm_poiseuille_exact(const lbm_params *p, int k) {
  /* Walls half a cell below plane 1 and above plane NZ: z = k - 1/2 in [0, H], H = NZ. */
  const double H = p->size[2], z = k - 0.5;
  return p->force[0] * z * (H - z) / (2.0 * p->nu) / p->u_ref;
}

lbm_ak_errors lbm_ak2005_compare(const lbm_params *p, const double *all) {
  lbm_ak_errors e = {0.0, 0.0, 0.0, 0.0};
  const int nmax = p->size[0] > p->size[2] ? p->size[0] : p->size[2];
  double *s = kit_malloc((size_t)nmax * sizeof *s, "profile"),
         *v = kit_malloc((size_t)nmax * sizeof *v, "profile");
  double sq = 0.0;
  int count = 0;
  for (int which = 0; which < 2; ++which) {
    const int n = lbm_centreline(p, all, which, s, v);
    const double wall1 = which == 0 ? 1.0 : 0.0; /* the lid at z = 1 moves at U */
    for (int m = 1; m < AK2005_N - 1; ++m) {     /* the end points are the walls themselves */
      double s0, ref;
      ak2005_map(which, m, &s0, &ref);
      const double d = fabs(lbm_profile_at(s, v, n, 0.0, wall1, s0) - ref);
      if (!(d <= e.max_all)) e.max_all = d; /* NaN counts as the worst error */
      if (s0 >= LBM_AK_WALL_BAND && s0 <= 1.0 - LBM_AK_WALL_BAND && !(d <= e.max_interior))
        e.max_interior = d;
      sq += d * d;
      count++;
    }
    /* Extrema: Table 5's minimum of v; Table 6's minimum and maximum of u (our -uz). */
    double lo = v[0], hi = v[0];
    for (int m = 1; m < n; ++m) {
      if (v[m] < lo) lo = v[m];
      if (v[m] > hi) hi = v[m];
    }
    const double d = which == 0 ? fabs(lo - (-0.27293)) : fmax(fabs(hi - 0.24407), fabs(lo - (-0.43423)));
    if (!(d <= e.ext_err)) e.ext_err = d;
  }
  e.rms_all = sqrt(sq / count);
  free(s);
  free(v);
  return e;
}

/* Tolerances, stated and justified in README.md. */
#define MASS_TOL(steps) (1e-13 + 4.0 * EPS * (double)(steps))
#define MIRROR_TOL 1e-9
#define POISEUILLE_TOL_32 1e-3
#define POISEUILLE_BGK_TOL 1e-5
#define AK_TOL_INTERIOR 0.03
#define AK_TOL_EXTREMA 0.03

void lbm_verify(const lbm_params *p, const kit_env *env, const double *all, const lbm_outcome *o,
                kit_report *r) {
  const int nx = p->size[0], ny = p->size[1], nz = p->size[2];
  const size_t n = (size_t)nx * ny * nz;
  const int cavity = strcmp(p->flow, "cavity") == 0;
  /* Everything is computed on rank 0 and broadcast: res[] in the order below. */
  enum {
    ORACLE_ABS,
    ORACLE_REL,
    MASS0,
    MASS,
    UMAX,
    MIRROR,
    POIS,
    POIS_BGK,
    AK_MAX,
    AK_RMS,
    AK_INT,
    AK_EXT,
    NRES
  };
  double res[NRES];
  for (int i = 0; i < NRES; ++i) res[i] = 0.0;
  if (env->rank == 0) {
    if (!p->skip_oracle) {
      double *ref = kit_malloc(4 * n * sizeof(double), "oracle result");
      lbm_reference(p, o->steps, ref);
      double max_abs = 0.0, max_rel = 0.0;
      for (size_t i = 0; i < 4 * n; ++i) {
        const double d = fabs(all[i] - ref[i]);
        if (d > max_abs || d != d) max_abs = d != d ? INFINITY : d;
        const double rel = ref[i] != 0.0 ? d / fabs(ref[i]) : d;
        if (rel > max_rel || rel != rel) max_rel = rel != rel ? INFINITY : rel;
      }
      res[ORACLE_ABS] = max_abs;
      res[ORACLE_REL] = max_rel;
      free(ref);
    }
    /* Mass: the initial density is known in closed form (lbm_initial_cell); long double
     * sums keep the summation error of a million cells well below the tolerance. */
    long double m0 = 0.0L, m = 0.0L;
    double umax = 0.0, mirror = 0.0, perr = 0.0, pref = 0.0, berr = 0.0;
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const size_t c = ((size_t)k * ny + (size_t)j) * nx + (size_t)i;
          const double *a = all + 4 * c;
          double rho0, u0[3];
          lbm_initial_cell(p, i, j, k + 1, &rho0, u0);
          m0 += rho0;
          m += a[0];
          const double speed = sqrt(a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
          if (!(speed <= umax)) umax = speed;
          /* Mirror image in y: rho, ux, uz even, uy odd. */
          const double *b = all + 4 * (((size_t)k * ny + (size_t)(ny - 1 - j)) * nx + (size_t)i);
          const double dm =
              fmax(fmax(fabs(a[0] - b[0]), fabs(a[1] - b[1])), fmax(fabs(a[2] + b[2]), fabs(a[3] - b[3])));
          if (!(dm <= mirror)) mirror = dm;
          if (!cavity) {
            const double ue = lbm_poiseuille_exact(p, k + 1) * p->u_ref;
            const double ub = lbm_poiseuille_bgk(p, k + 1) * p->u_ref;
            perr += (a[1] - ue) * (a[1] - ue) + a[2] * a[2] + a[3] * a[3];
            berr += (a[1] - ub) * (a[1] - ub) + a[2] * a[2] + a[3] * a[3];
            pref += ue * ue;
          }
        }
    res[MASS0] = (double)m0;
    res[MASS] = (double)m;
    res[UMAX] = umax;
    res[MIRROR] = mirror / p->u_ref;
    res[POIS] = cavity ? 0.0 : sqrt(perr / pref);
    res[POIS_BGK] = cavity ? 0.0 : sqrt(berr / pref);
    if (cavity) {
      const lbm_ak_errors e = lbm_ak2005_compare(p, all);
      res[AK_MAX] = e.max_all;
      res[AK_RMS] = e.rms_all;
      res[AK_INT] = e.max_interior;
      res[AK_EXT] = e.ext_err;
    }
  }
  KIT_MPI_CHECK(MPI_Bcast(res, NRES, MPI_DOUBLE, 0, MPI_COMM_WORLD));

  /* The oracle. */
  r->reference = p->skip_oracle ? "none (--skip-oracle)" : "serial oracle (reference.c), 1 rank";
  r->max_abs_diff = res[ORACLE_ABS];
  r->max_rel_diff = res[ORACLE_REL];
#ifdef KIT_EXACT_OFF
  const double limit = 1e-12;
#else
  const double limit = 0.0; /* KIT_EXACT: same expressions, same order, same bits */
#endif
  if (p->skip_oracle)
    kit_report_check(r, "oracle", KIT_VERIFY_SKIPPED, 0.0, limit, "skipped (--skip-oracle)");
  else
    kit_report_check(r, "oracle", res[ORACLE_ABS] <= limit ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED,
                     res[ORACLE_ABS], limit,
                     "max |(rho,u) - oracle| = %.3e over %d x %d x %d cells after %d steps (limit %g)",
                     res[ORACLE_ABS], nx, ny, nz, o->steps, limit);

  /* Mass. */
  const double drift = fabs(res[MASS] - res[MASS0]) / res[MASS0];
  kit_report_result(r, "mass", res[MASS], "");
  kit_report_result(r, "mass_drift", drift, "relative");
  kit_report_result(r, "max_velocity", res[UMAX], "lattice");
  const double mtol = MASS_TOL(o->steps);
  kit_report_check(r, "mass", drift <= mtol ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, drift, mtol,
                   "|M - M0| / M0 = %.3e after %d steps (limit %.2e: round-off)", drift, o->steps, mtol);

  if (cavity) {
    if (strcmp(p->init, "rest") == 0)
      kit_report_check(r, "mirror_symmetry",
                       res[MIRROR] <= MIRROR_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[MIRROR],
                       MIRROR_TOL, "max |field - its mirror image in y| / U = %.3e (limit %g)", res[MIRROR],
                       MIRROR_TOL);
    else
      kit_report_check(r, "mirror_symmetry", KIT_VERIFY_SKIPPED, res[MIRROR], MIRROR_TOL,
                       "not applicable: --init random breaks the symmetry");
    /* Albensoeder & Kuhlmann: Re = 1000, cube, steady, at least 96 cells across. */
    const int re1000 = fabs(p->re - 1000.0) < 1e-9;
    if (re1000) {
      kit_report_result(r, "ak2005_max_err", res[AK_MAX], "U");
      kit_report_result(r, "ak2005_rms_err", res[AK_RMS], "U");
      kit_report_result(r, "ak2005_max_err_interior", res[AK_INT], "U");
      kit_report_result(r, "ak2005_extrema_err", res[AK_EXT], "U");
    }
    const char *why = !re1000                                  ? "needs --re 1000"
                      : !(nx == ny && ny == nz)                ? "needs a cube"
                      : nx < 96                                ? "needs at least 96^3 cells"
                      : !(o->steady_mode && o->steady_reached) ? "needs a steady state (--until-steady)"
                                                               : NULL;
    if (why) {
      kit_report_check(r, "ak2005_profiles", KIT_VERIFY_SKIPPED, res[AK_INT], AK_TOL_INTERIOR,
                       "not applicable: %s", why);
    } else {
      const int ok = res[AK_INT] <= AK_TOL_INTERIOR && res[AK_EXT] <= AK_TOL_EXTREMA;
      kit_report_check(r, "ak2005_profiles", ok ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[AK_INT],
                       AK_TOL_INTERIOR,
                       "centre lines vs Albensoeder-Kuhlmann 2005 T5/T6: "
                       "interior max %.4f, all max %.4f, extrema %.4f (limits %.2f, -, %.2f) x U",
                       res[AK_INT], res[AK_MAX], res[AK_EXT], AK_TOL_INTERIOR, AK_TOL_EXTREMA);
    }
  } else {
    /* Second order: the error of the steady profile falls as 1/H^2, so the limit given for
     * H = 32 scales with (32/H)^2 at other gaps. */
    const double ptol = POISEUILLE_TOL_32 * (32.0 / nz) * (32.0 / nz);
    kit_report_result(r, "poiseuille_l2_error", res[POIS], "relative");
    if (o->steady_mode && o->steady_reached)
      kit_report_check(r, "poiseuille_profile", res[POIS] <= ptol ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED,
                       res[POIS], ptol,
                       "relative L2 error of u vs the analytic parabola %.3e (limit %.2e = 1e-3 x (32/%d)^2)",
                       res[POIS], ptol, nz);
    else
      kit_report_check(r, "poiseuille_profile", KIT_VERIFY_SKIPPED, res[POIS], ptol,
                       "not applicable: needs a steady state (--until-steady); L2 error now %.3e", res[POIS]);
  }

  if (!cavity) {
    /* The sharper check: the discrete solution itself, at any gap and tau. What is left is
     * the transient the steady criterion lets through (about 5e-7 at TOL 1e-7). */
    if (o->steady_mode && o->steady_reached && p->until_steady <= 1e-7)
      kit_report_check(
          r, "poiseuille_bgk_slip",
          res[POIS_BGK] <= POISEUILLE_BGK_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[POIS_BGK],
          POISEUILLE_BGK_TOL,
          "relative L2 error vs parabola + BGK slip F(16(tau-1/2)^2-3)/(24 nu) = %.3e (limit %g)",
          res[POIS_BGK], POISEUILLE_BGK_TOL);
    else
      kit_report_check(r, "poiseuille_bgk_slip", KIT_VERIFY_SKIPPED, res[POIS_BGK], POISEUILLE_BGK_TOL,
                       "not applicable: needs --until-steady 1e-7 or smaller; error now %.3e", res[POIS_BGK]);
  }
  if (o->steady_mode)
    kit_report_check(r, "steady_state", o->steady_reached ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, o->change,
                     p->until_steady, "max |du| / U over %d steps = %.3e after %d steps (tolerance %g)",
                     p->check_every, o->change, o->steps, p->until_steady);
}
