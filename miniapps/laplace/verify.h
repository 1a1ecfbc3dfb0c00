/* verify.h: verification entry points the driver calls (verify.c). */
#ifndef LAPLACE_VERIFY_H
#define LAPLACE_VERIFY_H
#include "kit/report.h"
#include "laplace.h"

/* Gathers every rank's interior into one nx*ny*nz array on rank 0 (NULL elsewhere). */
double *laplace_gather(const laplace_params *p, const kit_env *env, const laplace_block *b,
                       const double *interior);
/* Runs every check and records it in r. `gathered` is rank 0's whole field. */
void laplace_verify(const laplace_params *p, const kit_env *env, const laplace_block *b,
                    const double *interior, const double *gathered, kit_report *r);
#endif
