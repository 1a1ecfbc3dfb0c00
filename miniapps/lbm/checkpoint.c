/* checkpoint.c: lbm's --checkpoint and --restart (kit/checkpoint.h: the file format). A
 * checkpoint holds all 19 post-collision populations of every cell after some step (rho and
 * u alone would not determine the next step); a restart starts every variant from them
 * through lbm_fill, which every variant's set-up calls, so the run continues bit for bit as
 * if uninterrupted, on any rank count. On a --procs grid the boxes are gathered into the same
 * file, and a restart hands each rank the whole xy-planes its box spans (lbm_box_fill picks its
 * cells), so a checkpoint moves freely between grids and slabs. */
#include "kit/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/halo.h"
#include "kit/procgrid.h"
#include "lbm.h"
#include "run.h"

int lbm_checkpoint_ident(const lbm_params *p, double *ident) {
  ident[0] = p->size[0];
  ident[1] = p->size[1];
  ident[2] = p->size[2];
  ident[3] = strcmp(p->flow, "poiseuille") == 0;
  ident[4] = p->re;
  ident[5] = p->u_ref;
  ident[6] = strcmp(p->init, "random") == 0;
  ident[7] = (double)(uint32_t)p->run.seed;
  ident[8] = (double)(uint32_t)(p->run.seed >> 32);
  return 9;
}

void lbm_checkpoint_save(const lbm_params *p, const kit_env *env, const double *gathered, int step) {
  if (env->rank != 0) return;
  double ident[KIT_CKPT_MAX_IDENT];
  const int n = lbm_checkpoint_ident(p, ident);
  const uint64_t count = (uint64_t)LBM_Q * p->size[0] * p->size[1] * p->size[2];
  kit_checkpoint_save(p->run.checkpoint, "lbm", (uint64_t)step, ident, n, gathered, sizeof(double), count);
}

double *lbm_restart_load(lbm_params *p, const kit_env *env, const lbm_block *b) {
  const int NZ = p->size[2];
  const size_t plane = (size_t)LBM_Q * p->size[0] * p->size[1];
  /* This rank's planes and its two ghost planes, clipped to the lattice. */
  const int k0 = b->k0 > 1 ? b->k0 - 1 : 1, k1 = b->k0 + b->nz <= NZ ? b->k0 + b->nz : NZ;
  double *mine = kit_malloc(plane * (size_t)(k1 - k0 + 1) * sizeof(double), "restart planes");
  double *all = NULL;
  if (env->rank == 0) {
    all = kit_malloc(plane * (size_t)NZ * sizeof(double), "restart lattice");
    double ident[KIT_CKPT_MAX_IDENT];
    const int n = lbm_checkpoint_ident(p, ident);
    uint64_t step = 0;
    char err[256];
    /* The file was checked before anything was allocated; a failure now is I/O. */
    if (kit_checkpoint_read(p->run.restart, "lbm", ident, n, sizeof(double), plane * (uint64_t)NZ, &step, all,
                            err, sizeof err))
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

/* kit_main's --checkpoint hook: between chunks of the last repetition, this rank's planes
 * (the variant's extra hook, fetch_lattice: lbm_variant embeds kit_variant first, so the
 * pointer kit_main holds is the lbm_variant's), gathered on rank 0 and written. */
void lbm_checkpoint(void *ctx, const kit_variant *v, void *st, int step) {
  const lbm_run *r = ctx;
  const lbm_block *b = &r->c.blk;
  const size_t plane = (size_t)LBM_Q * b->plane;
  double *mine = kit_malloc(plane * (size_t)b->nz * sizeof(double), "checkpoint");
  ((const lbm_variant *)v)->fetch_lattice(st, mine);
  double *all = NULL;
  if (lbm_on_grid(r->c.p)) { /* boxes: each plane's 19 populations, placed by their offsets */
    const kit_block part[3] = {{b->i0, b->nx}, {b->j0, b->ny}, {b->k0 - 1, b->nz}};
    all = kit_procs_gather(MPI_COMM_WORLD, part, r->c.p->size, LBM_Q, 1, mine);
  } else {
    all = kit_gather_planes(MPI_COMM_WORLD, mine, b->k0 - 1, b->nz, plane, r->c.p->size[2], MPI_DOUBLE,
                            sizeof(double));
  }
  lbm_checkpoint_save(r->c.p, r->c.env, all, step);
  free(all);
  free(mine);
}
