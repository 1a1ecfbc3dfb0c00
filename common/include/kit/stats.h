/* kit/stats.h: summary statistics of repeated timings. */
#ifndef KIT_STATS_H
#define KIT_STATS_H
#ifdef __cplusplus
extern "C" {
#endif
typedef struct kit_stats {
  double min, median, max;
} kit_stats;
/* Min, median (mean of the middle two for even n) and max of v[0..n). n >= 1. */
kit_stats kit_stats_of(const double *v, int n);
#ifdef __cplusplus
}
#endif
#endif
