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
/* This rank's interior after the variant's steps (nx*ny*nz doubles, x fastest; caller frees). */
double *laplace_fetch_interior(const laplace_block *b, const kit_variant *v, void *st);
/* kit_app.finish (ctx: the laplace_run): verification from the true initial problem (even
 * after --restart), the l2 norm and --dump, on the variant's final field. */
void laplace_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep);
/* kit_app.checkpoint: gather the field after `step` steps in all and write it (checkpoint.c). */
void laplace_checkpoint_write(void *ctx, const kit_variant *v, void *st, int step);
#endif
