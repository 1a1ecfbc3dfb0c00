/* run.h: ising's kit_app hooks that main.c's descriptor names directly, and what main.c's
 * own hooks call: the problem's rules, bytes and slab (setup.c) and what a run reports
 * beyond kit_main's own lines (report.c). Each hook has kit_app's exact signature. */
#ifndef ISING_RUN_H
#define ISING_RUN_H
#include "ising.h"
#include "kit/report.h"

/* Flip attempts of one sweep: every site of every sample. */
double ising_attempts(const ising_params *p);
/* kit_app.check: the lattice, layout and decomposition rules (-1: go on; else exit 2 after
 * one line). */
int ising_check(const kit_env *env, void *params, const char *variant);
/* kit_app.gpu_limit: multi-thread without --gpus uses every GPU with a granule to hold. */
int ising_gpu_limit(const kit_env *env, const void *params);
/* kit_app.plan's body (main.c's plan calls it once --comm is checked): multi-thread's thread
 * level and GPU split, the --restart check (sets p->start_sweep, checkpoint.c), then the host
 * and device bytes this rank will allocate. */
int ising_run_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                   double *device);
/* This rank's slab: whole granules (pairs of slices for sliced) of the z-decomposition. */
ising_block ising_rank_slab(const ising_params *p, const kit_env *env);

/* The bytes model: what one flip attempt must move (README.md "Figure of merit and bytes"). */
double ising_bytes_per_flip(const ising_params *p);
/* --restart: the whole file checked now, before anything is allocated (checkpoint.c); sets
 * p->start_sweep. -1: go on; else the exit code after one line. */
int ising_restart_check(ising_params *p, const kit_env *env);
/* kit_app.outputs: --dump's path, checked before the run. */
int ising_outputs(const void *params, const char **flags, const char **paths);
/* kit_app.describe: the report's params object (the object is open). */
void ising_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j);
/* The whole lattice after the variant's sweeps, in logical order, on rank 0 (NULL
 * elsewhere; the caller frees it). Collective. */
int8_t *ising_final_lattice(const ising_ctx *c, const kit_variant *v, void *st);
/* Observables, verification and --dump on that lattice. Collective. */
void ising_results(const ising_ctx *c, const int8_t *logical, kit_report *rep);
#endif
