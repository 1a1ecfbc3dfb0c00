/* run.h: what main.c's hooks for kit_main call: the problem's rules, bytes and slab
 * (setup.c) and what a run reports beyond kit_main's own lines (report.c). */
#ifndef ISING_RUN_H
#define ISING_RUN_H
#include "ising.h"
#include "kit/report.h"

/* Flip attempts of one sweep: every site of every sample. */
double ising_attempts(const ising_params *p);
/* kit_app.check: the lattice, layout and decomposition rules (-1: go on; else exit 2 after
 * one line). */
int ising_lattice_rules(const kit_env *env, const ising_params *p, const char *variant);
/* This rank's slab: whole granules (pairs of slices for sliced) of the z-decomposition. */
ising_block ising_rank_slab(const ising_params *p, const kit_env *env);
/* The host and device bytes this rank will allocate (kit_check_memory). */
void ising_memory(const kit_env *env, const ising_params *p, double *host, double *device);

/* The bytes model: what one flip attempt must move (README.md "Figure of merit and bytes"). */
double ising_bytes_per_flip(const ising_params *p);
/* --restart: the whole file checked now, before anything is allocated (checkpoint.c); sets
 * p->start_sweep. -1: go on; else the exit code after one line. */
int ising_restart_check(ising_params *p, const kit_env *env);
/* The report's params object (the object is open). */
void ising_describe(const ising_params *p, kit_json *j);
/* The whole lattice after the variant's sweeps, in logical order, on rank 0 (NULL
 * elsewhere; the caller frees it). Collective. */
int8_t *ising_final_lattice(const ising_ctx *c, const kit_variant *v, void *st);
/* Observables, verification and --dump on that lattice. Collective. */
void ising_results(const ising_ctx *c, const int8_t *logical, kit_report *rep);
#endif
