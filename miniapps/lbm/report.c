/* report.c: what lbm reports through kit_main (kit/app.h): the figure of merit (million
 * lattice-site updates per second, Risso Sec. 6's MLUPS), the problem's parameters in the
 * JSON line, and, on the final state of the last repetition, the verification (verify.c:
 * the oracle and the analytic checks of Sec. 5.2 and 6.1) and the output files (output.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "run.h"

/* Bytes one cell update must move with two lattices: read 19 populations, write 19. */
#define LBM_BYTES_PER_CELL (2.0 * LBM_Q * 8.0)

static double cells_of(const lbm_params *p) {
  return (double)p->size[0] * p->size[1] * p->size[2];
}

void lbm_measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const double cells = cells_of(((const lbm_run *)ctx)->c.p);
  *m =
      (kit_measure){"MLUP/s", "MLUP/s", cells * t->iters / t->time.median * 1e-6, LBM_BYTES_PER_CELL * cells};
}

void lbm_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j) {
  const lbm_params *p = params;
  const lbm_run *r = ctx;
  const int steady = r->out.steady_mode;
  kit_json_int(j, "nx", p->size[0]);
  kit_json_int(j, "ny", p->size[1]);
  kit_json_int(j, "nz", p->size[2]);
  /* The process grid, [P, Q, R] ranks along x, y, z (--procs; 1x1xN by default). */
  kit_json_begin_array(j, "procs");
  for (int d = 0; d < 3; ++d) kit_json_int(j, NULL, p->procs[d]);
  kit_json_end_array(j);
  kit_json_string(j, "case", p->flow);
  kit_json_number(j, "re", p->re);
  kit_json_number(j, "velocity", p->u_ref);
  kit_json_number(j, "nu", p->nu);
  kit_json_number(j, "tau", p->tau);
  kit_json_number(j, "force_x", p->force[0]);
  kit_json_string(j, "init", p->init);
  /* How the face populations travel: --halo for the variants that have it; multi-thread copies
   * peer to peer (five copies at its MPI ends); cpu packs on the host. */
  kit_json_string(j, "halo",
                  !v->needs_gpu ? "host" : (strcmp(v->name, "multi-thread") == 0 ? "peer" : p->halo));
  /* How they move between processes: --comm where the variant takes it (naive, two-stream);
   * cpu, hybrid and multi-thread's process ends call MPI on host memory. */
  kit_json_string(j, "comm", kit_variant_in(LBM_COMM_VARIANTS, v->name) ? p->comm : "host");
  kit_json_int(j, "iters", p->run.iters);
  kit_json_int(j, "steps", r->out.steps);
  kit_json_int(j, "start_step", p->start_step);
  /* --until-steady: one repetition, no warm-up (steady.c). */
  kit_json_int(j, "warmup", steady ? 0 : p->run.warmup);
  kit_json_int(j, "reps", steady ? 1 : p->run.reps);
  kit_json_number(j, "until_steady", p->until_steady);
  kit_json_int(j, "check_every", p->check_every);
  kit_json_u64(j, "seed", p->run.seed);
  kit_json_string(j, "precision", "double");
  kit_json_bool(j, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_string(j, "omp_wait_policy", getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default");
}

void lbm_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  (void)t;
  const lbm_run *r = ctx;
  const lbm_params *p = r->c.p;
  const kit_env *env = r->c.env;
  kit_report_result(rep, "tau", p->tau, "");
  if (r->out.steady_mode)
    kit_report_result(rep, "steps_to_steady", r->out.steady_reached ? r->out.steps : -1, "steps");
  double *macro = kit_malloc(4 * r->c.blk.plane * (size_t)r->c.blk.nz * sizeof(double), "result");
  v->fetch(st, macro);
  double *all = (p->run.verify || p->dump || p->vtk || p->profile) ? lbm_gather(p, &r->c.blk, macro) : NULL;
  if (p->run.verify) lbm_verify(&r->initial, env, all, &r->out, rep);
  if (env->rank == 0) {
    if (p->dump) kit_write_doubles(p->dump, all, 4 * (size_t)cells_of(p));
    if (p->vtk) lbm_write_vtk(p, p->vtk, all, r->out.steps);
    if (p->profile) lbm_write_profile(p, p->profile, all, r->out.steps);
  }
  free(all);
  free(macro);
}
