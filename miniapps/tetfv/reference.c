/* reference.c: the serial oracle. The global matrix, in the mesh's own cell numbering, one
 * thread, one loop over every row per step: no partition, no ghost cells, no messages, no
 * reordering. Every variant on every rank count must reproduce it bit for bit (DESIGN.md
 * Sec. 6); it shares with them only tetfv_row (row.h), the physics of one update. */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "tetfv.h"

void tetfv_reference(const tetfv_matrix *g, const double *u0, int steps, double *out, const kit_run *run) {
  const int n = g->n;
  double *u = kit_malloc(((size_t)n + 1) * sizeof(double), "oracle field");
  double *un = kit_malloc(((size_t)n + 1) * sizeof(double), "oracle field");
  memcpy(u, u0, (size_t)n * sizeof(double));
  kit_progress pr = {0};
  if (run) pr = kit_progress_start(run);
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) un[i] = tetfv_row(g->D, g->A, g->I, u, i);
    double *s = u;
    u = un;
    un = s;
    kit_progress_loop(&pr, "oracle step", t + 1, steps);
  }
  memcpy(out, u, (size_t)n * sizeof(double));
  free(u);
  free(un);
}
