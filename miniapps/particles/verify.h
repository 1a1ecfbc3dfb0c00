/* verify.h: the checks of a particles run (verify.c, README.md "Verification"). */
#ifndef PARTICLES_VERIFY_H
#define PARTICLES_VERIFY_H
#include "kit/report.h"
#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thermodynamics of one step, whole system. */
typedef struct pt_thermo {
  double pe, ke, etot, temp, press, p[3];
} pt_thermo;
/* From a row of summed PT_TH_* totals. */
pt_thermo pt_thermo_of(const pt_params *p, const double *row);

/* Rank 0 receives every rank's particles (10 doubles each, fetch's layout) sorted by id;
 * returns NULL elsewhere. Collective over comm. */
double *pt_gather(const pt_variant *v, void *st, MPI_Comm comm, long long *n_all);

/* The whole initial system, in id order (lattice or --input): what rank 0 gives the
 * references. */
void pt_initial_all(const pt_params *p, pt_particles *all);

/* Every check (collective). `th` holds the summed thermo rows 0..steps; `init` is this
 * rank's initial particles (for the single-rank oracle's setup on rank 0 it reads all). */
void pt_verify(const pt_params *p, const kit_env *env, const pt_variant *v, void *st, const double *th,
               int steps, kit_report *r);

#ifdef __cplusplus
}
#endif
#endif
