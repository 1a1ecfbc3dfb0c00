/* hybrid.c: Paper II's bandwidth-ratio workload model (kit/hybrid.h). */
#include "kit/hybrid.h"

double kit_cpu_share(double bw_cpu, double bw_gpu, double derate) {
  if (!(bw_cpu > 0.0) || !(bw_gpu > 0.0)) return 0.0;
  const double r = derate * bw_cpu / (bw_cpu + bw_gpu);
  return r < 0.0 ? 0.0 : (r >= 1.0 ? 0.99 : r);
}
