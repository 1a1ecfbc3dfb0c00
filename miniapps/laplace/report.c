/* report.c: what a laplace run reports beside the verdict: the figure of merit and the bytes
 * model (Paper II Sec. 2.2: a point update reads u once and writes u_new once, the neighbours
 * coming from cache), and the problem's parameters in the JSON line (docs/output-schema.md). */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernel.h"
#include "laplace.h"

/* Bytes one point update must move: read u once, write u_new once (neighbours from cache). */
#define LAPLACE_BYTES_PER_POINT 16.0

void laplace_measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const laplace_params *p = ((const laplace_run *)ctx)->c.p;
  const double points = (double)p->size[0] * p->size[1] * p->size[2];
  *m = (kit_measure){"GLUP/s", "GLUP/s", points * t->iters / t->time.median * 1e-9,
                     LAPLACE_BYTES_PER_POINT * points};
}

void laplace_describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j) {
  const laplace_params *p = params;
  kit_json_int(j, "nx", p->size[0]);
  kit_json_int(j, "ny", p->size[1]);
  kit_json_int(j, "nz", p->size[2]);
  /* The process grid, [P, Q, R] ranks along x, y, z (--procs; 1x1xN by default). */
  kit_json_begin_array(j, "procs");
  for (int d = 0; d < 3; ++d) kit_json_int(j, NULL, p->procs[d]);
  kit_json_end_array(j);
  kit_json_number(j, "alpha", p->alpha);
  kit_json_number(j, "beta", p->beta);
  kit_json_string(j, "init", p->init);
  kit_json_int(j, "iters", p->run.iters);
  kit_json_int(j, "warmup", p->run.warmup);
  kit_json_int(j, "reps", p->run.reps);
  kit_json_u64(j, "seed", p->run.seed);
  kit_json_bool(j, "p2p", p->p2p);
  /* multi-thread's host side and, for its single-thread baseline, the exchange order. */
  const int mt = strcmp(v->name, "multi-thread") == 0, single = mt && strcmp(p->mt_scheme, "single") == 0;
  kit_json_string(j, "mt_scheme", mt ? p->mt_scheme : NULL);
  kit_json_string(j, "exchange_order",
                  single ? (p->exchange_order ? p->exchange_order : "left-right") : NULL);
  /* How planes moved between processes: --comm where the variant takes it; multi-thread copies
   * peer to peer inside the process and stages through the host between processes. */
  kit_json_string(j, "comm", kit_variant_in(LAPLACE_COMM_VARIANTS, v->name) ? p->comm : "host");
  kit_json_bool(j, "exact", !KIT_EXACT_BUILD_OFF);
  kit_json_int(j, "start_step", p->start_step);
  kit_json_string(j, "omp_wait_policy", getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default");
  /* Where the host's threads ran (the cpu kernel's share of the host triad depends on it). */
  kit_json_string(j, "omp_proc_bind", getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "default");
  /* The host sweep that ran (cpu_kernel.h): "off", "BXxBY" or "BXxBY+nt"; null where no host
   * sweep ran (the GPU variants, a hybrid run that fell back to two-stream). */
  laplace_cpu_block k;
  char name[64];
  const int host = strcmp(v->name, "cpu") == 0 || kit_variant_in(LAPLACE_HYBRID_VARIANTS, v->name);
  kit_json_string(j, "cpu_block",
                  host && laplace_cpu_block_used(&k) ? laplace_cpu_block_name(&k, name, sizeof name) : NULL);
}
