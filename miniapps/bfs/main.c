/* main.c: bfs's options, context and descriptor, the Graph500 "Search" benchmark on a 2D
 * process grid; kit_main (kit/app.h) runs it: parse, refuse, choose GPUs, check memory,
 * ceilings, the hybrid share, then bfs's own run: kernel 1 (setup.c), one timed search per
 * key, each validated (search.c), the Graph500 block and the report (report.c). The
 * variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the searches.
 * Bernaschi et al. Sec. 3.3; the Graph500 specification; see README.md in this folder.
 *   build/bin/bfs --variant list
 *   mpiexec -n 4 build/bin/bfs --scale 14 --grid 2x2 --transfer auto --json - */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "run.h"

static const kit_variant *const variants[] = {
    &bfs_cpu.base,
#ifdef KIT_HAVE_CUDA
    &bfs_naive.base,
    &bfs_two_stream.base,
    &bfs_multi_thread.base,
    &bfs_hybrid.base,
#endif
    NULL,
};

/* Rules that need no allocation (DESIGN.md Sec. 4): exit 2 with one line, on any build. */
static int check(const kit_env *env, void *params, const char *variant) {
  bfs_args *a = params;
  bfs_params *p = &a->p;
  if (strcmp(variant, "multi-thread") == 0 && p->run.gpus > BFS_MT_MAX_GPUS) /* also where it is not built */
    return kit_usage_error(env, "bfs: --gpus: multi-thread drives at most %d GPUs per process",
                           BFS_MT_MAX_GPUS);
  if (p->graph && (a->scale_given || a->ef_given))
    return kit_usage_error(env, "bfs: --%s describes a generated graph; it does not apply with --graph",
                           a->scale_given ? "scale" : "edgefactor");
  if (p->prune && bfs_transfer_mode(p->transfer) == BFS_BITMAP)
    return kit_usage_error(env,
                           "bfs: --prune applies to list messages (--transfer list or auto): a bitmap holds "
                           "each vertex once already");
  if (a->root_given && a->roots_given)
    return kit_usage_error(env, "bfs: give --root V or --roots N, not both");
  if (a->grid_given && (long)p->grid[0] * p->grid[1] != env->nranks)
    return kit_usage_error(env, "bfs: --grid %dx%d needs %ld ranks; the job has %d", p->grid[0], p->grid[1],
                           (long)p->grid[0] * p->grid[1], env->nranks);
  if (!a->grid_given) bfs_default_grid(env->nranks, p->grid);
  return -1;
}

static int outputs(const void *params, const char **flags, const char **paths) {
  flags[0] = "--dump-parents";
  paths[0] = ((const bfs_args *)params)->p.dump_parents;
  return 1;
}

/* The graph's size (--graph: the file, read on rank 0) and the bytes it will take. */
static int plan(const kit_env *env, void *params, const kit_variant *v, int gpus, double *host,
                double *device) {
  const int rc = bfs_plan_graph(env, params);
  if (rc >= 0) return rc;
  bfs_memory(env, params, v->needs_gpu, gpus, host, device);
  return -1;
}

/* The edge list, kernel 1's graph and the keys; a key the graph refuses is exit 2. */
static int context(const kit_env *env, void *params, const kit_variant *v, int gpus, void **ctx, int *todo) {
  bfs_run *r = *ctx = kit_malloc(sizeof *r, "run");
  memset(r, 0, sizeof *r);
  *todo = 1; /* a run is no count of steps: kit_main's calibration times its fewest searches */
  return bfs_make_run(env, params, gpus, r);
}

/* hybrid: the CPU's 32-vertex words of this rank's row at share f (hybrid.c cuts the same). */
static int cpu_units(const void *ctx, double f) {
  return (int)bfs_hybrid_cpu_words(&((const bfs_run *)ctx)->graph, f);
}
static void set_cpu_fraction(void *ctx, double f) {
  ((bfs_run *)ctx)->c.cpu_fraction = f;
}

/* Graph500's figure of merit, and the bytes one search must move at least: each traversed
 * edge read once in both directions as a 4-byte index, and a parent (8 bytes) and a level
 * (4 bytes) written per vertex. */
static void measure(const void *ctx, const kit_timing *t, kit_measure *m) {
  const bfs_run *r = ctx; /* TEPS: over each search's own edge count (search.c), not t */
  *m = (kit_measure){"harmonic_mean_GTEPS", "GTEPS", r->teps.mean * 1e-9,
                     8.0 * r->mean_nedge + 12.0 * (double)r->a->n};
}

static void describe(const void *params, const void *ctx, const kit_variant *v, kit_json *j) {
  const bfs_args *a = params;
  const bfs_params *p = &a->p;
  if (p->graph) {
    kit_json_string(j, "graph", p->graph);
  } else {
    kit_json_int(j, "scale", p->scale);
    kit_json_int(j, "edgefactor", p->edgefactor);
  }
  kit_json_int(j, "nvertices", a->n);
  kit_json_int(j, "nedges", a->m);
  kit_json_int(j, "grid_rows", p->grid[0]);
  kit_json_int(j, "grid_cols", p->grid[1]);
  kit_json_string(j, "transfer", p->transfer);
  kit_json_bool(j, "prune", p->prune);
  /* BFS_DISCOVER=thread|edges overrides a GPU variant's discovery kernel (labs): record it, so
   * two runs that differ only there can be told apart. */
  kit_json_string(j, "discover", getenv("BFS_DISCOVER") ? getenv("BFS_DISCOVER") : "variant default");
  kit_json_int(j, "nbfs", ((const bfs_run *)ctx)->nbfs);
  kit_json_int(j, "root", a->root_given ? (long long)a->root : -1);
  kit_json_u64(j, "seed", p->run.seed);
  kit_json_int(j, "warmup", p->run.warmup);
}

int main(int argc, char **argv) {
  bfs_args a = {.p = {.run = kit_run_defaults(),
                      .scale = 16,
                      .edgefactor = 16,
                      .transfer = "auto",
                      .nroots = 64,
                      .root = -1}};
  bfs_params *p = &a.p;
  kit_option opts[KIT_RUN_NOPTS + 12];
  int n = kit_run_options(&p->run, opts);
  opts[n].type = KIT_OPT_END;
  /* A run is --roots searches, each timed (Graph500 kernel 2), not repetitions of steps, and
   * it keeps no state to checkpoint: these shared flags are not bfs's (hidden, refused). */
  static const char *const not_ours[] = {"iters", "reps", "checkpoint", "checkpoint-every", "restart"};
  for (size_t k = 0; k < sizeof not_ours / sizeof *not_ours; ++k)
    kit_option_named(opts, not_ours[k])->variants = "";
  kit_option_named(opts, "warmup")->help = "untimed searches from the first key before the timed ones";
  kit_option_named(opts, "trace")->help =
      "write a Chrome trace-event timeline of the profiled search (the first key's)";
  kit_option_named(opts, "verify")->help =
      "validate every search: the Graph500 rules and the serial oracle (default)";
  kit_option_named(opts, "seed")->help =
      "random seed (Philox key) of the generated graph and the search keys";
  kit_option_named(opts, "cpu-fraction")->help =
      "the CPU's share of each rank's row vertices (auto: the triads' model, kept if it beats share 0)";
  /* One row per flag, read as --help prints them. */
  /* clang-format off */
  const kit_option app_opts[] = {
      {"scale", KIT_OPT_INT, &p->scale, "S", "generated graph: 2^S vertices", 1, 30, 0, NULL, NULL, &a.scale_given},
      {"edgefactor", KIT_OPT_INT, &p->edgefactor, "E", "generated graph: E * 2^S edges", 1, 1024, 0, NULL, NULL, &a.ef_given},
      {"graph", KIT_OPT_STRING, &p->graph, "FILE", "read the graph (Matrix Market .mtx or edge list) instead", 1, 0, 0, NULL, NULL, NULL},
      {"grid", KIT_OPT_CUSTOM, p->grid, "RxC", "process grid (default: as square as the rank count allows)", 1, 0, 0, NULL,
       bfs_parse_grid, &a.grid_given},
      {"transfer", KIT_OPT_STRING, &p->transfer, "MODE", "frontier messages: vertex lists, bitmaps, or auto (bitmap above n/32)",
       1, 0, 0, "list|bitmap|auto", NULL, NULL},
      {"roots", KIT_OPT_INT, &p->nroots, "N", "search keys, sampled from the vertices with an edge (Graph500: 64)", 1, 64, 0,
       NULL, NULL, &a.roots_given},
      {"root", KIT_OPT_U64, &a.root, "V", "one search from vertex V instead [none: --roots keys]", 1, 0, 0, NULL, NULL, &a.root_given},
      {"prune", KIT_OPT_FLAG, &p->prune, NULL,
       "sort-unique every list message before it leaves (Rossetti's recipe 3); reports bytes with and without", 1, 0, 1,
       NULL, NULL, NULL},
      {"dump-parents", KIT_OPT_STRING, &p->dump_parents, "FILE", "write the first search's parents (int64, -1 unreached)", 1, 0, 0,
       NULL, NULL, NULL},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  const kit_app app = {
      .name = "bfs",
      .summary =
          "Graph500 BFS on a 2D process grid with list/bitmap transfers; variants: cpu naive two-stream "
          "multi-thread hybrid",
      .variants = variants,
      .gpu_only_fallback = NULL,
      .opts = opts,
      .run = &p->run,
      .params = &a,
      .check = check,
      .outputs = outputs,
      .plan = plan,
      .context = context,
      .free_context = bfs_free_run,
      .cpu_units = cpu_units,
      .set_cpu_fraction = set_cpu_fraction,
      .cpu_unit = NULL,
      .uniform_share = 0,
      .timed = bfs_timed,
      .measure = measure,
      .describe = describe,
      .finish = bfs_finish};
  return kit_main(&app, argc, argv);
}
