/* verify.c: observables and the checks of every run (README.md "Checks").
 * The oracle is the serial logical-order simulation of reference.c; the other checks need
 * no oracle: the Mattis gauge identity and the ferromagnet's magnetisation. */
#include "verify.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"

int8_t *ising_gather_logical(const ising_params *p, const ising_block *b, const int8_t *interior) {
  int8_t *layout =
      kit_gather_planes(MPI_COMM_WORLD, interior, b->k0, b->n, b->plane_stride, b->nplanes, MPI_INT8_T, 1);
  if (!layout) return NULL;
  const ising_block whole = ising_block_make(p, 0, b->nplanes);
  int8_t *logical = kit_malloc((size_t)b->nplanes * b->plane_stride, "lattice in logical order");
  ising_layout_to_logical(&whole, layout, logical);
  free(layout);
  return logical;
}

static void mean_se(const double *v, int n, double *mean, double *se) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += v[i];
  *mean = s / n;
  double q = 0.0;
  for (int i = 0; i < n; ++i) q += (v[i] - *mean) * (v[i] - *mean);
  *se = n > 1 ? sqrt(q / (n - 1) / n) : 0.0;
}

double ising_observables(const ising_params *p, const kit_env *env, const int8_t *logical, kit_report *r) {
  double res[4] = {0, 0, 0, 0};
  if (env->rank == 0) {
    const size_t N = (size_t)p->size[0] * p->size[1] * p->size[2];
    double *e = kit_malloc(2 * sizeof(double) * p->samples, "observables");
    double *m = e + p->samples;
    for (int k = 0; k < p->samples; ++k) {
      e[k] = (double)ising_energy(p, k, logical + k * N) / (double)N;
      m[k] = (double)ising_magnetisation(p, logical + k * N) / (double)N;
    }
    mean_se(e, p->samples, &res[0], &res[1]);
    mean_se(m, p->samples, &res[2], &res[3]);
    free(e);
  }
  KIT_MPI_CHECK(MPI_Bcast(res, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  kit_report_result(r, "energy_per_spin", res[0], "");
  kit_report_result(r, "energy_per_spin_se", res[1], "");
  kit_report_result(r, "magnetisation", res[2], "");
  kit_report_result(r, "magnetisation_se", res[3], "");
  return res[2];
}

/* The ferromagnet's critical temperature, T_c = 4.5115 (3D Ising, e.g. Ferrenberg and
 * Landau 1991): "low T" and "high T" below are far from it on either side. */
#define FERRO_LOW_T 2.0
#define FERRO_HIGH_T 9.0

void ising_verify(const ising_params *p, const kit_env *env, const int8_t *logical, double m_mean,
                  kit_report *r) {
  const size_t N = (size_t)p->size[0] * p->size[1] * p->size[2];
  const size_t all = N * p->samples;
  /* On rank 0: differing spins, the oracle's tracking error, and the Mattis comparisons. */
  double res[4] = {0, 0, 0, 0};
  if (env->rank == 0) {
    const int threads = omp_get_max_threads();
    const size_t steps = (size_t)p->run.iters + 1;
    int8_t *ref = kit_malloc(all, "oracle spins");
    long long *traj = kit_malloc(sizeof(long long) * steps * p->samples, "oracle energies");
    res[1] = (double)ising_reference(p, 0, ref, traj, threads);
    size_t diff = 0;
    for (size_t i = 0; i < all; ++i) diff += logical[i] != ref[i];
    res[0] = (double)diff;
    if (p->mattis) {
      int8_t *fer = kit_malloc(all, "ferromagnet spins");
      long long *ftraj = kit_malloc(sizeof(long long) * steps * p->samples, "ferromagnet energies");
      ising_reference(p, 1, fer, ftraj, threads);
      const ising_rules rules = ising_rules_of(p);
      size_t bad_e = 0, bad_s = 0;
      for (size_t i = 0; i < steps * p->samples; ++i) bad_e += traj[i] != ftraj[i];
      for (int k = 0; k < p->samples; ++k)
        for (uint32_t i = 0; i < N; ++i)
          bad_s += logical[k * N + i] != ising_gauge(&rules, k, i) * fer[k * N + i];
      res[2] = (double)bad_e;
      res[3] = (double)bad_s;
      free(fer);
      free(ftraj);
    }
    free(ref);
    free(traj);
  }
  KIT_MPI_CHECK(MPI_Bcast(res, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  r->reference = "serial oracle (reference.c) in logical order, 1 rank";
  r->max_abs_diff = res[0] > 0 ? 2.0 : 0.0; /* spins are +1 / -1: any difference is 2 */
  r->max_rel_diff = res[0] > 0 ? 2.0 : 0.0;
  kit_report_check(r, "oracle_bitwise", res[0] == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[0], 0,
                   "%.0f of %zu spins differ from the oracle after %d sweeps", res[0], all, p->run.iters);
  kit_report_check(r, "energy_tracking", res[1] == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[1], 0,
                   "oracle's energy summed flip by flip vs recomputed each sweep: max difference %.0f",
                   res[1]);
  if (p->mattis) {
    kit_report_check(r, "mattis_energy", res[2] == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[2], 0,
                     "energy after each sweep equals the gauge-transformed ferromagnet's (%.0f differ)",
                     res[2]);
    kit_report_check(r, "mattis_spins", res[3] == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, res[3], 0,
                     "final spins are e_i times the ferromagnet's (%.0f differ)", res[3]);
  }
  /* The ferromagnet far below T_c from all up keeps m near 1; far above it m relaxes to 0
   * within a few sweeps, with per-sample spread sqrt(var m) <= sqrt(2.5 / N) at T >= 9
   * (high-temperature series: sum_j <s_0 s_j> ~ 2), so the sample mean lies within
   * 5 sqrt(2.5 / (N S)) of 0 unless the dynamics is wrong. */
  const int ferro = p->p == 0.0 && !p->mattis;
  if (ferro && strcmp(p->init, "up") == 0 && p->temp <= FERRO_LOW_T) {
    kit_report_check(r, "ferro_low_T", m_mean >= 0.95 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, m_mean, 0.95,
                     "p = 0, T = %g <= %g from all up: magnetisation %.4f >= 0.95", p->temp, FERRO_LOW_T,
                     m_mean);
  }
  if (ferro && p->temp >= FERRO_HIGH_T && p->run.iters >= 20) {
    const double bound = 5.0 * sqrt(2.5 / ((double)N * p->samples));
    if (bound < 1.0)
      kit_report_check(r, "ferro_high_T", fabs(m_mean) <= bound ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED,
                       fabs(m_mean), bound,
                       "p = 0, T = %g >= %g after %d sweeps: |magnetisation| %.4f <= %.4f", p->temp,
                       FERRO_HIGH_T, p->run.iters, fabs(m_mean), bound);
    else
      kit_report_check(r, "ferro_high_T", KIT_VERIFY_SKIPPED, fabs(m_mean), bound,
                       "lattice too small: the statistical bound %.2f would accept any magnetisation", bound);
  }
}
