/* g500.c: the statistics block of the Graph500 output ("Computing and Outputting Performance
 * Information"): order statistics, mean and standard deviation of the search times and edge
 * counts, and of TEPS = m / time with its harmonic mean and harmonic standard deviation
 * (Norris 1940). Computed as the reference implementation's get_statistics does: sample
 * standard deviation (n - 1), quartiles as the mean of the two middle order statistics, TEPS
 * statistics from the seconds per edge, inverted. Keys as the reference code prints them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "validate.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bfs_g500_statistics(const double *x, int n, bfs_g500_stats *s) {
  double mean = 0.0, var = 0.0;
  for (int i = 0; i < n; ++i) mean += x[i];
  mean /= n;
  for (int i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  s->mean = mean;
  s->stddev = n > 1 ? sqrt(var / (n - 1)) : 0.0;
  double *xx = kit_malloc((size_t)n * sizeof(double), "statistics");
  memcpy(xx, x, (size_t)n * sizeof(double));
  qsort(xx, (size_t)n, sizeof(double), cmp_double);
  s->min = xx[0];
  s->firstquartile = (xx[(n - 1) / 4] + xx[n / 4]) * 0.5;
  s->median = (xx[(n - 1) / 2] + xx[n / 2]) * 0.5;
  s->thirdquartile = (xx[n - 1 - (n - 1) / 4] + xx[n - 1 - n / 4]) * 0.5;
  s->max = xx[n - 1];
  free(xx);
}

void bfs_g500_teps(const double *nedge, const double *time, int n, bfs_g500_stats *s) {
  double *spe = kit_malloc((size_t)n * sizeof(double), "statistics");
  for (int i = 0; i < n; ++i) spe[i] = time[i] / nedge[i];
  bfs_g500_stats t;
  bfs_g500_statistics(spe, n, &t);
  free(spe);
  s->min = 1.0 / t.max; /* the slowest search per edge is the smallest rate */
  s->firstquartile = 1.0 / t.thirdquartile;
  s->median = 1.0 / t.median;
  s->thirdquartile = 1.0 / t.firstquartile;
  s->max = 1.0 / t.min;
  s->mean = 1.0 / t.mean; /* harmonic mean of the rates */
  s->stddev = n > 1 ? t.stddev / (t.mean * t.mean * sqrt((double)(n - 1))) : 0.0;
}

static void block(FILE *f, const char *what, const bfs_g500_stats *s, int mean_is_harmonic) {
  char k[64];
#define LINE(name, v)                          \
  snprintf(k, sizeof k, "%s_%s:", name, what); \
  fprintf(f, "%-28s %.12g\n", k, v)
  LINE("min", s->min);
  LINE("firstquartile", s->firstquartile);
  LINE("median", s->median);
  LINE("thirdquartile", s->thirdquartile);
  LINE("max", s->max);
  LINE(mean_is_harmonic ? "harmonic_mean" : "mean", s->mean);
  LINE(mean_is_harmonic ? "harmonic_stddev" : "stddev", s->stddev);
#undef LINE
}

void bfs_g500_print(FILE *f, const double *time, const double *nedge, int n) {
  bfs_g500_stats s;
  bfs_g500_statistics(time, n, &s);
  block(f, "time", &s, 0);
  bfs_g500_statistics(nedge, n, &s);
  block(f, "nedge", &s, 0);
  bfs_g500_teps(nedge, time, n, &s);
  block(f, "TEPS", &s, 1);
}
