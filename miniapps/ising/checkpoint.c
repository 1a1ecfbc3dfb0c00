/* checkpoint.c: ising's --checkpoint and --restart (kit/checkpoint.h: the file format, here
 * with one byte per spin). A checkpoint holds every sample's spins in logical order after
 * some sweep; couplings are not stored, they follow from the seed. A restart starts every
 * variant from those spins (through ising_fill, which every variant's set-up and reset call)
 * with the sweep counter where the checkpoint left it, so the random numbers continue where
 * they stopped and the result equals the uninterrupted run bit for bit, with any layout,
 * rank count or variant. */
#include "kit/checkpoint.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ising.h"
#include "kit/check.h"
#include "run.h"

int ising_checkpoint_ident(const ising_params *p, double *ident) {
  ident[0] = p->size[0];
  ident[1] = p->size[1];
  ident[2] = p->size[2];
  ident[3] = p->samples;
  ident[4] = p->mattis ? -1.0 : p->p; /* the couplings */
  ident[5] = p->temp;
  ident[6] = strcmp(p->init, "up") == 0; /* the oracle's start */
  ident[7] = (double)(uint32_t)p->run.seed;
  ident[8] = (double)(uint32_t)(p->run.seed >> 32);
  return 9;
}

void ising_checkpoint_save(const ising_params *p, const kit_env *env, const int8_t *logical, int sweep) {
  if (env->rank != 0) return;
  double ident[KIT_CKPT_MAX_IDENT];
  const int n = ising_checkpoint_ident(p, ident);
  const uint64_t count = (uint64_t)p->size[0] * p->size[1] * p->size[2] * (uint64_t)p->samples;
  kit_checkpoint_save(p->run.checkpoint, "ising", (uint64_t)sweep, ident, n, logical, 1, count);
}

/* The whole file now (header and checksum): a checkpoint of another problem, or a damaged
 * one, is bad input, refused before anything is allocated. */
int ising_restart_check(ising_params *p, const kit_env *env) {
  double ident[KIT_CKPT_MAX_IDENT];
  const int nid = ising_checkpoint_ident(p, ident);
  return kit_restart_check(env, "ising", p->run.restart, ident, nid, 1, (unsigned long long)ising_attempts(p),
                           p->run.iters, "--iters", &p->start_sweep);
}

int8_t *ising_restart_load(const ising_params *p, const kit_env *env) {
  const size_t count = (size_t)p->size[0] * p->size[1] * p->size[2] * (size_t)p->samples;
  int8_t *all = kit_malloc(count, "restart spins");
  if (env->rank == 0) {
    double ident[KIT_CKPT_MAX_IDENT];
    const int n = ising_checkpoint_ident(p, ident);
    uint64_t step = 0;
    char err[256];
    /* The file was checked before anything was allocated; a failure now is I/O. */
    if (kit_checkpoint_read(p->run.restart, "ising", ident, n, 1, count, &step, all, err, sizeof err))
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--restart '%s': %s", p->run.restart, err);
    /* Replaced since the pre-run check read it (another run writing the same path): its
     * field belongs to another step than the one this run starts from. */
    if (step != (uint64_t)p->start_sweep)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "--restart '%s': the file changed during the run (step %llu, was %d)", p->run.restart,
              (unsigned long long)step, p->start_sweep);
  }
  /* In pieces: an MPI count is an int. */
  for (size_t at = 0; at < count; at += (size_t)INT_MAX) {
    const size_t piece = count - at < (size_t)INT_MAX ? count - at : (size_t)INT_MAX;
    KIT_MPI_CHECK(MPI_Bcast(all + at, (int)piece, MPI_INT8_T, 0, MPI_COMM_WORLD));
  }
  return all;
}
