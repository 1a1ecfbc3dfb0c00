/* problem.h: the particles problem as kit_main's hooks build it (problem.c, report.c): the
 * domain (box, --input, tube or mask), the tile grid or METIS parts, --restart's records,
 * each rank's initial particles. Bernaschi et al. Sec. 3.2.1; README.md in this folder. */
#ifndef PARTICLES_PROBLEM_H
#define PARTICLES_PROBLEM_H
#include <stdio.h>

#include "geometry.h"
#include "kit/app.h"
#include "particles.h"

/* A particle's record in a checkpoint and a gather: id x y z vx vy vz fx fy fz. */
#define PT_REC 10

/* The app's parameters (kit_app.params): the flags, and what the prologue's hooks derive. */
typedef struct pt_problem {
  pt_params p; /* first member: the flags the variants see */
  int cells_given, density_given, temp_given, ranks_given, drift_given, dump_every_given, skin_given;
  double allpairs;             /* --allpairs-max as parsed (a double row), into p.allpairs_max */
  int irregular;               /* --domain tube or FILE: walls, METIS parts instead of a grid */
  pt_geom geom;                /* the irregular domain (p.geom points here) */
  int tiles_per_rank, dims[3]; /* the tile grid: ranks, or ranks x threads (multi-thread) */
  int *owner;                  /* irregular: the tile owning every cell (-1: empty), the same on every rank */
  long long edge_cut;          /* of the METIS partition */
  double *ck;                  /* --restart: every particle's record (PT_REC doubles), on every rank */
} pt_problem;

/* What a run holds (kit_app's ctx): the variants' context first, so kit_main's ctx is it. */
typedef struct pt_run {
  pt_ctx c;
  pt_problem *pb;
  pt_particles init; /* this rank's initial particles */
  int cl[4], nb[2];  /* this rank's tiles: internal, frontier, external cells, neighbour
                        tiles; the most connections and neighbour tiles of one tile */
  FILE *lmp;         /* --dump-lammps, open on rank 0 between its first and last frame */
  int *lmp_types;    /* rank 0: each atom's LAMMPS type by id (a LAMMPS --input), or NULL */
} pt_run;

/* kit_main's hooks (kit/app.h), problem.c. check: the flag rules, the domain (its files read
 * here, collectively) and the tile grid (ranks, or ranks x threads for multi-thread). plan:
 * the grid for the GPUs given, the METIS parts of an irregular domain, --restart's file, this
 * rank's host and device bytes. context: this rank's pt_run, its tiling, its initial particles
 * (checkpoint, --input with the spacing check, or the lattice), --dump-cells. */
int pt_check(const kit_env *env, void *params, const char *variant);
int pt_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host, double *device);
int pt_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo);
/* kit_app.free_context: the tiling, the initial particles and the pt_run itself. */
void pt_run_free(void *ctx);
/* kit_app.started: after a set-up from --restart, the recomputed forces must be the
 * checkpoint's (nothing without --restart). */
void pt_restart_check_forces(void *ctx, const kit_variant *v, void *st);
/* kit_app.checkpoint: every particle's record after `step` steps, gathered, written by rank 0. */
void pt_checkpoint(void *ctx, const kit_variant *v, void *st, int step);
/* kit_app.timed: with --dump-lammps, kit_main's own loop (kit_time_variant: warm-up, profiled
 * pass, repetitions) with the frames between chunks of the last repetition, and the step-0
 * frame before it, for every variant alike (the frames are gathered with fetch, as
 * checkpoints are; --checkpoint's writes stay where they were). 0 without --dump-lammps. */
int pt_timed(void *ctx, const kit_variant *v, void *st, kit_timing *t);
void pt_problem_free(pt_problem *pb);

/* report.c, kit_app's describe (the report's params: params is the pt_problem) and finish
 * (ctx is the pt_run: after the timed runs the thermodynamic lines, the results, the
 * verification and --dump). */
void pt_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j);
void pt_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep);

#endif
