/* verify.h: the checks of a tetfv run (verify.c), README.md "Verification". */
#ifndef TETFV_VERIFY_H
#define TETFV_VERIFY_H
#include "kit/report.h"
#include "tetfv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What rank 0 holds for the checks: the global problem and the gathered final field. */
typedef struct tetfv_problem {
  const tetfv_mesh *mesh; /* volumes and centroids */
  const tetfv_matrix *g;  /* the global matrix (mesh numbering) */
  const double *u0;       /* initial field, mesh numbering */
  const double *u;        /* final field after --iters steps, mesh numbering */
} tetfv_problem;

/* The decay rate of the mode in u (rate of its projection on the mode u0 over time T). */
double tetfv_mode_rate(const tetfv_mesh *m, const double *u0, const double *u, double T);
/* The rate the continuous problem has: pi^2 (K_xx + K_yy + K_zz) for the box's mode. */
double tetfv_exact_rate(const tetfv_params *p);
/* Relative rate error the mode-decay check allows on box:N (README.md, measured constants). */
double tetfv_mode_tolerance(const tetfv_params *p);

/* Runs every check (rank 0's data in `pr`, ignored elsewhere) and records it in r. */
void tetfv_verify(const tetfv_params *p, const kit_env *env, const tetfv_problem *pr, kit_report *r);

#ifdef __cplusplus
}
#endif
#endif
