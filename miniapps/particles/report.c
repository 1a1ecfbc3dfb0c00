/* report.c: what a particles run reports (kit_app's describe and finish, main.c): the problem
 * in the report's params; after the timed runs the thermodynamic lines on stdout (the
 * lattice's energy, then every --thermo steps: pe, ke, etot per particle, T, P), the
 * messages and the selective exchange's counts (Bernaschi et al. Sec. 3.2.2: what the
 * connection matrix saves over sending every frontier particle to every neighbour), the
 * tiling's cell groups (Sec. 3.2.1), the METIS partition's quality, the checks (verify.c)
 * and --dump. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "problem.h"
#include "verify.h"

void pt_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j) {
  const pt_problem *pb = params;
  const pt_params *p = &pb->p;
  kit_json_int(j, "n", p->n);
  kit_json_int(j, "cells_x", p->cells[0]);
  kit_json_int(j, "cells_y", p->cells[1]);
  kit_json_int(j, "cells_z", p->cells[2]);
  kit_json_number(j, "density", p->input ? p->n / (p->box[0] * p->box[1] * p->box[2]) : p->density);
  kit_json_number(j, "temp", p->temp);
  kit_json_number(j, "rc", p->rc);
  kit_json_number(j, "dt", p->dt);
  kit_json_bool(j, "shift", p->shift);
  kit_json_string(j, "input", p->input);
  kit_json_string(j, "domain", p->domain);
  kit_json_string(j, "decomposition", pb->irregular ? "metis" : "grid");
  kit_json_number(j, "box_x", p->box[0]);
  kit_json_number(j, "box_y", p->box[1]);
  kit_json_number(j, "box_z", p->box[2]);
  kit_json_int(j, "lj_cells_x", p->nc[0]);
  kit_json_int(j, "lj_cells_y", p->nc[1]);
  kit_json_int(j, "lj_cells_z", p->nc[2]);
  kit_json_int(j, "ranks_x", pb->dims[0]);
  kit_json_int(j, "ranks_y", pb->dims[1]);
  kit_json_int(j, "ranks_z", pb->dims[2]);
  kit_json_int(j, "tiles_per_rank", pb->tiles_per_rank); /* multi-thread: ranks_* is the tile grid */
  kit_json_int(j, "iters", p->run.iters);
  kit_json_int(j, "start_step", p->start_step);
  kit_json_int(j, "warmup", p->run.warmup);
  kit_json_int(j, "reps", p->run.reps);
  kit_json_string(j, "neighbor", p->list ? "list" : "cells");
  kit_json_number(j, "skin", p->list ? p->skin : NAN); /* null with --neighbor cells */
  /* --images: what naive and two-stream were asked (the device where a rank is alone in the
   * periodic box: the result device_images_per_step says whether it was); null otherwise. */
  const int takes_images = kit_variant_in(PT_IMAGES_VARIANTS, v->name);
  kit_json_string(j, "images", takes_images ? p->images : NULL);
  kit_json_string(j, "sort",
                  p->list ? "by cell and id at each list build; lists by (rc-cell, id) every step"
                          : "by cell and id, every step");
  kit_json_u64(j, "seed", p->run.seed);
  kit_json_string(j, "precision", "double");
  kit_json_bool(j, "exact", !KIT_EXACT_BUILD_OFF);
}

/* One thermo line: the step and pe, ke, etot per particle, T, P. */
static void thermo_line(const pt_params *p, int step, const double *row) {
  const pt_thermo q = pt_thermo_of(p, row);
  printf("thermo: %8d %19.12f %19.12f %19.12f %12.8f %12.8f\n", step, q.pe, q.ke, q.etot, q.temp, q.press);
}

/* Rank 0 prints the thermodynamics of the last repetition (summed over ranks): every
 * --thermo steps (iters/10 by default) and the last step. */
static void thermo_lines(const pt_params *p, const double *th, int steps) {
  const int every = p->thermo > 0 ? p->thermo : (steps >= 10 ? steps / 10 : 1);
  /* The lattice energy depends only on the lattice and the cutoff: full precision. */
  if (p->start_step == 0)
    printf("%-28s %.17g\n", "pe0_per_particle:", pt_thermo_of(p, th).pe);
  else
    printf("%-28s %d (from --restart %s)\n", "start_step:", p->start_step, p->run.restart);
  printf("thermo: %8s %19s %19s %19s %12s %12s\n", "step", "pe/N", "ke/N", "etot/N", "T", "P");
  for (int t = 0; t <= steps; t += every) thermo_line(p, p->start_step + t, th + (size_t)t * PT_TH_N);
  if (steps % every) thermo_line(p, p->start_step + steps, th + (size_t)steps * PT_TH_N);
  fflush(stdout);
}

/* --dump: id x y z vx vy vz of every particle by id, raw doubles, from rank 0. */
static void dump(const pt_params *p, const kit_env *env, const pt_variant *v, void *st) {
  long long got = 0;
  double *all = pt_gather(v, st, MPI_COMM_WORLD, &got);
  if (env->rank == 0) {
    double *o = kit_malloc((size_t)(got > 0 ? got : 1) * 7 * sizeof *o, "dump");
    for (long long i = 0; i < got; ++i) memcpy(o + 7 * i, all + 10 * i, 7 * sizeof *o);
    kit_write_doubles(p->dump, o, 7 * (size_t)got);
    free(o);
  }
  free(all);
}

void pt_finish(void *ctx, const kit_variant *kv, void *st, const kit_timing *t, kit_report *rep) {
  const pt_run *r = ctx;
  const pt_variant *v = (const pt_variant *)kv; /* base is its first member */
  const pt_problem *pb = r->pb;
  const pt_params *p = &pb->p;
  const kit_env *env = r->c.env;
  const int is_mt = v->base.gpus_max > 0, ntiles = env->nranks * pb->tiles_per_rank;
  int steps = 0;
  const double *mine = v->thermo(st, &steps);
  const size_t nth = (size_t)(steps + 1) * PT_TH_N;
  double *th = kit_malloc(nth * sizeof *th, "thermo");
  KIT_MPI_CHECK(MPI_Allreduce(mine, th, (int)nth, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  if (env->rank == 0) thermo_lines(p, th, steps);

  const pt_traffic *tr = v->traffic(st);
  const double per = tr->steps > 0 ? (double)tr->steps : 1.0;
  kit_report_messages(rep, tr->messages, tr->bytes, per);
  long long loc[10] = {tr->ghosts_sent,    tr->ghosts_all_nbrs, tr->migrated,    tr->ghosts_discarded,
                       tr->wall_hits,      tr->pair_checks,     tr->list_builds, tr->list_entries,
                       tr->list_particles, tr->device_images},
            tot[10];
  KIT_MPI_CHECK(MPI_Allreduce(loc, tot, 10, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  int ct[4], nbmax[2];
  KIT_MPI_CHECK(MPI_Allreduce(r->cl, ct, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(r->nb, nbmax, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  const pt_thermo q = pt_thermo_of(p, th + (size_t)steps * PT_TH_N);
  kit_report_result(rep, "pe_per_particle", q.pe, "");
  kit_report_result(rep, "ke_per_particle", q.ke, "");
  kit_report_result(rep, "etot_per_particle", q.etot, "");
  kit_report_result(rep, "temperature", q.temp, "");
  kit_report_result(rep, "pressure", q.press, "");
  kit_report_result(rep, "sent_per_step", tot[0] / per, "particles");
  kit_report_result(rep, "sent_all_nbrs_per_step", tot[1] / per, "particles");
  kit_report_result(rep, "migrated_per_step", tot[2] / per, "particles");
  kit_report_result(rep, "discarded_per_step", tot[3] / per, "particles");
  /* The GPU variants: of the copies kept, those a rank alone in the periodic box made on the
   * device (--images device), not through the host. */
  if (v->base.needs_gpu) kit_report_result(rep, "device_images_per_step", tot[9] / per, "particles");
  /* The cpu variant's force work: pair distances per step (cells: the 27 cells' candidates;
   * list: the lists' entries plus the builds' cell walks), and the lists. */
  if (!v->base.needs_gpu) kit_report_result(rep, "pair_checks_per_step", tot[5] / per, "pairs");
  if (p->list) {
    /* Builds are collective (any rank's particle that moved skin/2): every rank counted each. */
    kit_report_result(rep, "list_rebuilds", (double)tot[6] / env->nranks, "builds");
    kit_report_result(rep, "neighbors_per_particle", tot[8] > 0 ? (double)tot[7] / tot[8] : 0.0,
                      "last build");
  }
  kit_report_result(rep, "cells_internal", ct[0], "all ranks");
  kit_report_result(rep, "cells_frontier", ct[1], "all ranks");
  kit_report_result(rep, "cells_external", ct[2], "all ranks");
  kit_report_result(rep, "max_connections", nbmax[0], is_mt ? "per tile" : "per rank");
  kit_report_result(rep, "max_nbr_ranks", nbmax[1], is_mt ? "tiles, per tile" : "per rank");
  kit_report_result(rep, "mean_nbr_ranks", (double)ct[3] / ntiles, is_mt ? "tiles, per tile" : "per rank");
  if (pb->irregular) {
    /* The METIS partition: balance of the particles at step 0, cell faces cut. */
    long long n0 = r->init.n, n0max = 0;
    KIT_MPI_CHECK(MPI_Allreduce(&n0, &n0max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
    kit_report_result(rep, "occupied_cells", pb->geom.nocc, "cells"); /* of the global tiling */
    kit_report_result(rep, "partition_edge_cut", (double)pb->edge_cut,
                      "edges"); /* of the cell graph, between ranks */
    kit_report_result(rep, "load_imbalance", (double)n0max * env->nranks / (double)p->n,
                      "max/mean"); /* particles per rank, step 0 */
    kit_report_result(rep, "wall_hits_per_step", tot[4] / per, "reflections");
  }
  if (p->run.verify) pt_verify(p, env, v, st, th, steps, rep);
  if (p->dump) dump(p, env, v, st);
  free(th);
}
