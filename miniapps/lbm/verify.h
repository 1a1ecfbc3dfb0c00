/* verify.h: verification and output entry points the driver calls (verify.c, output.c). */
#ifndef LBM_VERIFY_H
#define LBM_VERIFY_H
#include "kit/report.h"
#include "lbm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the run ended: steps done and, with --until-steady, whether it got there. */
typedef struct lbm_outcome {
  int steps;          /* time steps of the final state */
  int steady_mode;    /* --until-steady was given */
  int steady_reached; /* max|du| over the last check interval fell below the tolerance */
  double change;      /* that last max|du| / U */
} lbm_outcome;

/* Gathers every rank's rho, ux, uy, uz into one 4 * nx*ny*nz array on rank 0 (NULL elsewhere). */
double *lbm_gather(const lbm_params *p, const lbm_block *b, const double *macro);

/* A centre-line profile of the whole field `all` (rank 0): which = 0: ux / U along z at
 * x = y = 1/2; which = 1: uz / U along x at y = z = 1/2 (an average of the two middle cells
 * where the size is even). s[n] (cell centres in [0, 1]) and v[n], n = nz or nx cells. */
int lbm_centreline(const lbm_params *p, const double *all, int which, double *s, double *v);
/* Linear interpolation of a profile (with its wall values at s = 0 and 1) at s0. */
double lbm_profile_at(const double *s, const double *v, int n, double wall0, double wall1, double s0);
/* The analytic Poiseuille velocity ux / U at global plane k (1-based). */
double lbm_poiseuille_exact(const lbm_params *p, int k);
/* The same plus the uniform wall slip that BGK with half-way bounce-back adds (verify.c). */
double lbm_poiseuille_bgk(const lbm_params *p, int k);

/* Cavity against Albensoeder & Kuhlmann 2005 (ak2005.h): errors / U at the tabulated points. */
typedef struct lbm_ak_errors {
  double max_all, rms_all; /* every tabulated point */
  double max_interior;     /* points at least LBM_AK_WALL_BAND from every wall */
  double ext_err;          /* worst error of the three extrema (Table 5 min, Table 6 min/max) */
} lbm_ak_errors;
#define LBM_AK_WALL_BAND 0.06
lbm_ak_errors lbm_ak2005_compare(const lbm_params *p, const double *all);

/* Runs every check and records it in r; `all` is rank 0's whole field. */
void lbm_verify(const lbm_params *p, const kit_env *env, const double *all, const lbm_outcome *o,
                kit_report *r);

/* output.c: --dump, --vtk, --profile (rank 0, whole field; exit 3 on an I/O error). */
void lbm_write_vtk(const lbm_params *p, const char *path, const double *all, int steps);
void lbm_write_profile(const lbm_params *p, const char *path, const double *all, int steps);

#ifdef __cplusplus
}
#endif
#endif
