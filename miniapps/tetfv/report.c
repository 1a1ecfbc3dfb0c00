/* report.c: what a tetfv run reports beyond kit_main's timing and bandwidth (report.h):
 * the problem's parameters, the scheme's figures (the time step against its stability limit,
 * Paper III Sec. 2), the partition's (separator and ghost cells, the interior reorder's
 * distance and cost, Sec. 3.1-3.2) and MCUP/s; then the checks (verify.c) and --dump on the
 * final field of the last repetition. README.md "Figure of merit and bandwidth". */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "verify.h"

void tetfv_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *pj) {
  const tetfv_params *p = params;
  const tetfv_built *b = ctx;
  const kit_env *env = b->c.env;
  kit_json_string(pj, "mesh", p->mesh);
  kit_json_int(pj, "cells", b->ncells);
  kit_json_int(pj, "nodes", b->nodes);
  kit_json_int(pj, "box_n", p->box_n);
  kit_json_number(pj, "jitter", p->jitter);
  kit_json_bool(pj, "shuffle", p->shuffle);
  kit_json_bool(pj, "no_exchange", p->no_exchange);
  kit_json_number(pj, "kappa", p->kappa);
  kit_json_number(pj, "aniso", p->aniso);
  kit_json_string(pj, "fibres", p->aniso > 0.0 ? p->fibres : "none");
  kit_json_string(pj, "flux", p->flux);
  kit_json_string(pj, "bc", p->bc);
  kit_json_number(pj, "safety", p->safety);
  kit_json_number(pj, "dt", p->dt);
  kit_json_number(pj, "t_end", p->dt * p->run.iters);
  kit_json_int(pj, "iters", p->run.iters);
  kit_json_int(pj, "start_step", p->start_step);
  kit_json_int(pj, "warmup", p->run.warmup);
  kit_json_int(pj, "reps", p->run.reps);
  kit_json_string(pj, "init", p->init);
  kit_json_string(pj, "reorder", p->reorder);
  kit_json_int(pj, "block", p->block);
  kit_json_u64(pj, "seed", p->run.seed);
  kit_json_string(pj, "partitioner", env->nranks > 1 ? "METIS_PartGraphKway, dual graph" : "none (1 rank)");
  kit_json_string(pj, "precision", "double");
  kit_json_bool(pj, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_bool(pj, "p2p", p->p2p);
  /* How the separator moved between processes: --comm where the variant takes it; cpu, hybrid
   * and multi-thread stage it through host memory and MPI (exchange.c). */
  kit_json_string(pj, "comm", kit_variant_in(TETFV_COMM_VARIANTS, v->name) ? p->comm : "host");
  kit_json_int(pj, "gpu_block_rows", TETFV_GPU_B);
}

/* The scheme's and the partition's figures and MCUP/s (collective). */
static void results(const tetfv_built *b, const kit_timing *t, kit_report *rep) {
  const tetfv_params *p = b->c.p;
  const tetfv_local *l = &b->loc;
  long long mine[2] = {l->nsep, l->nghost}, sum[2] = {0, 0};
  KIT_MPI_CHECK(MPI_Allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  double dist[2] = {l->reorder_distance, b->part_build_s}, dmax[2] = {0.0, 0.0};
  KIT_MPI_CHECK(MPI_Allreduce(dist, dmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  kit_report_result(rep, "dt", p->dt, "time");
  kit_report_result(rep, "dt_stable", b->dt_stable, "time");
  kit_report_result(rep, "t_end", p->dt * p->run.iters, "time");
  kit_report_result(rep, "max_row_width", b->width, "slots");
  kit_report_result(rep, "rows_not_dominant", b->nodominant, "rows");
  kit_report_result(rep, "flux_limiter", b->theta, "");
  kit_report_result(rep, "separator_cells", (double)sum[0], "cells");
  kit_report_result(rep, "ghost_cells", (double)sum[1], "cells");
  kit_report_result(rep, "interior_distance", dmax[0], "rows");
  kit_report_result(rep, "part_build_s", dmax[1], "s"); /* slowest rank: its part, --reorder included */
  kit_report_result(rep, "MCUP/s", b->ncells * (double)t->iters / t->time.median * 1e-6, "MCUP/s");
}

/* The final field of v's state: every check (--verify) and --dump (collective). */
static void check_final(const tetfv_built *b, const kit_variant *v, void *st, kit_report *rep) {
  const tetfv_params *p = b->c.p;
  const kit_env *env = b->c.env;
  double *mine = kit_malloc(((size_t)b->loc.nown + 1) * sizeof(double), "result");
  v->fetch(st, mine);
  double *all = p->run.verify || p->dump ? tetfv_gather(env, &b->loc, mine, b->ncells) : NULL;
  if (p->run.verify) {
    tetfv_problem pr = {&b->mesh, &b->g, b->u0, all};
    tetfv_verify(p, env, env->rank == 0 ? &pr : NULL, rep);
  }
  if (p->dump && env->rank == 0) kit_write_doubles(p->dump, all, (size_t)b->ncells);
  free(all);
  free(mine);
}

void tetfv_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  results(ctx, t, rep);
  check_final(ctx, v, st, rep);
}
