/* setup.c: lbm's rules and its problem on this rank, for kit_main (kit/app.h): the rules that
 * need no allocation (check, and plan once the GPUs are chosen: DESIGN.md Sec. 4), the context
 * every variant's setup gets (a z-slab and its two neighbours, Risso Sec. 4.2's decomposition;
 * a box of a --procs grid for cpu, naive and two-stream),
 * the planes a restart starts from, the hybrid's CPU share (Sourouri Paper II: whole top planes
 * of the slab, Sec. 4.3's CPU part), and what the run will allocate, so that kit_main refuses a
 * problem that cannot fit before anything large exists. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/exchange.h"
#include "kit/hybrid.h"
#include "kit/procgrid.h"
#include "kit/slab.h"
#include "run.h"

/* Rules that need no allocation and no GPU (DESIGN.md Sec. 4): exit 2 with one line. */
int lbm_check(const kit_env *env, void *params, const char *variant) {
  lbm_args *a = params;
  lbm_params *p = &a->p;
  const int cavity = strcmp(p->flow, "cavity") == 0, steady = p->until_steady > 0.0;
  if ((p->run.checkpoint || p->run.restart) && steady)
    return kit_usage_error(
        env, "lbm: --checkpoint and --restart apply to runs of fixed --iters, not --until-steady");
  /* The steady run is its own loop of chunks: no profiled pass, so nothing to trace. */
  if (p->run.trace && steady)
    return kit_usage_error(env, "lbm: --trace applies to runs of fixed --iters, not --until-steady");
  if (a->lid_given && !cavity)
    return kit_usage_error(env, "lbm: --lid-velocity applies only to --case cavity");
  if (a->peak_given && cavity)
    return kit_usage_error(env, "lbm: --peak-velocity applies only to --case poiseuille");
  if (a->every_given && !steady)
    return kit_usage_error(env, "lbm: --check-every applies only with --until-steady");
  /* --halo copies lands the faces in pinned host memory, which only the host transport sends
   * as it is; the device transports move the pack kernel's device buffer. */
  const int host_comm = strcmp(p->comm, "host") == 0;
  if (p->halo && !host_comm && strcmp(p->halo, "copies") == 0)
    return kit_usage_error(env,
                           "lbm: --halo copies needs --comm host (its faces are in host memory; --comm %s "
                           "moves device buffers: use --halo pack)",
                           p->comm);
  /* The process grid (kit/procgrid.h): P*Q*R = ranks, a cell per rank along every axis. */
  kit_procs_resolve(p->procs, env->nranks);
  const int *g = p->procs, slab = kit_procs_is_slab(g);
  /* A box's links are strided, so on a grid the GPU variants always pack them by a kernel. */
  if (!slab && p->halo && strcmp(p->halo, "copies") == 0)
    return kit_usage_error(env,
                           "lbm: --procs %dx%dx%d: --halo copies moves z-planes; on a grid every link is "
                           "packed by a kernel (--halo pack)",
                           g[0], g[1], g[2]);
  if (!p->halo) p->halo = host_comm && slab ? "copies" : "pack";
  const int grc = kit_procs_check(env, "lbm", g, p->size, "cells");
  if (grc >= 0) return grc;
  if (slab && p->size[2] < env->nranks)
    return kit_usage_error(
        env, "lbm: --size: %d z-planes cannot be split over %d ranks (each rank needs at least one plane)",
        p->size[2], env->nranks);
  if (!slab && !kit_variant_in(LBM_GRID_VARIANTS, variant))
    return kit_usage_error(env,
                           "lbm: --procs %dx%dx%d: --variant %s splits along z only (1x1xN); cpu, naive and "
                           "two-stream run other grids",
                           g[0], g[1], g[2], variant);
  /* Poiseuille wraps around in x and y; a box's ghosts hold its neighbours' cells, not the
   * other side of the lattice. */
  if (!slab && !cavity)
    return kit_usage_error(
        env,
        "lbm: --procs %dx%dx%d: --case poiseuille is periodic in x and y; grids other than "
        "1x1xN run --case cavity only",
        g[0], g[1], g[2]);
  if (!slab) {
    /* An x or y face carries 5 populations of a box's ny x nz or nx x nz cells (rank 0's box
     * is a largest one). */
    kit_block part[3];
    kit_procs_split(p->size, g, 0, part);
    const double nx = part[0].count, ny = part[1].count, nz = part[2].count;
    if (LBM_ZQ * fmax(ny * nz, nx * nz) > 2147483647.0)
      return kit_usage_error(
          env,
          "lbm: --procs %dx%dx%d: an x or y face of a %d x %d x %d box is too large for one "
          "MPI message (5 populations, at most 2^31-1 values)",
          g[0], g[1], g[2], part[0].count, part[1].count, part[2].count);
  }
  /* One halo message carries five populations of an xy-plane. */
  if ((double)LBM_ZQ * p->size[0] * (double)p->size[1] > 2147483647.0)
    return kit_usage_error(env,
                           "lbm: --size: an xy-plane of %d x %d cells is too large for one MPI message "
                           "(5 populations, at most 2^31-1 values)",
                           p->size[0], p->size[1]);
  if (steady && !a->iters_given) p->run.iters = 1000000; /* the cap, unless given */
  /* Poiseuille's default keeps tau near 1, where BGK's wall slip is small (README.md). */
  if (!a->re_given) p->re = cavity ? 100.0 : 10.0;
  lbm_derive(p);
  /* BGK is unstable as tau approaches 1/2; below 0.5005 no grid we can afford is stable. */
  if (p->tau < 0.5005)
    return kit_usage_error(env,
                           "lbm: --re: tau = 3 nu + 1/2 = %.6f is too close to 1/2 to be stable "
                           "(lower --re or raise --size or the velocity)",
                           p->tau);
  /* The GPU kernel's grid covers y and z with one row and one plane per block. */
  if (strcmp(variant, "cpu") != 0 && (p->size[1] > 65535 || p->size[2] > 65535))
    return kit_usage_error(env, "lbm: --size: the GPU variants take ny and nz up to 65535");
  return -1;
}

int lbm_outputs(const void *params, const char **flags, const char **paths) {
  const lbm_params *p = params;
  flags[0] = "--dump", flags[1] = "--vtk", flags[2] = "--profile";
  paths[0] = p->dump, paths[1] = p->vtk, paths[2] = p->profile;
  return 3;
}

/* multi-thread without --gpus: every GPU that has a plane to hold. */
int lbm_gpu_limit(const kit_env *env, const void *params) {
  return ((const lbm_params *)params)->size[2] / env->nranks;
}

static void lbm_memory(const kit_env *env, const lbm_params *p, const kit_variant *v, double *host,
                       double *device) {
  /* Two lattices per rank, the steady-check and fetch buffers; on rank 0 the gathered field
   * and, for the oracle, two whole lattices and its result. On a grid the rank's box with its
   * ghost layers, and its link messages each way (at most 5 populations of every face). */
  const double plane = (double)p->size[0] * p->size[1] * 8.0;
  int procs[3] = {p->procs[0], p->procs[1], p->procs[2]};
  kit_procs_resolve(procs, env->nranks);
  kit_block part[3];
  kit_procs_split(p->size, procs, env->rank, part);
  const double bx = part[0].count, by = part[1].count, bz = part[2].count;
  const int slab_grid = !lbm_on_grid(p);
  /* A box's rows are padded (box.h), and a device lattice starts LBM_BOX_ALIGN - 1 doubles into
   * its allocation. */
  const double sy = (double)lbm_box_row_stride((int)bx);
  const double slab = slab_grid ? plane * (bz + 2) : (sy * (by + 2) * (bz + 2) + LBM_BOX_ALIGN) * 8.0;
  const double links = slab_grid ? 0.0 : 2.0 * 2.0 * LBM_ZQ * (by * bz + bx * bz + bx * by) * 8.0;
  const double cells = plane * p->size[2];
  const int root = env->rank == 0;
  *host = 2.0 * LBM_Q * slab + 3.0 * 4.0 * slab + links;
  if (root && (p->run.verify || p->dump || p->vtk || p->profile)) *host += 4.0 * cells;
  if (root && p->run.verify && !p->skip_oracle) *host += 2.0 * LBM_Q * (cells + 2.0 * plane) + 4.0 * cells;
  /* GPU variants: a whole lattice on the host for the fetch; on the device the current,
   * next and initial lattices (the whole slab: kit_check_memory shares it over the devices
   * in use, multi-thread's sub-slabs included). */
  if (v->needs_gpu) *host += LBM_Q * slab;
  /* A restart's planes are whole xy-planes, on a grid too (lbm_restart_load). */
  if (p->run.restart) *host += LBM_Q * plane * (bz + 2) + (root ? LBM_Q * cells : 0.0);
  if (p->run.checkpoint) *host += LBM_Q * slab + (root ? LBM_Q * cells : 0.0);
  *device = 3.0 * LBM_Q * slab + links; /* naive's and two-stream's link messages on a grid */
}

int lbm_plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host, double *device) {
  lbm_params *p = params;
  if (v->gpus_max > 0 && p->size[2] < env->nranks * gpus)
    return kit_usage_error(env,
                           "lbm: --size: %d z-planes cannot be split over %d ranks x %d GPUs "
                           "(each GPU needs at least one plane)",
                           p->size[2], env->nranks, gpus);
  /* A transport this machine cannot run (not built, an MPI that is not CUDA-aware, NCCL on
   * ranks that share a GPU, IPC across nodes) skips, exit 77 (kit/exchange.h). */
  const int crc = kit_comm_check(env, "lbm", LBM_COMM_VARIANTS, v->name, p->comm);
  if (crc >= 0) return crc;
  if (p->run.restart) {
    /* The whole file now (header and checksum): a checkpoint of another problem, or a
     * damaged one, is bad input, refused before anything is allocated. */
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = lbm_checkpoint_ident(p, ident);
    const unsigned long long count = (unsigned long long)LBM_Q * p->size[0] * p->size[1] * p->size[2];
    const int rc = kit_restart_check(env, "lbm", p->run.restart, ident, nid, sizeof(double), count,
                                     p->run.iters, "--iters", &p->start_step);
    if (rc >= 0) return rc;
  }
  lbm_memory(env, p, v, host, device);
  return -1;
}

int lbm_context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  (void)v;
  lbm_params *p = params;
  lbm_run *r = *ctx = kit_malloc(sizeof *r, "context");
  memset(r, 0, sizeof *r);
  /* This rank's part of the grid lbm_check resolved: on 1x1xN the z-slab of rank r, its
   * neighbours r - 1 and r + 1 (as before grids existed); elsewhere a box, whose 18
   * neighbours the cpu variant looks up itself (box.c). */
  kit_block part[3];
  kit_procs_split(p->size, p->procs, env->rank, part);
  r->c.p = p;
  r->c.env = env;
  r->c.blk = lbm_block_make(part[0].count, part[1].count, 1 + part[2].begin, part[2].count);
  r->c.blk.i0 = part[0].begin;
  r->c.blk.j0 = part[1].begin;
  r->c.nbr[KIT_DOWN] = kit_procs_neighbour(p->procs, env->rank, (const int[3]){0, 0, -1});
  r->c.nbr[KIT_UP] = kit_procs_neighbour(p->procs, env->rank, (const int[3]){0, 0, 1});
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
