/* checkpoint.c: laplace's --checkpoint and --restart (kit/checkpoint.h: the file format).
 * A checkpoint holds the gathered interior after some step; a restart starts every variant
 * from it (through laplace_fill, which every variant's set-up calls) and runs the remaining
 * steps, so the result equals the uninterrupted run bit for bit, with any rank count. */
#include "kit/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/halo.h"
#include "laplace.h"
#include "verify.h"

int laplace_checkpoint_ident(const laplace_params *p, double *ident) {
  ident[0] = p->size[0];
  ident[1] = p->size[1];
  ident[2] = p->size[2];
  ident[3] = p->alpha;
  ident[4] = p->beta;
  ident[5] = strcmp(p->init, "random") == 0;
  ident[6] = (double)(uint32_t)p->run.seed;
  ident[7] = (double)(uint32_t)(p->run.seed >> 32);
  return 8;
}

void laplace_checkpoint_save(const laplace_params *p, const kit_env *env, const double *gathered, int step) {
  if (env->rank != 0) return;
  double ident[KIT_CKPT_MAX_IDENT];
  const int n = laplace_checkpoint_ident(p, ident);
  const uint64_t count = (uint64_t)p->size[0] * p->size[1] * p->size[2];
  kit_checkpoint_save(p->run.checkpoint, "laplace", (uint64_t)step, ident, n, gathered, sizeof(double),
                      count);
}

double *laplace_restart_load(laplace_params *p, const kit_env *env, const laplace_block *b) {
  const int NZ = p->size[2];
  const size_t plane = (size_t)p->size[0] * p->size[1];
  /* This rank's interior planes and its two ghost planes, clipped to the interior. */
  const int k0 = b->k0 > 1 ? b->k0 - 1 : 1, k1 = b->k0 + b->nz < NZ ? b->k0 + b->nz : NZ;
  double *mine = kit_malloc(plane * (size_t)(k1 - k0 + 1) * sizeof(double), "restart planes");
  double *all = NULL;
  if (env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int n = laplace_checkpoint_ident(p, ident);
    all = kit_malloc(plane * (size_t)NZ * sizeof(double), "restart field");
    uint64_t step = 0;
    char err[256];
    /* The header was checked before anything was allocated; a failure now is I/O. */
    if (kit_checkpoint_read(p->run.restart, "laplace", ident, n, sizeof(double), plane * (uint64_t)NZ, &step,
                            all, err, sizeof err))
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--restart '%s': %s", p->run.restart, err);
    /* Replaced since the pre-run check read it (another run writing the same path): its
     * field belongs to another step than the one this run starts from. */
    if (step != (uint64_t)p->start_step)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "--restart '%s': the file changed during the run (step %llu, was %d)", p->run.restart,
              (unsigned long long)step, p->start_step);
  }
  kit_scatter_planes(MPI_COMM_WORLD, all, mine, k0 - 1, k1 - k0 + 1, plane, MPI_DOUBLE, sizeof(double));
  free(all);
  p->restart = mine;
  p->restart_k0 = k0;
  p->restart_nz = k1 - k0 + 1;
  return mine;
}

void laplace_checkpoint_write(void *ctx, const kit_variant *v, void *st, int step) {
  const laplace_ctx *c = &((const laplace_run *)ctx)->c;
  double *interior = laplace_fetch_interior(&c->blk, v, st);
  double *all = laplace_gather(c->p, c->env, &c->blk, interior);
  laplace_checkpoint_save(c->p, c->env, all, step);
  free(all);
  free(interior);
}
