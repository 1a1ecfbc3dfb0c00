/* run.h: what lbm's hooks on kit_main (kit/app.h) share: the parameters, the run's context and
 * the hooks that live beside main.c. main.c holds the options and the descriptor; setup.c the
 * rules, this rank's problem (Risso Sec. 4.2's z-slabs) and its memory; steady.c --until-steady
 * (Sec. 5.2's runs to a steady state); report.c the report, the verification and the output
 * files; checkpoint.c --checkpoint. */
#ifndef LBM_RUN_H
#define LBM_RUN_H
#include "kit/app.h"
#include "lbm.h"
#include "verify.h"

/* The parameters, and which flags were given (their rules and defaults depend on it). */
typedef struct lbm_args {
  lbm_params p; /* first member: the hooks read it as lbm_params */
  int iters_given, re_given, lid_given, peak_given, every_given;
} lbm_args;

/* What one run holds beside the variants' context. */
typedef struct lbm_run {
  lbm_ctx c;              /* what every variant's setup gets (first member: the same address) */
  lbm_params initial;     /* the true initial problem: the oracle starts there, even on restart */
  double *restart_planes; /* --restart: the planes this rank's slab starts from */
  lbm_outcome out;        /* steps done and, with --until-steady, whether it got there */
} lbm_run;

/* setup.c: the kit_app hooks check (params: an lbm_args), outputs, gpu_limit and plan (the
 * rules that depend on the GPUs, the --restart check and the memory model). */
int lbm_check(const kit_env *env, void *params, const char *variant);
int lbm_outputs(const void *params, const char **flags, const char **paths);
int lbm_gpu_limit(const kit_env *env, const void *params);
int lbm_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host, double *device);
/* setup.c: the kit_app hooks context, free_context, cpu_units and set_cpu_fraction. */
int lbm_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo);
void lbm_free_context(void *ctx);
int lbm_cpu_units(const void *ctx, double fraction);
void lbm_set_cpu_fraction(void *ctx, double fraction);
/* steady.c: the kit_app hook timed (--until-steady; 0 otherwise: kit_main's loop). */
int lbm_timed(void *ctx, const kit_variant *v, void *st, kit_timing *t);
/* report.c: the kit_app hooks measure, describe and finish. */
void lbm_measure(const void *ctx, const kit_timing *t, kit_measure *m);
void lbm_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j);
void lbm_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep);
/* checkpoint.c: the kit_app hook checkpoint (the lattice after `step` steps, gathered, written). */
void lbm_checkpoint(void *ctx, const kit_variant *v, void *st, int step);

#endif
