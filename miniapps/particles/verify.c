/* verify.c: the checks of a particles run (README.md "Verification"), Bernaschi et al. Sec.
 * 3.2 and the list. None compares a variant with itself:
 * - particle_count: N particles, ids 0..N-1 each exactly once after every migration;
 * - forces_allpairs / energy_allpairs: the final forces, potential energy and virial against
 *   the independent O(N^2) minimum-image code (reference.c), 1e-12 relative;
 * - trajectory: the final positions and velocities against the all-pairs integrator run from
 *   the same initial state (tolerance: summation order amplified by the dynamics);
 * - oracle: with several ranks, the same run on one rank (MPI_COMM_SELF on rank 0), which has
 *   no inter-rank messages at all: per-particle state bit for bit (README.md says why); a GPU
 *   variant is compared with it on any rank count, within PT_GPU_ORACLE_TOL (README.md);
 *   --neighbor list is compared on any rank count with the single-rank --neighbor cells run
 *   (its tiling of side >= rc), bit for bit (README.md, "Neighbour lists");
 * - momentum: the total momentum is conserved to round-off (zero for the lattice start); not
 *   with walls (irregular domains), which exchange momentum with the particles;
 * - confined: irregular domains: every particle ends in an open voxel (the walls held);
 * - energy_drift: NVE, max_t |E(t) - E(0)| / |E(0)| within --max-drift (with --shift);
 * - initial_temperature: the lattice start is rescaled to exactly --temp. */
#include "verify.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "kit/check.h"
#include "kit/driver.h"
#include "kit/slab.h"

#define EPS 2.220446049250313e-16
#define ALLPAIRS_TOL 1e-12
#define TRAJ_TOL 1e-9      /* see README.md: measured 1e-13 after 40 steps; chaos grows it */
#define TRAJ_MAX_TIME 0.5  /* beyond this the reference trajectory check is skipped */
#define TRAJ_MAX_PAIRS 4e8 /* N^2/2 x steps pair evaluations the check may spend */
#define T0_TOL 1e-12
/* GPU variants against the cpu oracle (README.md, "GPU variants"): they sum every force in
 * the cpu order with the same lj.h functions, so under KIT_EXACT the difference is expected
 * to be 0; the limit is the trajectory check's, for the last bits a different contraction or
 * order would give, grown by the chaotic dynamics (1e-13 measured after 100 steps). Without
 * KIT_EXACT (fused multiply-adds on the GPU) it holds only over TRAJ_MAX_TIME. */
#define PT_GPU_ORACLE_TOL 1e-9

pt_thermo pt_thermo_of(const pt_params *p, const double *row) {
  pt_thermo t;
  const double n = (double)p->n, vol = p->box[0] * p->box[1] * p->box[2];
  t.pe = row[PT_TH_PE] / n;
  t.ke = row[PT_TH_KE] / n;
  t.etot = t.pe + t.ke;
  /* 3N - 3 degrees of freedom: the total momentum is fixed. */
  t.temp = 2.0 * row[PT_TH_KE] / (3.0 * n - 3.0);
  /* Virial pressure: P = (N T + W / 3) / V, W = sum over pairs of r . f. */
  t.press = (n * t.temp + row[PT_TH_VIR] / 3.0) / vol;
  for (int a = 0; a < 3; ++a) t.p[a] = row[PT_TH_PX + a];
  return t;
}

static int cmp_id(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double *pt_gather(const pt_variant *v, void *st, MPI_Comm comm, long long *n_all) {
  int rank, size;
  KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
  const long long n = v->count(st);
  double *mine = kit_malloc((size_t)(n > 0 ? n : 1) * 10 * sizeof *mine, "gather");
  v->base.fetch(st, mine);
  int cnt = (int)(10 * n), *cnts = NULL, *displs = NULL;
  if (rank == 0) {
    cnts = kit_malloc((size_t)size * sizeof *cnts, "gather");
    displs = kit_malloc((size_t)size * sizeof *displs, "gather");
  }
  KIT_MPI_CHECK(MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, comm));
  double *all = NULL;
  long long total = 0;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      displs[r] = (int)total;
      total += cnts[r];
    }
    all = kit_malloc((size_t)(total > 0 ? total : 1) * sizeof *all, "gather");
  }
  KIT_MPI_CHECK(MPI_Gatherv(mine, cnt, MPI_DOUBLE, all, cnts, displs, MPI_DOUBLE, 0, comm));
  free(mine);
  free(cnts);
  free(displs);
  if (rank == 0) qsort(all, (size_t)(total / 10), 10 * sizeof *all, cmp_id);
  *n_all = total / 10;
  return all;
}

void pt_initial_all(const pt_params *p, pt_particles *all) {
  if (p->input) {
    char err[300];
    if (pt_read_particles(p, NULL, NULL, all, err, sizeof err) != 0)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--input changed during the run: %s", err);
    /* In id order, as the gathered state. */
    pt_particles s = {0};
    pt_particles_reserve(&s, all->n);
    s.n = all->n;
    for (long long i = 0; i < all->n; ++i) {
      const long long id = all->id[i];
      s.id[id] = id;
      memcpy(s.x + 3 * id, all->x + 3 * i, 3 * sizeof(double));
      memcpy(s.v + 3 * id, all->v + 3 * i, 3 * sizeof(double));
    }
    pt_particles_free(all);
    *all = s;
  } else {
    pt_lattice(p, NULL, NULL, all);
  }
}

/* Difference of two positions along axis a, to the nearest image (walls: no image). */
static double image_diff(const pt_params *p, int a, double x, double y) {
  const double d = x - y;
  if (p->geom) return d;
  return d - p->box[a] * nearbyint(d / p->box[a]);
}

void pt_verify(const pt_params *p, const kit_env *env, const pt_variant *v, void *st, const double *th,
               int steps, kit_report *r) {
  const long long n = p->n;
  /* A restarted run (--restart) did `steps` steps from the checkpoint's step S: the references
   * (all-pairs trajectory, single-rank oracle) still start from the true initial state and run
   * all S + steps; the checks on this run's thermo rows cannot see step 0 and are skipped. */
  const int s0 = p->start_step, total = s0 + steps;
  /* particle_count: count, sum of ids and sum of squared ids (mod 2^64) over all ranks. */
  {
    const long long mine = v->count(st);
    double *rec = kit_malloc((size_t)(mine > 0 ? mine : 1) * 10 * sizeof *rec, "count check");
    v->base.fetch(st, rec);
    unsigned long long loc[3] = {(unsigned long long)mine, 0, 0}, tot[3];
    for (long long i = 0; i < mine; ++i) {
      const unsigned long long id = (unsigned long long)rec[10 * i];
      loc[1] += id;
      loc[2] += id * id;
    }
    free(rec);
    KIT_MPI_CHECK(MPI_Allreduce(loc, tot, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    unsigned long long s1 = 0, s2 = 0;
    for (unsigned long long id = 0; id < (unsigned long long)n; ++id) {
      s1 += id;
      s2 += id * id;
    }
    const int ok = tot[0] == (unsigned long long)n && tot[1] == s1 && tot[2] == s2;
    kit_report_check(r, "particle_count", ok ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, (double)tot[0],
                     (double)n, "%llu particles after %d steps of migration, expected %lld%s", tot[0], steps,
                     n,
                     ok ? ", ids 0..N-1 once each"
                        : (tot[0] == (unsigned long long)n ? ", but ids lost or duplicated" : ""));
  }
  /* confined: with walls every particle must end in an open voxel. */
  if (p->geom) {
    const pt_walls w = pt_walls_of(p->geom, p->box);
    const long long mine = v->count(st);
    double *rec = kit_malloc((size_t)(mine > 0 ? mine : 1) * 10 * sizeof *rec, "confinement check");
    v->base.fetch(st, rec);
    long long out = 0, all_out = 0;
    for (long long i = 0; i < mine; ++i) out += !pt_in_open_voxel(&w, rec + 10 * i + 1);
    free(rec);
    KIT_MPI_CHECK(MPI_Allreduce(&out, &all_out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    kit_report_check(r, "confined", all_out == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, (double)all_out,
                     0.0, "%lld of %lld particles outside the open voxels after %d steps (limit 0)", all_out,
                     n, steps);
  }

  /* The O(N^2) checks and the oracle, on rank 0, up to --allpairs-max particles. */
  enum { F_ERR, F_MAX, PE_ERR, VIR_ERR, TRAJ_X, TRAJ_V, OR_X, OR_V, RAN_AP, RAN_TR, RAN_OR, NRES };
  double res[NRES];
  for (int i = 0; i < NRES; ++i) res[i] = 0.0;
  const int small = n <= p->allpairs_max;
  const double pairs = 0.5 * (double)n * (double)n * (total + 1);
  const int traj = small && total * p->dt <= TRAJ_MAX_TIME && pairs <= TRAJ_MAX_PAIRS;
  const int gpu = v->base.needs_gpu;
  const int oracle = small && (env->nranks > 1 || s0 > 0 || gpu || p->list) &&
                     (!gpu || !KIT_EXACT_BUILD_OFF || total * p->dt <= TRAJ_MAX_TIME);
  long long got = 0;
  double *all = small ? pt_gather(v, st, MPI_COMM_WORLD, &got) : NULL;
  if (oracle) {
    /* The single-rank oracle on rank 0: the cpu variant over MPI_COMM_SELF, with one rank
     * owning every cell. Its messages are all to itself: no neighbour, no migration between
     * ranks, nothing that a rank grid could get wrong. */
    double *ref = NULL;
    if (env->rank == 0) {
      /* --neighbor list: the oracle is --neighbor cells, on its own tiling (side >= rc). */
      pt_params q;
      pt_cells_params(p, &q);
      pt_ctx c;
      memset(&c, 0, sizeof c);
      c.p = &q;
      c.env = env;
      c.comm = MPI_COMM_SELF;
      const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
      int *occupied = NULL; /* with walls, the single-rank owner map of q's cells */
      if (p->geom && p->list) {
        occupied = kit_malloc((size_t)q.nc[0] * q.nc[1] * q.nc[2] * sizeof *occupied, "oracle cells");
        pt_geom_occupied(p->geom, q.nc, q.inv_side, q.box, occupied);
      }
      if (p->geom)
        pt_decomp_build_owned(&c.dec, q.nc, occupied ? occupied : p->geom->one_owner, 0);
      else
        pt_decomp_build(&c.dec, q.nc, one, zero);
      free(occupied);
      pt_particles init = {0};
      pt_initial_all(&q, &init);
      c.init = &init;
      c.faults = 0;
      void *o = pt_cpu.base.setup(&c);
      pt_cpu.base.run(o, total);
      long long on = 0;
      ref = pt_gather(&pt_cpu, o, MPI_COMM_SELF, &on);
      pt_cpu.base.teardown(o);
      pt_decomp_free(&c.dec); /* setup took a copy */
      pt_particles_free(&init);
      double dx = on == got ? 0.0 : INFINITY, dv = dx;
      for (long long i = 0; on == got && i < got; ++i) {
        const double *a = all + 10 * i, *b = ref + 10 * i;
        if (a[0] != b[0]) dx = dv = INFINITY;
        for (int k = 0; k < 3; ++k) {
          const double ex = fabs(a[1 + k] - b[1 + k]), ev = fabs(a[4 + k] - b[4 + k]);
          if (!(ex <= dx)) dx = ex;
          if (!(ev <= dv)) dv = ev;
        }
      }
      res[OR_X] = dx;
      res[OR_V] = dv;
      res[RAN_OR] = 1;
      free(ref);
    }
  }
  if (small && env->rank == 0) {
    int ids_ok = got == n;
    for (long long i = 0; ids_ok && i < n; ++i) ids_ok = all[10 * i] == (double)i;
    double *x = kit_malloc((size_t)n * 3 * sizeof *x, "all-pairs"),
           *f = kit_malloc((size_t)n * 3 * sizeof *f, "all-pairs");
    double pe = 0.0, vir = 0.0, ferr = ids_ok ? 0.0 : INFINITY, fbig = 0.0;
    if (ids_ok) {
      for (long long i = 0; i < n; ++i) memcpy(x + 3 * i, all + 10 * i + 1, 3 * sizeof *x);
      pt_allpairs_forces(p, n, x, f, &pe, &vir);
      for (long long i = 0; i < 3 * n; ++i) {
        const double d = fabs(all[10 * (i / 3) + 7 + i % 3] - f[i]);
        if (!(d <= ferr)) ferr = d;
        if (fabs(f[i]) > fbig) fbig = fabs(f[i]);
      }
    }
    res[F_ERR] = ferr;
    res[F_MAX] = fbig;
    const double *last = th + (size_t)steps * PT_TH_N;
    res[PE_ERR] = ids_ok ? fabs(last[PT_TH_PE] - pe) / fmax(fabs(pe), 1e-300) : INFINITY;
    res[VIR_ERR] = ids_ok ? fabs(last[PT_TH_VIR] - vir) / fmax(fabs(vir), 1e-300) : INFINITY;
    res[RAN_AP] = 1;
    if (traj) {
      pt_particles init = {0};
      pt_initial_all(p, &init);
      pt_allpairs_run(p, n, init.x, init.v, total);
      double dx = ids_ok ? 0.0 : INFINITY, dv = dx;
      for (long long i = 0; ids_ok && i < n; ++i)
        for (int a = 0; a < 3; ++a) {
          const double ex = fabs(image_diff(p, a, all[10 * i + 1 + a], init.x[3 * i + a]));
          const double ev = fabs(all[10 * i + 4 + a] - init.v[3 * i + a]);
          if (!(ex <= dx)) dx = ex;
          if (!(ev <= dv)) dv = ev;
        }
      res[TRAJ_X] = dx;
      res[TRAJ_V] = dv;
      res[RAN_TR] = 1;
      pt_particles_free(&init);
    }
    free(x);
    free(f);
  }
  free(all);
  KIT_MPI_CHECK(MPI_Bcast(res, NRES, MPI_DOUBLE, 0, MPI_COMM_WORLD));

  if (res[RAN_AP]) {
    /* Relative to the largest force: single forces near zero (the perfect lattice) carry only
     * round-off, so a per-component relative error would mean nothing there. */
    const double rel = res[F_MAX] > 0.0 ? res[F_ERR] / res[F_MAX] : res[F_ERR];
    r->max_abs_diff = res[F_ERR];
    r->max_rel_diff = rel;
    r->reference = "all-pairs O(N^2) minimum-image forces (reference.c)";
    const double lim = res[F_MAX] < 1e-6 ? 1e-12 : ALLPAIRS_TOL; /* a lattice at rest: absolute */
    kit_report_check(
        r, "forces_allpairs", rel <= lim ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, rel, lim,
        "max |F - F_allpairs| / max |F_allpairs| = %.3e (max |F| %.3g) after %d steps (limit %g)", rel,
        res[F_MAX], total, lim);
    const double e = fmax(res[PE_ERR], res[VIR_ERR]);
    kit_report_check(r, "energy_allpairs", e <= ALLPAIRS_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, e,
                     ALLPAIRS_TOL, "potential energy %.3e, virial %.3e relative to all-pairs (limit %g)",
                     res[PE_ERR], res[VIR_ERR], ALLPAIRS_TOL);
  } else {
    kit_report_check(r, "forces_allpairs", KIT_VERIFY_SKIPPED, 0.0, ALLPAIRS_TOL,
                     "skipped: N = %lld > --allpairs-max %lld (O(N^2))", n, p->allpairs_max);
    kit_report_check(r, "energy_allpairs", KIT_VERIFY_SKIPPED, 0.0, ALLPAIRS_TOL,
                     "skipped: N = %lld > --allpairs-max %lld (O(N^2))", n, p->allpairs_max);
  }
  if (res[RAN_TR]) {
    const double e = fmax(res[TRAJ_X], res[TRAJ_V]);
    kit_report_check(
        r, "trajectory", e <= TRAJ_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, e, TRAJ_TOL,
        "max |x - x_ref| %.3e, |v - v_ref| %.3e vs the all-pairs integrator, %d steps (limit %g)",
        res[TRAJ_X], res[TRAJ_V], total, TRAJ_TOL);
  } else {
    kit_report_check(r, "trajectory", KIT_VERIFY_SKIPPED, 0.0, TRAJ_TOL,
                     "skipped: needs N <= --allpairs-max, steps x dt <= %g and N^2/2 x steps <= %.0e",
                     TRAJ_MAX_TIME, TRAJ_MAX_PAIRS);
  }
  if (res[RAN_OR] && gpu) {
    const double e = fmax(res[OR_X], res[OR_V]);
    kit_report_check(
        r, "oracle", e <= PT_GPU_ORACLE_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, e, PT_GPU_ORACLE_TOL,
        "max |x - x_cpu| %.3e, |v - v_cpu| %.3e: %s on %d ranks%s vs the single-rank cpu run of %d steps "
        "(limit %g; %s)",
        res[OR_X], res[OR_V], v->base.name, env->nranks, s0 > 0 ? " restarted" : "", total, PT_GPU_ORACLE_TOL,
        e == 0.0 ? "bitwise equal" : "force sums in the cpu order: last bits grown by the dynamics");
  } else if (res[RAN_OR]) {
    const double e = fmax(res[OR_X], res[OR_V]);
    if (s0 > 0)
      kit_report_check(
          r, "oracle", e == 0.0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, e, 0.0,
          "max |x - x_1rank| %.3e, |v - v_1rank| %.3e: %d ranks%s restarted at step %d "
          "vs the uninterrupted single-rank cpu run%s of %d steps from the initial state (limit 0)",
          res[OR_X], res[OR_V], env->nranks, p->list ? " with --neighbor list" : "", s0,
          p->list ? " with --neighbor cells" : "", total);
    else
      kit_report_check(
          r, "oracle", e == 0.0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, e, 0.0,
          "max |x - x_1rank| %.3e, |v - v_1rank| %.3e: %d rank%s%s vs the single-rank cpu run%s (limit 0)",
          res[OR_X], res[OR_V], env->nranks, env->nranks == 1 ? "" : "s",
          p->list ? " with --neighbor list" : "", p->list ? " with --neighbor cells" : "");
  } else {
    const char *why =
        gpu ? (!small ? "skipped: N > --allpairs-max"
                      : "skipped: without KIT_EXACT a GPU run is compared only up to steps x dt = 0.5")
            : (env->nranks == 1 ? "not applicable: this run is the single-rank oracle"
                                : "skipped: N > --allpairs-max");
    kit_report_check(r, "oracle", KIT_VERIFY_SKIPPED, 0.0, 0.0, "%s", why);
  }

  if (s0 > 0) {
    /* The thermo rows of this run start at the checkpoint's step: no check against step 0. */
    char why[200];
    snprintf(why, sizeof why,
             "not applicable: restarted at step %d, this run's thermo starts there, not at step 0", s0);
    kit_report_check(r, "momentum", KIT_VERIFY_SKIPPED, 0.0, 0.0, "%s", why);
    if (!p->input) {
      kit_report_check(r, "momentum_zero", KIT_VERIFY_SKIPPED, 0.0, 0.0, "%s", why);
      kit_report_check(r, "initial_temperature", KIT_VERIFY_SKIPPED, 0.0, 0.0, "%s", why);
    }
    kit_report_check(r, "energy_drift", KIT_VERIFY_SKIPPED, 0.0, p->max_drift, "%s", why);
    return;
  }
  /* Momentum: Newton's third law holds pair by pair (f_ji = -f_ij exactly), but each
   * particle's sum rounds, so sum F is N eps |F| and the momentum drifts by about that per
   * step. Walls push back on the particles: no conservation to check, only the start. */
  if (p->geom)
    kit_report_check(r, "momentum", KIT_VERIFY_SKIPPED, 0.0, 0.0, "%s",
                     "not applicable: reflecting walls exchange momentum with the particles");
  {
    double drift = 0.0, scale = 0.0;
    for (int t = 0; t <= steps; ++t)
      for (int a = 0; a < 3; ++a) {
        const double d = fabs(th[(size_t)t * PT_TH_N + PT_TH_PX + a] - th[PT_TH_PX + a]);
        if (!(d <= drift)) drift = d;
      }
    const pt_thermo t0 = pt_thermo_of(p, th);
    scale = sqrt(3.0 * t0.temp > 0 ? 3.0 * t0.temp : 1.0); /* rms speed */
    const double per = drift / ((double)n * scale);
    const double lim = 1e-14 * (steps + 1) + 1e-14;
    kit_report_result(r, "momentum_drift", per, "/(N v_rms)");
    if (!p->geom)
      kit_report_check(r, "momentum", per <= lim ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, per, lim,
                       "max_t |P(t) - P(0)| / (N v_rms) = %.3e (limit %.1e: 1e-14 per step, round-off)", per,
                       lim);
    if (!p->input) {
      const double p0 =
          sqrt(th[PT_TH_PX] * th[PT_TH_PX] + th[PT_TH_PY] * th[PT_TH_PY] + th[PT_TH_PZ] * th[PT_TH_PZ]) /
          ((double)n * scale);
      kit_report_check(r, "momentum_zero", p0 <= 1e-14 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, p0, 1e-14,
                       "|P(0)| / (N v_rms) = %.3e after removing the mean velocity (limit 1e-14)", p0);
      const double terr = fabs(t0.temp - p->temp) / (p->temp > 0 ? p->temp : 1.0);
      kit_report_check(r, "initial_temperature", terr <= T0_TOL ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, terr,
                       T0_TOL, "T(0) = %.15g for --temp %g (relative error %.2e, limit %g)", t0.temp, p->temp,
                       terr, T0_TOL);
    }
  }
  /* NVE energy drift. */
  {
    const double e0 = pt_thermo_of(p, th).etot;
    double drift = 0.0;
    for (int t = 0; t <= steps; ++t) {
      const double d = fabs(pt_thermo_of(p, th + (size_t)t * PT_TH_N).etot - e0) / fabs(e0);
      if (!(d <= drift)) drift = d;
    }
    kit_report_result(r, "energy_drift", drift, "relative");
    if (p->shift)
      kit_report_check(r, "energy_drift", drift <= p->max_drift ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED,
                       drift, p->max_drift,
                       "max_t |E(t) - E(0)| / |E(0)| = %.3e over %d steps, dt %g (limit %g)", drift, steps,
                       p->dt, p->max_drift);
    else
      kit_report_check(r, "energy_drift", KIT_VERIFY_SKIPPED, drift, p->max_drift,
                       "not applicable: needs --shift (the truncated energy jumps at rc); drift %.3e", drift);
  }
}
