/* setup.c: lbm's problem on this rank, for kit_main (kit/app.h): the context every variant's
 * setup gets (a z-slab and its two neighbours, Risso Sec. 4.2's decomposition), the planes a
 * restart starts from, the hybrid's CPU share (Sourouri Paper II: whole top planes of the
 * slab, Sec. 4.3's CPU part), and what the run will allocate, so that kit_main refuses a
 * problem that cannot fit before anything large exists. */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/hybrid.h"
#include "kit/slab.h"
#include "run.h"

void lbm_memory(const kit_env *env, const lbm_params *p, const kit_variant *v, double *host, double *device) {
  /* Two lattices per rank, the steady-check and fetch buffers; on rank 0 the gathered field
   * and, for the oracle, two whole lattices and its result. */
  const double plane = (double)p->size[0] * p->size[1] * 8.0;
  const double slab = plane * (kit_block_split(p->size[2], env->nranks, env->rank).count + 2);
  const double cells = plane * p->size[2];
  const int root = env->rank == 0;
  *host = 2.0 * LBM_Q * slab + 3.0 * 4.0 * slab;
  if (root && (p->run.verify || p->dump || p->vtk || p->profile)) *host += 4.0 * cells;
  if (root && p->run.verify && !p->skip_oracle) *host += 2.0 * LBM_Q * (cells + 2.0 * plane) + 4.0 * cells;
  /* GPU variants: a whole lattice on the host for the fetch; on the device the current,
   * next and initial lattices (the whole slab: kit_check_memory shares it over the devices
   * in use, multi-thread's sub-slabs included). */
  if (v->needs_gpu) *host += LBM_Q * slab;
  if (p->run.restart) *host += LBM_Q * slab + (root ? LBM_Q * cells : 0.0);
  if (p->run.checkpoint) *host += LBM_Q * slab + (root ? LBM_Q * cells : 0.0);
  *device = 3.0 * LBM_Q * slab;
}

int lbm_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  (void)v;
  lbm_params *p = params;
  lbm_run *r = *ctx = kit_malloc(sizeof *r, "context");
  memset(r, 0, sizeof *r);
  const kit_block part = kit_block_split(p->size[2], env->nranks, env->rank);
  r->c.p = p;
  r->c.env = env;
  r->c.blk = lbm_block_make(p->size[0], p->size[1], 1 + part.begin, part.count);
  r->c.nbr[KIT_DOWN] = env->rank > 0 ? env->rank - 1 : MPI_PROC_NULL;
  r->c.nbr[KIT_UP] = env->rank < env->nranks - 1 ? env->rank + 1 : MPI_PROC_NULL;
  r->c.gpus = gpus;
  r->c.cpu_fraction = -1.0; /* hybrid: kit_main sets the share (set_cpu_fraction) */
  /* The oracle and the analytic checks start from the true initial state, even on restart. */
  r->initial = *p;
  r->restart_planes = p->run.restart ? lbm_restart_load(p, env, &r->c.blk) : NULL;
  /* A run of fixed --iters ends at step --iters; a restarted one does only the steps left. */
  r->out.steps = p->run.iters;
  *todo = p->run.iters - p->start_step;
  return -1;
}

void lbm_free_context(void *ctx) {
  free(((lbm_run *)ctx)->restart_planes);
  free(ctx);
}

int lbm_cpu_units(const void *ctx, double fraction) {
  return kit_cpu_planes(((const lbm_run *)ctx)->c.blk.nz, fraction);
}
void lbm_set_cpu_fraction(void *ctx, double fraction) {
  ((lbm_run *)ctx)->c.cpu_fraction = fraction;
}
