/* checkpoint.c: tetfv's --checkpoint and --restart (kit/checkpoint.h: the file format). A
 * checkpoint holds the field of every cell in mesh order after some step; a restart starts
 * the variants from it (as their initial field, ghosts included), so the run continues bit
 * for bit as if uninterrupted, on any rank count: the partition may differ, the rows are
 * summed in the same order whatever it is. The restart's read is problem.c's (it needs the
 * mesh and the matrix, which only exist there); the writer is kit_main's checkpoint hook. */
#include "kit/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "problem.h"

/* A 64-bit fingerprint as two doubles, each exact (32 bits). */
static int fingerprint(const void *data, size_t bytes, double *out) {
  const uint64_t h = kit_fnv1a64(data, bytes);
  out[0] = (double)(uint32_t)h;
  out[1] = (double)(uint32_t)(h >> 32);
  return 2;
}

int tetfv_checkpoint_ident(const tetfv_params *p, const struct tetfv_mesh *m, const tetfv_matrix *g,
                           double *ident) {
  int n = 0;
  ident[n++] = g->n;
  ident[n++] = p->dt;
  ident[n++] = p->kappa;
  ident[n++] = p->aniso;
  ident[n++] = strcmp(p->flux, "two-point") == 0;
  ident[n++] = strcmp(p->bc, "dirichlet") == 0;
  n += fingerprint(p->init, strlen(p->init), ident + n);
  ident[n++] = (double)(uint32_t)p->run.seed;
  ident[n++] = (double)(uint32_t)(p->run.seed >> 32);
  n += fingerprint(m->centroid, 3 * (size_t)m->ncells * sizeof(double), ident + n);
  n += fingerprint(g->D, (size_t)g->n * sizeof(double), ident + n);
  n += fingerprint(g->A, (size_t)g->n * TETFV_W * sizeof(double), ident + n);
  return n;
}

void tetfv_checkpoint_write(void *ctx, const kit_variant *v, void *st, int step) {
  const tetfv_built *b = ctx;
  const tetfv_params *p = b->c.p;
  double *mine = kit_malloc(((size_t)b->loc.nown + 1) * sizeof(double), "checkpoint");
  v->fetch(st, mine);
  double *all = tetfv_gather(b->c.env, &b->loc, mine, b->ncells);
  if (b->c.env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = tetfv_checkpoint_ident(p, &b->mesh, &b->g, ident);
    kit_checkpoint_save(p->run.checkpoint, "tetfv", (uint64_t)step, ident, nid, all, sizeof(double),
                        (uint64_t)b->ncells);
  }
  free(all);
  free(mine);
}
