/* setup.c: ising's problem before anything large is allocated (kit_main's prologue): the
 * rules a lattice, a layout and the rank count must meet (kit_app's check), the GPUs
 * multi-thread may use and their split (gpu_limit, plan), the bytes a rank will allocate
 * (plan), and this rank's slab. Bernaschi et al. Sec. 3.1: the lattice is cut into z-slabs
 * (sliced: diagonal slices in pairs, Fig. 5), one per rank, periodic in every direction. */
#include <string.h>

#include "kit/check.h"
#include "kit/slab.h"
#include "run.h"

double ising_attempts(const ising_params *p) {
  return (double)p->size[0] * p->size[1] * p->size[2] * p->samples;
}

int ising_check(const kit_env *env, void *params, const char *variant) {
  const ising_params *p = params;
  for (int d = 0; d < 3; ++d)
    if (p->size[d] % 2 != 0 || p->size[d] < 2)
      return kit_usage_error(env,
                             "ising: --size: every side must be even and at least 2 "
                             "(two colours along each periodic axis); got %d,%d,%d",
                             p->size[0], p->size[1], p->size[2]);
  if ((double)p->size[0] * p->size[1] * p->size[2] > 4294967296.0)
    return kit_usage_error(
        env, "ising: --size: more than 2^32 sites (the site index is a 32-bit random-number counter)");
  if (p->mattis && p->p_given)
    return kit_usage_error(env, "ising: --p does not apply with --mattis (the couplings are e_i e_j)");
  /* A value rule, not a flag's: msc is a layout the other variants take. */
  if (ising_msc(p) && strcmp(variant, "hybrid") == 0)
    return kit_usage_error(
        env,
        "ising: --layout msc (one bit per spin) runs on cpu, naive, two-stream and multi-thread, not hybrid "
        "(its CPU share works on bytes: use --layout sliced)");
  if (ising_msc(p) && p->size[0] % 32 != 0)
    return kit_usage_error(
        env, "ising: --layout msc: LX must be a multiple of 32 (a row is whole 32-bit words); got LX = %d",
        p->size[0]);
  /* Every rank holds whole granules: a sliced rank's boundaries are one-coloured only then. */
  const int planes = ising_global_planes(p), granule = ising_plane_granule(p);
  if (planes / granule < env->nranks) {
    if (granule == 2)
      return kit_usage_error(
          env,
          "ising: --layout %s: the %dx%dx%d lattice has gcd(LX,LY,LZ) = %d diagonal slices, "
          "which split in pairs over at most %d rank(s), not %d "
          "(use --layout checkerboard or sides with a larger common divisor)",
          p->layout, p->size[0], p->size[1], p->size[2], planes, planes / 2, env->nranks);
    return kit_usage_error(
        env, "ising: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)",
        planes, env->nranks);
  }
  /* A plane part travels as one MPI message (an int count). */
  const ising_block probe = ising_block_make(p, 0, 1);
  if ((double)probe.part_stride > 2147483647.0)
    return kit_usage_error(
        env, "ising: --size/--samples: one plane part of %.0f bytes is too large for one MPI message",
        (double)probe.part_stride);
  return -1;
}

ising_block ising_rank_slab(const ising_params *p, const kit_env *env) {
  const int granule = ising_plane_granule(p);
  const kit_block part = kit_block_split(ising_global_planes(p) / granule, env->nranks, env->rank);
  return ising_block_make(p, part.begin * granule, part.count * granule);
}

/* Spins with ghosts and couplings on every rank (and on the GPU); on rank 0 the gathered
 * lattice twice, the oracle's spins and bonds (and the Mattis ferromagnet's) when
 * verifying; a restart's spins on every rank. msc: the bytes while the initial state is
 * packed, and the bits (spins of n + 2 planes, six coupling planes of n); the whole slab,
 * which kit_check_memory shares over the devices (multi-thread's sub-slabs). */
static void ising_memory(const kit_env *env, const ising_params *p, double *host, double *device) {
  const ising_block b = ising_rank_slab(p, env);
  const double slab = (double)b.plane_stride * (2.0 * b.n + 2.0), lattice = ising_attempts(p);
  *host = slab + slab / 2;
  if (env->rank == 0)
    *host += 2.0 * lattice +
             (p->run.verify ? (p->mattis ? 2.0 : 1.0) * lattice + 3.0 * lattice / p->samples : 0.0);
  if (p->run.restart) *host += lattice;
  const double bits = (double)b.plane_stride * (7.0 * b.n + 2.0) / 8.0;
  *device = slab + (ising_msc(p) ? bits : 0.0);
}

/* multi-thread without --gpus: every GPU that has a granule of planes to hold. */
int ising_gpu_limit(const kit_env *env, const void *params) {
  return ising_global_planes(params) / ising_plane_granule(params) / env->nranks;
}

int ising_run_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                   double *device) {
  ising_params *p = params;
  const int planes = ising_global_planes(p), granule = ising_plane_granule(p);
  /* The end GPUs' threads both call MPI (periodic: also on one rank, which kit_choose_gpus
   * does not check). */
  if (v->gpus_max > 0 && env->thread_level < v->thread_level)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "multi-thread needs MPI_THREAD_MULTIPLE");
  if (v->gpus_max > 0 && planes / granule < env->nranks * gpus)
    return kit_usage_error(
        env, "ising: --size: %d planes (in granules of %d) cannot be split over %d ranks x %d GPUs", planes,
        granule, env->nranks, gpus);
  const int rc = p->run.restart ? ising_restart_check(p, env) : -1;
  if (rc >= 0) return rc;
  ising_memory(env, p, host, device);
  return -1;
}
