/* main.c: tetfv's options, hooks and descriptor; kit_main (kit/app.h) runs it: parse,
 * refuse, choose GPUs, check memory, ceilings, the hybrid share, warm up, profile, time,
 * verify, report. problem.c holds the rules between flags, the memory model and the problem
 * it builds (mesh, D/A/I, METIS), report.c reports it, checkpoint.c writes checkpoints, the
 * variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the time steps.
 * Paper III (`../shared/seeds/001_5c64d68c2bfeada2.txt`) Sec. 2-3; see README.md in this folder.
 *   mpiexec -n 2 build/bin/tetfv --variant two-stream --mesh box:100 --iters 100
 *   build/bin/tetfv --variant hybrid --mesh box:100 --cpu-fraction auto
 *   build/bin/tetfv --variant hybrid --gpus 2 --mesh box:100 --cpu-fraction 0.02
 *   build/bin/tetfv --mesh tests/tetfv/data/sphere_v41.msh --init random --aniso 4 --t-end 0.01 */
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

static int outputs(const void *params_, const char **flags, const char **paths) {
  flags[0] = "--dump";
  paths[0] = ((const tetfv_params *)params_)->dump;
  return 1;
}

/* hybrid: the CPU's rows (tetfv_assign_cpu_rows takes the separator first). */
static int cpu_units(const void *ctx, double f) {
  return kit_cpu_planes(((const tetfv_built *)ctx)->loc.nown, f);
}
static void set_cpu_fraction(void *ctx, double f) {
  ((tetfv_built *)ctx)->c.cpu_fraction = f;
}

/* The box's limits and memory (tetfv_plan), after the transport: --comm that this machine
 * cannot run skips (exit 77) on every rank alike, as in laplace. */
static int plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                double *device) {
  const tetfv_params *p = params;
  const int rc = kit_comm_check(env, "tetfv", TETFV_COMM_VARIANTS, v->name, p->comm);
  if (rc >= 0) return rc;
  return tetfv_plan(env, params, v, gpus, host, device);
}

static void measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const double cells = ((const tetfv_built *)ctx)->ncells;
  *m = (kit_measure){"GFLOP/s", "GFLOP/s", TETFV_FLOPS_PER_CELL * cells * t->iters / t->time.median * 1e-9,
                     TETFV_BYTES_PER_CELL * cells};
}

int main(int argc, char **argv) {
  /* --reorder rcm: faster than METIS blocks on the CPU, cheaper to set up (README.md). */
  tetfv_args g = {.p = {.run = kit_run_defaults(),
                        .mesh = "box:8",
                        .kappa = 1.0,
                        .fibres = "rotating",
                        .bc = "neumann",
                        .safety = 0.9,
                        .init = "mode",
                        .reorder = "rcm",
                        .block = 512,
                        .p2p = 1,
                        .comm = "host"}};
  tetfv_params *p = &g.p;
  p->run.iters = 100;
  kit_option opts[KIT_RUN_NOPTS + 20];
  int n = kit_run_options(&p->run, opts);
  kit_option_named(opts, "iters")->given = &g.iters;
  kit_option_named(opts, "iters")->help = "time steps per timed repetition (or set by --t-end)";
  kit_option_named(opts, "cpu-fraction")->help =
      "the CPU cores' share of each rank's rows (auto: Paper III's bandwidth model from the measured triads, "
      "kept if it beats two-stream in a short measurement)";
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
      {"comm", KIT_OPT_STRING, &p->comm, "T", "how the separator moves between processes (kit/exchange.h) [host]", 1, 0, 0, KIT_COMM_CHOICES, NULL, NULL, TETFV_COMM_VARIANTS},
      {"no-p2p", KIT_OPT_FLAG, &p->p2p, NULL, "stage GPU-GPU copies through host memory", 1, 0, 0, NULL, NULL, NULL, "multi-thread"},
      {"no-exchange", KIT_OPT_FLAG, &p->no_exchange, NULL, "benchmark only: exchange nothing between parts, Paper III's communication-free bound (needs --no-verify)", 1, 0, 1, NULL, NULL, NULL},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  const kit_app app = {
      .name = "tetfv",
      .summary =
          "cell-centred finite-volume diffusion on unstructured tetrahedral meshes "
          "(Paper III's u = D u + A u[I]); variants: cpu naive two-stream multi-thread hybrid",
      .variants = variants,
      .gpu_only_fallback = "two-stream",
      .gpu_only_fallback_multi = "multi-thread", /* hybrid --gpus N with no CPU rows */
      .opts = opts,
      .run = &p->run,
      .params = &g,
      .check = tetfv_check,
      .outputs = outputs,
      .plan = plan,
      .context = tetfv_context,
      .free_context = tetfv_free_context,
      .cpu_units = cpu_units,
      .set_cpu_fraction = set_cpu_fraction,
      .cpu_unit = "rows",
      .measure = measure,
      .describe = tetfv_describe,
      .checkpoint = tetfv_checkpoint_write,
      .finish = tetfv_finish};
  return kit_main(&app, argc, argv);
}
