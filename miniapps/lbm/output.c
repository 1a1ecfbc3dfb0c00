/* output.c: the files an lbm run can write from rank 0's whole field: a legacy VTK image
 * (--vtk, opens in ParaView) and the centre-line profiles as CSV (--profile), with the
 * published or analytic reference beside them, ready for the lab's plot (Risso Sec. 6.1,
 * Fig. 6.2). --dump is kit_write_doubles in main.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ak2005.h"
#include "kit/check.h"
#include "kit/driver.h"
#include "lbm.h"
#include "verify.h"

/* Legacy VTK binary data is big-endian. */
static void put_be(FILE *f, double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(u >> (56 - 8 * i));
  fwrite(b, 1, 8, f);
}

void lbm_write_vtk(const lbm_params *p, const char *path, const double *all, int steps) {
  const size_t n = (size_t)p->size[0] * p->size[1] * p->size[2];
  FILE *f = kit_output_open("--vtk", path, "wb");
  fprintf(f, "# vtk DataFile Version 3.0\nlbm %s Re=%g U=%g step %d (cell centres)\nBINARY\n", p->flow, p->re,
          p->u_ref, steps);
  fprintf(f, "DATASET STRUCTURED_POINTS\nDIMENSIONS %d %d %d\nORIGIN 0.5 0.5 0.5\nSPACING 1 1 1\n",
          p->size[0], p->size[1], p->size[2]);
  fprintf(f, "POINT_DATA %zu\nSCALARS rho double 1\nLOOKUP_TABLE default\n", n);
  for (size_t c = 0; c < n; ++c) put_be(f, all[4 * c]);
  fprintf(f, "\nVECTORS u double\n");
  for (size_t c = 0; c < n; ++c)
    for (int a = 1; a < 4; ++a) put_be(f, all[4 * c + a]);
  fputc('\n', f);
  kit_output_close(f, "--vtk", path); /* every put_be above is checked here (ferror) */
}

void lbm_write_profile(const lbm_params *p, const char *path, const double *all, int steps) {
  const int cavity = strcmp(p->flow, "cavity") == 0;
  const int nmax = p->size[0] > p->size[2] ? p->size[0] : p->size[2];
  double *s = kit_malloc((size_t)nmax * sizeof *s, "profile"),
         *v = kit_malloc((size_t)nmax * sizeof *v, "profile");
  FILE *f = kit_output_open("--profile", path, "w");
  fprintf(f, "# lbm %s, %d x %d x %d cells, Re %g, U %g, tau %.6f, step %d; velocities / U\n", p->flow,
          p->size[0], p->size[1], p->size[2], p->re, p->u_ref, p->tau, steps);
  fprintf(f, "line,source,s,velocity\n");
  const int lines = cavity ? 2 : 1;
  for (int which = 0; which < lines; ++which) {
    const char *name = which == 0 ? "ux_along_z" : "uz_along_x";
    const int n = lbm_centreline(p, all, which, s, v);
    for (int m = 0; m < n; ++m) fprintf(f, "%s,lbm,%.6f,%.10g\n", name, s[m], v[m]);
    if (cavity && fabs(p->re - 1000.0) < 1e-9) {
      for (int m = 0; m < AK2005_N; ++m) {
        double s0, ref;
        ak2005_map(which, m, &s0, &ref);
        fprintf(f, "%s,albensoeder_kuhlmann_2005,%.4f,%.5f\n", name, s0, ref);
      }
    } else if (!cavity) {
      for (int k = 1; k <= p->size[2]; ++k)
        fprintf(f, "%s,analytic,%.6f,%.10g\n", name, (k - 0.5) / p->size[2], lbm_poiseuille_exact(p, k));
    }
  }
  kit_output_close(f, "--profile", path);
  free(s);
  free(v);
}
