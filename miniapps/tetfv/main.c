/* main.c: tetfv's options, rules, context and descriptor; kit_main (kit/app.h) runs it: parse,
 * refuse, choose GPUs, check memory, ceilings, the hybrid share, warm up, profile, time,
 * verify, report. problem.c builds the problem (mesh, D/A/I, METIS), report.c reports it, the
 * variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the time steps.
 * Paper III (`../shared/seeds/001_5c64d68c2bfeada2.txt`) Sec. 2-3; see README.md in this folder.
 *   mpiexec -n 2 build/bin/tetfv --variant two-stream --mesh box:100 --iters 100
 *   build/bin/tetfv --variant hybrid --mesh box:100 --cpu-fraction auto
 *   build/bin/tetfv --mesh tests/tetfv/data/sphere_v41.msh --init random --aniso 4 --t-end 0.01 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/slab.h"
#include "problem.h"
#include "report.h"

/* Paper III Sec. 2: one cell update moves 16 weights and 16 indices, D[i] and u_old[i] (208
 * bytes read), u_new[i] (8 written), and does tetfv_row's 33 flops. */
#define TETFV_BYTES_PER_CELL 216.0
#define TETFV_FLOPS_PER_CELL 33.0

static const kit_variant *const variants[] = {&tetfv_cpu,
#ifdef KIT_HAVE_CUDA
                                              &tetfv_naive,  &tetfv_two_stream, &tetfv_multi_thread,
                                              &tetfv_hybrid,
#endif
                                              NULL};

/* The parameters, and which flags were given (rules between flags). */
typedef struct params {
  tetfv_params p; /* first member: the hooks' params are both */
  int iters, jitter, fibres, t_end, block;
} params;

/* The rules between flags (DESIGN.md Sec. 4): exit 2 with one line, on any machine. */
static int check(const kit_env *env, void *params_, const char *variant) {
  params *g = params_;
  tetfv_params *p = &g->p;
  p->box_n = strncmp(p->mesh, "box:", 4) == 0 ? atoi(p->mesh + 4) : 0;
  if (!p->flux) p->flux = "corrected";
  /* The bound's answer is wrong on purpose: it must not be checked, let alone pass. */
  if (p->no_exchange && p->run.verify)
    return kit_usage_error(env,
                           "tetfv: --no-exchange computes a wrong answer on purpose (the communication-free "
                           "bound): add --no-verify");
  if (g->jitter && !p->box_n) return kit_usage_error(env, "tetfv: --jitter applies only to --mesh box:N");
  if (g->fibres && p->aniso == 0.0)
    return kit_usage_error(env, "tetfv: --fibres applies only with --aniso A > 0");
  if (g->block && strcmp(p->reorder, "metis") != 0)
    return kit_usage_error(env, "tetfv: --block applies only to --reorder metis");
  if (g->t_end && g->iters) return kit_usage_error(env, "tetfv: give --iters or --t-end, not both");
  if (p->aniso > 0.0 && strcmp(p->flux, "two-point") == 0)
    return kit_usage_error(env,
                           "tetfv: --flux two-point with --aniso: two-point fluxes are not consistent for a "
                           "tensor K (use corrected)");
  const double cells = 6.0 * p->box_n * p->box_n * p->box_n; /* a file's count is known once read: context */
  if (p->box_n && cells < env->nranks)
    return kit_usage_error(env, "tetfv: --mesh %s has %.0f cells, fewer than the %d ranks", p->mesh, cells,
                           env->nranks);
  return -1;
}

static int outputs(const void *params_, const char **flags, const char **paths) {
  flags[0] = "--dump";
  paths[0] = ((const tetfv_params *)params_)->dump;
  return 1;
}

/* The box's size and memory (a file is checked once read): the mesh and the global matrix on
 * every rank during set-up (replicated: README.md "Not done yet"), the local matrix, fields,
 * rank 0 the oracle's: about 500 bytes a cell. A GPU holds its rows (D, A, I: 200 bytes
 * each) and three whole-length fields of its rank's part (and ghosts). */
static int plan(const kit_env *env, void *params_, const kit_variant *v, int gpus, double *host,
                double *device) {
  const tetfv_params *p = params_;
  const double cells = 6.0 * p->box_n * p->box_n * p->box_n, rows = 1.1 * cells / env->nranks;
  if (cells > 1.3e8)
    return kit_usage_error(
        env, "tetfv: --mesh %s: %.0f cells exceed the 1.3e8 a rank's int indices and messages allow", p->mesh,
        cells);
  *host = 500.0 * cells;
  *device = gpus > 0 ? rows * (200.0 / gpus + 3.0 * 8.0 * 1.2) : 0.0;
  return -1;
}

/* The built problem (problem.c); multi-thread needs a row per GPU, which only METIS shows. */
static int context(const kit_env *env, void *params_, const kit_variant *v, int gpus, void **ctx, int *todo) {
  tetfv_params *p = params_;
  tetfv_built *b = *ctx = kit_malloc(sizeof *b, "context");
  *b = (tetfv_built){.c.gpus = gpus};
  const int rc = tetfv_build(env, p, b);
  if (rc >= 0) return rc;
  if (v->gpus_max > 0) {
    int least = b->loc.nown;
    KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (least < gpus)
      return kit_usage_error(env,
                             "tetfv: --mesh %s: a rank has %d cells, fewer than its %d GPUs (multi-thread)",
                             p->mesh, least, gpus);
  }
  *todo = p->run.iters - p->start_step; /* a restarted run does only the steps left */
  return -1;
}

static void free_context(void *ctx) {
  tetfv_built_free(ctx), free(ctx);
}

/* hybrid: the CPU's rows (tetfv_assign_cpu_rows takes the separator first). */
static int cpu_units(const void *ctx, double f) {
  return kit_cpu_planes(((const tetfv_built *)ctx)->loc.nown, f);
}
static void set_cpu_fraction(void *ctx, double f) {
  ((tetfv_built *)ctx)->c.cpu_fraction = f;
}

static void measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const double cells = ((const tetfv_built *)ctx)->ncells;
  *m = (kit_measure){"GFLOP/s", "GFLOP/s", TETFV_FLOPS_PER_CELL * cells * t->iters / t->time.median * 1e-9,
                     TETFV_BYTES_PER_CELL * cells};
}

static void describe(const void *params_, const void *ctx, const kit_variant *v, kit_json *j) {
  tetfv_describe(params_, ctx, j);
}
static void checkpoint(void *ctx, const kit_variant *v, void *st, int step) {
  tetfv_checkpoint_write(ctx, v, st, step);
}
static void finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  tetfv_results(ctx, t, rep);
  tetfv_check_final(ctx, v, st, rep);
}

int main(int argc, char **argv) {
  /* --reorder rcm: faster than METIS blocks on the CPU, cheaper to set up (README.md). */
  params g = {.p = {.run = kit_run_defaults(),
                    .mesh = "box:8",
                    .kappa = 1.0,
                    .fibres = "rotating",
                    .bc = "neumann",
                    .safety = 0.9,
                    .init = "mode",
                    .reorder = "rcm",
                    .block = 512,
                    .p2p = 1}};
  tetfv_params *p = &g.p;
  p->run.iters = 100;
  kit_option opts[KIT_RUN_NOPTS + 20];
  int n = kit_run_options(&p->run, opts);
  kit_option_named(opts, "iters")->given = &g.iters;
  kit_option_named(opts, "iters")->help = "time steps per timed repetition (or set by --t-end)";
  kit_option_named(opts, "cpu-fraction")->help =
      "the CPU cores' share of each rank's rows (auto: Paper III's bandwidth model from the measured triads, "
      "kept "
      "if it beats two-stream in a short measurement)";
  /* One row per flag, read as --help prints them. */
  /* clang-format off */
  const kit_option app_opts[] = {
      {"mesh", KIT_OPT_CUSTOM, &p->mesh, "box:N|FILE.msh", "the built-in box (n^3 cubes x 6 tetrahedra) or a gmsh ASCII 2.2/4.1 file [box:8]", 1, 0, 0, NULL, tetfv_parse_mesh, NULL},
      {"jitter", KIT_OPT_DOUBLE, &p->jitter, "J", "box: move interior vertices up to J h / 2 per coordinate", 0.0, 0.5, 0, NULL, NULL, &g.jitter},
      {"shuffle", KIT_OPT_FLAG, &p->shuffle, NULL, "renumber the cells at random (real meshes are unordered in memory)", 1, 0, 1, NULL, NULL, NULL},
      {"kappa", KIT_OPT_DOUBLE, &p->kappa, "K", "scalar diffusivity", 1e-12, 1e12, 0, NULL, NULL, NULL},
      {"aniso", KIT_OPT_DOUBLE, &p->aniso, "A", "tensor K = kappa (I + A f f^T) along fibres f (needs --flux corrected)", 0.0, 1e6, 0, NULL, NULL, NULL},
      {"fibres", KIT_OPT_STRING, &p->fibres, "F", "fibre field of --aniso: along x, or rotating 120 deg through z", 1, 0, 0, "x|rotating", NULL, &g.fibres},
      {"flux", KIT_OPT_STRING, &p->flux, "KIND", "face fluxes: gradient-corrected (up to 16 neighbours, consistent) or two-point (4; inconsistent on tetrahedra, README) [corrected]", 1, 0, 0, "two-point|corrected", NULL, NULL},
      {"bc", KIT_OPT_STRING, &p->bc, "BC", "boundary: zero flux, or u = 0 on boundary faces", 1, 0, 0, "neumann|dirichlet", NULL, NULL},
      {"safety", KIT_OPT_DOUBLE, &p->safety, "S", "time step = S x the Gershgorin stability limit", 0.01, 1.0, 0, NULL, NULL, NULL},
      {"t-end", KIT_OPT_DOUBLE, &p->t_end, "T", "run to time T (sets --iters, shortens dt to land on T)", 1e-12, 1e6, 0, NULL, NULL, &g.t_end},
      {"init", KIT_OPT_STRING, &p->init, "KIND", "initial field: the box's slowest mode, Philox noise, or 1", 1, 0, 0, "mode|random|constant", NULL, NULL},
      {"reorder", KIT_OPT_STRING, &p->reorder, "HOW", "interior cell order for cache reuse: none, reverse Cuthill-McKee, METIS blocks", 1, 0, 0, "none|rcm|metis", NULL, NULL},
      {"block", KIT_OPT_INT, &p->block, "B", "--reorder metis: cells per block (Paper III: 512 on a CPU)", 8, 1e8, 0, NULL, NULL, &g.block},
      {"skip-oracle", KIT_OPT_FLAG, &p->skip_oracle, NULL, "skip the bitwise oracle (large meshes; other checks stay)", 1, 0, 1, NULL, NULL, NULL},
      {"dump", KIT_OPT_STRING, &p->dump, "FILE", "write the final field (mesh order) as raw little-endian doubles", 1, 0, 0, NULL, NULL, NULL},
      {"no-p2p", KIT_OPT_FLAG, &p->p2p, NULL, "stage GPU-GPU copies through host memory", 1, 0, 0, NULL, NULL, NULL, "multi-thread"},
      {"no-exchange", KIT_OPT_FLAG, &p->no_exchange, NULL, "benchmark only: exchange nothing between parts, Paper III's communication-free bound (needs --no-verify)", 1, 0, 1, NULL, NULL, NULL},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  const kit_app app = {
      .name = "tetfv",
      .summary =
          "cell-centred finite-volume diffusion on unstructured tetrahedral meshes (Paper III's u = D u + A "
          "u[I]); "
          "variants: cpu naive two-stream multi-thread hybrid",
      .variants = variants,
      .gpu_only_fallback = "two-stream",
      .opts = opts,
      .run = &p->run,
      .params = &g,
      .check = check,
      .outputs = outputs,
      .plan = plan,
      .context = context,
      .free_context = free_context,
      .cpu_units = cpu_units,
      .set_cpu_fraction = set_cpu_fraction,
      .cpu_unit = "rows",
      .measure = measure,
      .describe = describe,
      .checkpoint = checkpoint,
      .finish = finish};
  return kit_main(&app, argc, argv);
}
