/* stats.c: min/median/max of repetition times (kit/stats.h). */
#include "kit/stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

kit_stats kit_stats_of(const double *v, int n) {
  kit_stats s = {0, 0, 0};
  if (n < 1) return s;
  double *t = malloc((size_t)n * sizeof *t);
  memcpy(t, v, (size_t)n * sizeof *t);
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  s.min = t[0];
  s.max = t[n - 1];
  s.median = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  free(t);
  return s;
}
