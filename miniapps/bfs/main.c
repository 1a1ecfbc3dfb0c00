/* main.c: bfs's options, context and descriptor, the Graph500 "Search" benchmark on a 2D
 * process grid; kit_main (kit/app.h) runs it: parse, refuse, choose GPUs, check memory,
 * ceilings, the hybrid share, then bfs's own run: kernel 1 (setup.c), one timed search per
 * key, each validated (search.c), the Graph500 block and the report (report.c). The
 * variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the searches.
 * Bernaschi et al. Sec. 3.3; the Graph500 specification; see README.md in this folder.
 *   build/bin/bfs --variant list
 *   mpiexec -n 4 build/bin/bfs --scale 14 --grid 2x2 --transfer auto --json - */
#include <stdlib.h>

#include "kit/exchange.h"
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

static int outputs(const void *params, const char **flags, const char **paths) {
  flags[0] = "--dump-parents";
  paths[0] = ((const bfs_args *)params)->p.dump_parents;
  flags[1] = "--message-matrix";
  paths[1] = ((const bfs_args *)params)->p.message_matrix;
  return 2;
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
  kit_json_string(j, "partition", p->partition);
  kit_json_string(j, "direction", p->direction);
  kit_json_string(j, "comm", kit_variant_in(BFS_COMM_VARIANTS, v->name) ? p->comm : "host");
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
                      .root = -1,
                      .partition = "block",
                      .comm = "host"}};
  bfs_params *p = &a.p;
  kit_option opts[KIT_RUN_NOPTS + 15];
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
      {"grid", KIT_OPT_CUSTOM, p->grid, "RxC", "process grid, R x C = ranks (default: Px1, one grid column: README.md, Default grid)", 1, 0, 0, NULL, bfs_parse_grid, &a.grid_given},
      {"transfer", KIT_OPT_STRING, &p->transfer, "MODE", "frontier messages: vertex lists, bitmaps, or auto (bitmap above n/32)", 1, 0, 0, "list|bitmap|auto", NULL, NULL},
      {"roots", KIT_OPT_INT, &p->nroots, "N", "search keys, sampled from the vertices with an edge (Graph500: 64)", 1, 64, 0, NULL, NULL, &a.roots_given},
      {"root", KIT_OPT_U64, &a.root, "V", "one search from vertex V instead [none: --roots keys]", 1, 0, 0, NULL, NULL, &a.root_given},
      {"prune", KIT_OPT_FLAG, &p->prune, NULL, "sort-unique every list message before it leaves (Rossetti's recipe 3); reports bytes with and without", 1, 0, 1, NULL, NULL, NULL},
      {"direction", KIT_OPT_STRING, &p->direction, "DIR", "level direction: top-down, bottom-up, or Beamer's switch between them (auto) [auto]", 1, 0, 0, "top-down|bottom-up|auto", NULL, NULL},
      {"partition", KIT_OPT_STRING, &p->partition, "KIND", "vertex owners: consecutive blocks, or cyclic (v mod P, P = R*C: Rossetti's slides), by relabelling before kernel 1", 1, 0, 0, "block|cyclic", NULL, NULL},
      {"frontier-table", KIT_OPT_FLAG, &p->frontier_table, NULL, "count the slides' next-level frontier arrays per level (m entries, n after sort-unique; untimed, after each search); table and unique_ratio", 1, 0, 1, NULL, NULL, NULL},
      {"dump-parents", KIT_OPT_STRING, &p->dump_parents, "FILE", "write the first search's parents (int64, -1 unreached)", 1, 0, 0, NULL, NULL, NULL},
      {"comm", KIT_OPT_STRING, &p->comm, "T", "how the expand's and fold's payloads move between processes (kit/exchange.h; the headers go by MPI first) [host]", 1, 0, 0, KIT_COMM_CHOICES, NULL, NULL, BFS_COMM_VARIANTS},
      {"message-matrix", KIT_OPT_STRING, &p->message_matrix, "FILE", "write the first timed search's bytes per sender and receiver, expand and fold, one JSON line per level", 1, 0, 0, NULL, NULL, NULL},
  };
  /* clang-format on */
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;
  const kit_app app = {
      .name = "bfs",
      .summary =
          "Graph500 BFS on a 2D process grid with list/bitmap transfers; "
          "variants: cpu naive two-stream multi-thread hybrid",
      .variants = variants,
      .gpu_only_fallback = NULL,
      .opts = opts,
      .run = &p->run,
      .params = &a,
      .check = bfs_check,
      .outputs = outputs,
      .plan = bfs_plan,
      .context = bfs_context,
      .free_context = bfs_free_run,
      .cpu_units = bfs_cpu_units,
      .set_cpu_fraction = bfs_set_cpu_fraction,
      .cpu_unit = NULL,
      .uniform_share = 0,
      .timed = bfs_timed,
      .measure = measure,
      .describe = describe,
      .finish = bfs_finish,
  };
  return kit_main(&app, argc, argv);
}
