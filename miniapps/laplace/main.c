/* main.c: laplace's options, context and descriptor; kit_main (kit/app.h) runs it: parse,
 * refuse, choose GPUs, check memory, ceilings, the hybrid share, warm up, profile, time,
 * verify, report. The variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c hybrid_naive.c) do
 * the time steps. Sourouri Papers I-II; see README.md in this folder.
 *   build/bin/laplace --variant list
 *   mpiexec -n 2 build/bin/laplace --variant two-stream --size 256 --iters 50 --json - */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernel.h"
#include "kit/app.h"
#include "kit/check.h"
#include "kit/checkpoint.h"
#include "kit/exchange.h"
#include "kit/hybrid.h"
#include "kit/slab.h"
#include "laplace.h"
#include "verify.h"

static const kit_variant *const variants[] = {
    &laplace_cpu,
#ifdef KIT_HAVE_CUDA
    &laplace_naive, &laplace_two_stream, &laplace_multi_thread, &laplace_hybrid, &laplace_hybrid_naive,
#endif
    NULL,
};
static const char *const cuda_names[] = {"hybrid-naive", NULL};

static int outputs(const void *params, const char **flags, const char **paths) {
  flags[0] = "--dump";
  paths[0] = ((const laplace_params *)params)->dump;
  return 1;
}

/* multi-thread without --gpus: every GPU that has a plane to hold (1x1x2 on four GPUs). */
static int gpu_limit(const kit_env *env, const void *params) {
  return ((const laplace_params *)params)->size[2] / env->nranks;
}

static int plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                double *device) {
  laplace_params *p = params;
  if (v->gpus_max > 0 && p->size[2] < env->nranks * gpus)
    return kit_usage_error(env,
                           "laplace: --size: %d z-planes cannot be split over %d ranks x %d GPUs (each GPU "
                           "needs at least one plane)",
                           p->size[2], env->nranks, gpus);
  const int rc = kit_comm_check(env, "laplace", LAPLACE_COMM_VARIANTS, v->name, p->comm);
  if (rc >= 0) return rc;
  if (p->run.restart) {
    /* The whole file, now: a checkpoint of another problem, or a damaged one, is bad input. */
    double ident[KIT_CKPT_MAX_IDENT];
    const int nid = laplace_checkpoint_ident(p, ident);
    const int rrc = kit_restart_check(env, "laplace", p->run.restart, ident, nid, sizeof(double),
                                      (unsigned long long)p->size[0] * p->size[1] * p->size[2], p->run.iters,
                                      "--iters", &p->start_step);
    if (rrc >= 0) return rrc;
  }
  laplace_memory(p, env, host, device);
  return -1;
}

/* This rank's box of the process grid (laplace_check resolved --procs; a z-slab on 1x1xN) and
 * its neighbours; a restarted run does only the steps left. */
static int context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  laplace_params *p = params;
  laplace_run *r = *ctx = kit_malloc(sizeof *r, "context");
  r->c.p = p;
  r->c.env = env;
  r->c.blk = laplace_grid_block(p->size, p->procs, env->rank);
  laplace_grid_neighbours(p->procs, env->rank, r->c.face_nbr);
  r->c.nbr[KIT_DOWN] = r->c.face_nbr[LAPLACE_ZM];
  r->c.nbr[KIT_UP] = r->c.face_nbr[LAPLACE_ZP];
  r->c.gpus = gpus;
  r->c.cpu_fraction = -1.0;
  r->initial = *p;
  r->restart_planes = p->run.restart ? laplace_restart_load(p, env, &r->c.blk) : NULL;
  *todo = p->run.iters - p->start_step;
  return -1;
}

static void free_context(void *ctx) {
  free(((laplace_run *)ctx)->restart_planes);
  free(ctx);
}

static int cpu_units(const void *ctx, double f) {
  return kit_cpu_planes(((const laplace_run *)ctx)->c.blk.nz, f);
}
static void set_cpu_fraction(void *ctx, double f) {
  ((laplace_run *)ctx)->c.cpu_fraction = f;
}

int main(int argc, char **argv) {
  laplace_params p = {.run = kit_run_defaults(),
                      .size = {64, 64, 64},
                      .beta = 1.0 / 6.0,
                      .init = "zero",
                      .p2p = 1,
                      .mt_scheme = "assistants",
                      .comm = "host",
                      .cpu_block = {0, LAPLACE_CPU_BLOCK_AUTO, 0}};
  kit_option opts[KIT_RUN_NOPTS + 12];
  int n = kit_run_options(&p.run, opts);
  /* Both of Paper II's CPU+GPU schemes take a CPU share (the kit's row names `hybrid` only). */
  for (int i = 0; i < n; ++i)
    if (strcmp(opts[i].name, "cpu-fraction") == 0) opts[i].variants = LAPLACE_HYBRID_VARIANTS;
  /* One row per flag, read as --help prints them. */
  /* clang-format off */
  const kit_option app_opts[] = {
      {"size", KIT_OPT_CUSTOM, p.size, "N|NX,NY,NZ", "interior points (a cube for one number) [64]", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"alpha", KIT_OPT_DOUBLE, &p.alpha, "A", "weight of the centre point", 1, 0, 0, NULL, NULL, NULL},
      {"beta", KIT_OPT_DOUBLE, &p.beta, "B", "weight of each of the six neighbours", 1, 0, 0, NULL, NULL, NULL},
      {"init", KIT_OPT_STRING, &p.init, "KIND", "initial interior", 1, 0, 0, "zero|random", NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write the final interior as raw little-endian doubles", 1, 0, 0, NULL, NULL, NULL},
      {"comm", KIT_OPT_STRING, &p.comm, "T", "how planes move between processes (kit/exchange.h) [host]", 1, 0, 0, KIT_COMM_CHOICES, NULL, NULL, LAPLACE_COMM_VARIANTS},
      {"no-p2p", KIT_OPT_FLAG, &p.p2p, NULL, "stage GPU-GPU copies through host memory", 1, 0, 0, NULL, NULL, NULL, "multi-thread"},
      {"mt-scheme", KIT_OPT_STRING, &p.mt_scheme, "S", "assistants: a main, a send and a receive thread per GPU (Paper I); single: one host thread drives every GPU (Paper I's Baseline) [assistants]", 1, 0, 0, "assistants|single", NULL, NULL, "multi-thread"},
      {"exchange-order", KIT_OPT_STRING, &p.exchange_order, "O", "--mt-scheme single's two exchange phases: left-right (every GPU to the next, then to the previous) or pairwise (pairs 0-1, 2-3, ... both ways, then 1-2, 3-4, ...) [left-right]", 1, 0, 0, "left-right|pairwise", NULL, NULL, "multi-thread"},
      {"procs", KIT_OPT_CUSTOM, p.procs, "PxQxR", "process grid: P ranks along x, Q along y, R along z (P*Q*R = ranks; cpu, naive and two-stream take P or Q > 1) [1x1xranks]", 1, 0, 0, NULL, laplace_parse_procs, NULL},
      {"cpu-block", KIT_OPT_CUSTOM, &p.cpu_block, "BXxBY[+nt]|auto|off", "host sweep: pencils of BX x BY points, +nt streaming stores; auto: the fastest of a few, timed at set-up; off: unblocked [auto]", 1, 0, 0, NULL, laplace_parse_cpu_block, NULL, "cpu|" LAPLACE_HYBRID_VARIANTS},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  const kit_app app = {
      .name = "laplace",
      .summary =
          "3D 7-point Jacobi stencil on z-slabs or process grids; variants: cpu naive two-stream "
          "multi-thread hybrid hybrid-naive",
      .variants = variants,
      .cuda_names = cuda_names,
      .gpu_only_fallback = "two-stream",
      .opts = opts,
      .run = &p.run,
      .params = &p,
      .check = laplace_check,
      .outputs = outputs,
      .gpu_limit = gpu_limit,
      .plan = plan,
      .context = context,
      .free_context = free_context,
      .cpu_units = cpu_units,
      .set_cpu_fraction = set_cpu_fraction,
      .cpu_unit = "planes",
      .measure = laplace_measure,
      .describe = laplace_describe,
      .checkpoint = laplace_checkpoint_write,
      .finish = laplace_finish};
  return kit_main(&app, argc, argv);
}
