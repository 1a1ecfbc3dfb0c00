/* main.c: ising's options, context and descriptor; kit_main (kit/app.h) runs it: parse,
 * refuse, choose GPUs, check memory, ceilings, the hybrid share, warm up, profile, time,
 * verify, report. The variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the
 * sweeps; setup.c holds the problem's rules and bytes, report.c what a run reports; --comm
 * (naive, two-stream) picks kit/exchange.h's transport.
 * Bernaschi et al. Sec. 3.1; see README.md in this folder.
 *   build/bin/ising --variant list
 *   mpiexec -n 2 build/bin/ising --variant cpu --size 32 --iters 20 --layout checkerboard */
#include <math.h>
#include <stdlib.h>

#include "kit/app.h"
#include "kit/check.h"
#include "kit/exchange.h"
#include "kit/slab.h"
#include "run.h"

static const kit_variant *const variants[] = {
    &ising_cpu,
#ifdef KIT_HAVE_CUDA
    &ising_naive, &ising_two_stream, &ising_multi_thread, &ising_hybrid,
#endif
    NULL,
};

/* What a run holds beside the variants' context. */
typedef struct run_ctx {
  ising_ctx c;           /* what the variants get (first member: the same address) */
  int8_t *restart_spins; /* --restart: the checkpoint's spins, every sample, on every rank */
} run_ctx;

/* This rank's slab, its periodic neighbours, exp(-dE/T); a restarted run does only the
 * sweeps left, from the checkpoint's spins. */
static int context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  ising_params *p = params;
  run_ctx *r = *ctx = kit_malloc(sizeof *r, "context");
  /* exp(-dE/T) once, in double, on the host: every implementation uses these three. */
  for (int i = 0; i < 3; ++i) p->w[i] = exp(-4.0 * (i + 1) / p->temp);
  r->c = (ising_ctx){.p = p, .env = env, .blk = ising_rank_slab(p, env), .gpus = gpus, .cpu_fraction = -1.0};
  r->c.nbr[KIT_DOWN] = (env->rank + env->nranks - 1) % env->nranks; /* periodic in z */
  r->c.nbr[KIT_UP] = (env->rank + 1) % env->nranks;
  r->restart_spins = p->run.restart ? ising_restart_load(p, env) : NULL;
  p->restart = r->restart_spins;
  *todo = p->run.iters - p->start_sweep;
  return -1;
}

/* --comm first (a transport this machine cannot run skips, exit 77, on every rank alike),
 * then setup.c's plan: multi-thread's split, --restart, the bytes. */
static int plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                double *device) {
  const ising_params *p = params;
  const int rc = kit_comm_check(env, "ising", ISING_COMM_VARIANTS, v->name, p->comm);
  if (rc >= 0) return rc;
  return ising_run_plan(env, params, v, gpus, host, device);
}

static void free_context(void *ctx) {
  free(((run_ctx *)ctx)->restart_spins);
  free(ctx);
}

/* hybrid: the CPU takes whole granules at the top of the slab (hybrid.c's split). */
static int cpu_units(const void *ctx, double f) {
  const ising_ctx *c = &((const run_ctx *)ctx)->c;
  const int granule = ising_plane_granule(c->p);
  return kit_cpu_planes(c->blk.n / granule, f) * granule;
}
static void set_cpu_fraction(void *ctx, double f) {
  ((run_ctx *)ctx)->c.cpu_fraction = f;
}

/* ps/flip: time per flip attempt (lower is better), Bernaschi et al.'s figure of merit. */
static void measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const ising_params *p = ((const run_ctx *)ctx)->c.p;
  const double attempts = ising_attempts(p);
  *m = (kit_measure){"ps/flip", "ps per flip attempt", t->time.median / (attempts * t->iters) * 1e12,
                     ising_bytes_per_flip(p) * attempts};
}

/* --checkpoint: gather the lattice and write it. */
static void checkpoint(void *ctx, const kit_variant *v, void *st, int step) {
  const run_ctx *r = ctx;
  int8_t *logical = ising_final_lattice(&r->c, v, st);
  ising_checkpoint_save(r->c.p, r->c.env, logical, step);
  free(logical);
}

/* flips_per_ns, then observables, verification and --dump on the final lattice. */
static void finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  const run_ctx *r = ctx;
  const double ps = t->time.median / (ising_attempts(r->c.p) * t->iters) * 1e12;
  kit_report_result(rep, "flips_per_ns", 1000.0 / ps, "attempts/ns");
  int8_t *logical = ising_final_lattice(&r->c, v, st);
  ising_results(&r->c, logical, rep);
  free(logical);
}

int main(int argc, char **argv) {
  ising_params p = {.run = kit_run_defaults(),
                    .size = {32, 32, 32},
                    .p = 0.5,
                    .temp = 1.0,
                    .samples = 1,
                    .layout = "sliced",
                    .init = "random",
                    .comm = "host"};
  p.run.iters = 20;
  kit_option opts[KIT_RUN_NOPTS + 10];
  int n = kit_run_options(&p.run, opts);
  /* One row per flag, read as --help prints them. */
  /* clang-format off */
  const kit_option app_opts[] = {
      {"size", KIT_OPT_CUSTOM, p.size, "L|LX,LY,LZ", "lattice sides, each even (a cube for one number) [32]", 1, 0, 0, NULL, kit_parse_size3, NULL},
      {"temp", KIT_OPT_DOUBLE, &p.temp, "T", "temperature", 1e-3, 1e6, 0, NULL, NULL, NULL},
      {"p", KIT_OPT_DOUBLE, &p.p, "P", "probability of an antiferromagnetic bond J = -1 (0: ferromagnet; not with --mattis)", 0, 1, 0, NULL, NULL, &p.p_given},
      {"samples", KIT_OPT_INT, &p.samples, "S", "independent disorder samples run together", 1, 65536, 0, NULL, NULL, NULL},
      {"layout", KIT_OPT_STRING, &p.layout, "KIND", "memory layout and decomposition (msc: one bit per spin, LX % 32 == 0, not hybrid)", 1, 0, 0, "sliced|checkerboard|msc", NULL, NULL},
      {"init", KIT_OPT_STRING, &p.init, "KIND", "initial spins", 1, 0, 0, "random|up", NULL, NULL},
      {"mattis", KIT_OPT_FLAG, &p.mattis, NULL, "Mattis couplings J_ij = e_i e_j, checked against the gauge-transformed ferromagnet", 1, 0, 1, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p.dump, "FILE", "write the final spins as int8, x fastest, sample after sample", 1, 0, 0, NULL, NULL, NULL},
      {"comm", KIT_OPT_STRING, &p.comm, "T", "how plane parts move between processes (kit/exchange.h) [host]", 1, 0, 0, KIT_COMM_CHOICES, NULL, NULL, ISING_COMM_VARIANTS},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  /* The shared rows, in this app's words: a step is one Metropolis sweep (both colours). */
  kit_option_named(opts, "iters")->help =
      "Metropolis sweeps per timed repetition (an iteration is one sweep)";
  kit_option_named(opts, "warmup")->help = "untimed sweeps before timing";
  kit_option_named(opts, "checkpoint-every")->help =
      "with --checkpoint: every N sweeps of the last repetition";
  kit_option_named(opts, "restart")->help = "start from a checkpoint and run up to --iters sweeps in all";
  kit_option_named(opts, "cpu-fraction")->help =
      "CPU share of each rank's planes, in whole granules at the top of its slab "
      "(auto: the triad model, kept only if it beats two-stream's schedule)";
  const kit_app app = {
      .name = "ising",
      .summary =
          "3D Edwards-Anderson spin glass, Metropolis, checkerboard or sliced layout "
          "(msc: sliced, one bit per spin) on a z-decomposition",
      .variants = variants,
      .gpu_only_fallback = "two-stream",
      .opts = opts,
      .run = &p.run,
      .params = &p,
      .check = ising_check,
      .outputs = ising_outputs,
      .gpu_limit = ising_gpu_limit,
      .plan = plan,
      .context = context,
      .free_context = free_context,
      .cpu_units = cpu_units,
      .set_cpu_fraction = set_cpu_fraction,
      .cpu_unit = "planes",
      .uniform_share = 1,
      .measure = measure,
      .describe = ising_describe,
      .checkpoint = checkpoint,
      .finish = finish,
  };
  return kit_main(&app, argc, argv);
}
