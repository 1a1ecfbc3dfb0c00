/* main.c: the bfs driver, the Graph500 "Search" benchmark on a 2D process grid. Parse,
 * generate (or read) the edge list, kernel 1 (timed), sample the search keys, then per key
 * kernel 2 (timed) and its validation (untimed), then the Graph500 statistics and the kit's
 * report. The variants (cpu.c naive.c two_stream.c multi_thread.c hybrid.c) do the searches.
 * Bernaschi et al. Sec. 3.3; the Graph500 specification; see README.md in this folder.
 *   build/bin/bfs --variant list
 *   mpiexec -n 4 build/bin/bfs --scale 14 --grid 2x2 --transfer auto --json - */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "bitmap.h"
#include "kit/ceiling.h"
#include "kit/check.h"
#include "kit/driver.h"
#include "kit/hybrid.h"
#include "kit/input.h"
#include "kit/ranges.h"
#include "kit/report.h"
#include "kit/stats.h"
#include "partition.h"
#include "validate.h"

static const bfs_variant *const variants[] = {
    &bfs_cpu,
#ifdef KIT_HAVE_CUDA
    &bfs_naive, &bfs_two_stream, &bfs_multi_thread, &bfs_hybrid,
#endif
};
static const bfs_variant *find_variant(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i)
    if (strcmp(variants[i]->name, name) == 0) return variants[i];
  return NULL;
}

/* --variant list: a CPU-only build lists the GPU variants too (they exit 77). */
static const char *describe(const char *name) {
  const bfs_variant *v = find_variant(name);
  return v ? v->summary : "(not built: no CUDA toolkit)";
}

#ifdef KIT_HAVE_CUDA
/* --cpu-fraction auto's measurement: `reps` searches from `root` after one untimed, the max
 * over ranks (collective). */
static double time_searches(const bfs_variant *v, void *st, int64_t root, int reps) {
  v->run(st, root);
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  const double t0 = kit_now();
  for (int r = 0; r < reps; ++r) v->run(st, root);
  double mine = kit_now() - t0, all = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return all;
}
#endif

/* The counts of failed rules, summed over the searches (verification). */
typedef struct failures {
  bfs_validation rules; /* nedge unused */
  int64_t levels;       /* vertices whose level differs from the oracle's */
  int64_t nedge;        /* searches whose distributed edge count differs from the input's */
  double max_level_diff;
} failures;

/* Rank 0 gets the parent and level arrays in vertex order (others get NULL). */
static void gather(const bfs_graph *g, const kit_env *env, const int64_t *parent_own, const int32_t *level_own,
                   int64_t *parent, int32_t *level) {
  int *counts = NULL, *displs = NULL;
  if (env->rank == 0) {
    counts = kit_malloc((size_t)env->nranks * sizeof(int), "gather counts");
    displs = kit_malloc((size_t)env->nranks * sizeof(int), "gather counts");
    const int64_t P = env->nranks;
    for (int r = 0; r < env->nranks; ++r) {
      const int64_t b = bfs_grid_block(g->R, r / g->C, r % g->C);
      counts[r] = (int)bfs_block_count(g->n, P, b);
      displs[r] = (int)bfs_block_begin(g->n, P, b);
    }
  }
  const int mine = (int)g->own_count;
  KIT_MPI_CHECK(MPI_Gatherv(parent_own, mine, MPI_INT64_T, parent, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Gatherv(level_own, mine, MPI_INT32_T, level, counts, displs, MPI_INT32_T, 0, MPI_COMM_WORLD));
  free(counts);
  free(displs);
}

/* Rank 0's check of one search; returns the edge count from the input list. */
static void check_search(const bfs_csr *csr, const bfs_edges *all, int64_t root, const int64_t *parent,
                         const int32_t *level, int32_t *oracle, int64_t nedge_dist, failures *f) {
  bfs_validation v;
  bfs_validate(csr, all->uv, all->m, root, parent, level, &v);
  f->rules.root += v.root;
  f->rules.tree += v.tree;
  f->rules.tree_levels += v.tree_levels;
  f->rules.edge_levels += v.edge_levels;
  f->rules.spans += v.spans;
  f->rules.parent_edges += v.parent_edges;
  f->nedge += v.nedge != nedge_dist;
  bfs_reference(csr, root, oracle);
  for (int64_t x = 0; x < csr->n; ++x)
    if (level[x] != oracle[x]) {
      f->levels++;
      const double d = (level[x] < 0 || oracle[x] < 0) ? (double)csr->n : fabs((double)level[x] - oracle[x]);
      if (d > f->max_level_diff) f->max_level_diff = d;
    }
}

static void report_rule(kit_report *r, const char *name, int64_t bad, int nbfs, const char *what) {
  kit_report_check(r, name, bad == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, (double)bad, 0.0, "%lld %s over %d searches",
                   (long long)bad, what, nbfs);
}

int main(int argc, char **argv) {
  kit_env env;
  kit_init(&argc, &argv, &env);

  bfs_params p;
  memset(&p, 0, sizeof p);
  p.run = kit_run_defaults();
  p.scale = 16;
  p.edgefactor = 16;
  p.transfer = "auto";
  p.nroots = 64;
  p.root = -1;
  uint64_t root_arg = 0;
  int scale_given = 0, ef_given = 0, grid_given = 0;
  int root_given = 0, roots_given = 0;
  kit_option opts[KIT_RUN_NOPTS + 12];
  int n = kit_run_options(&p.run, opts);
  /* A run is --roots searches, each timed (Graph500 kernel 2), not repetitions of steps, and
   * it keeps no state to checkpoint: these shared flags are not bfs's (hidden from --help,
   * refused when given). */
  opts[n].type = KIT_OPT_END;
  static const char *const not_ours[] = {"iters", "reps", "checkpoint", "checkpoint-every", "restart"};
  for (size_t k = 0; k < sizeof not_ours / sizeof *not_ours; ++k) kit_option_named(opts, not_ours[k])->variants = "";
  const kit_option app_opts[] = {
      {"scale", KIT_OPT_INT, &p.scale, "S", "generated graph: 2^S vertices", 1, 30, 0, NULL, NULL, &scale_given},
      {"edgefactor", KIT_OPT_INT, &p.edgefactor, "E", "generated graph: E * 2^S edges", 1, 1024, 0, NULL, NULL, &ef_given},
      {"graph", KIT_OPT_STRING, &p.graph, "FILE", "read the graph (Matrix Market .mtx or edge list) instead", 1, 0, 0, NULL, NULL, NULL},
      {"grid", KIT_OPT_CUSTOM, p.grid, "RxC", "process grid (default: as square as the rank count allows)", 1, 0, 0, NULL,
       bfs_parse_grid, &grid_given},
      {"transfer", KIT_OPT_STRING, &p.transfer, "MODE", "frontier messages: vertex lists, bitmaps, or auto (bitmap above n/32)",
       1, 0, 0, "list|bitmap|auto", NULL, NULL},
      {"roots", KIT_OPT_INT, &p.nroots, "N", "search keys (Graph500: 64)", 1, 64, 0, NULL, NULL, &roots_given},
      {"root", KIT_OPT_U64, &root_arg, "V", "one search from vertex V", 1, 0, 0, NULL, NULL, &root_given},
      {"prune", KIT_OPT_FLAG, &p.prune, NULL,
       "sort-unique every list message before it leaves (Rossetti's recipe 3); reports bytes with and without", 1, 0, 1,
       NULL, NULL, NULL},
      {"dump-parents", KIT_OPT_STRING, &p.dump_parents, "FILE", "write the first search's parents (int64, -1 unreached)", 1, 0, 0,
       NULL, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof app_opts / sizeof *app_opts; ++i) opts[n++] = app_opts[i];
  opts[n].type = KIT_OPT_END;

  const int front = kit_front_door(&env, argc, argv, opts, "bfs",
      "Graph500 BFS on a 2D process grid with list/bitmap transfers; variants: cpu naive two-stream multi-thread hybrid",
      &p.run, describe);
  if (front >= 0) return kit_finalize(front);

  /* Rules that need no allocation (DESIGN.md Sec. 4): exit 2 with one line. */
  const char *vn = p.run.variant;
  if (strcmp(vn, "multi-thread") == 0 && p.run.gpus > BFS_MT_MAX_GPUS)
    return kit_finalize(kit_usage_error(&env, "bfs: --gpus: multi-thread drives at most %d GPUs per process", BFS_MT_MAX_GPUS));
  if (p.graph && (scale_given || ef_given))
    return kit_finalize(kit_usage_error(&env, "bfs: --%s describes a generated graph; it does not apply with --graph",
                                        scale_given ? "scale" : "edgefactor"));
  if (p.prune && bfs_transfer_mode(p.transfer) == BFS_BITMAP)
    return kit_finalize(kit_usage_error(&env, "bfs: --prune applies to list messages (--transfer list or auto): a bitmap "
                                              "holds each vertex once already"));
  if (root_given && roots_given) return kit_finalize(kit_usage_error(&env, "bfs: give --root V or --roots N, not both"));
  if (grid_given && (long)p.grid[0] * p.grid[1] != env.nranks)
    return kit_finalize(kit_usage_error(&env, "bfs: --grid %dx%d needs %ld ranks; the job has %d", p.grid[0], p.grid[1],
                                        (long)p.grid[0] * p.grid[1], env.nranks));
  if (!grid_given) bfs_default_grid(env.nranks, p.grid);
  const bfs_variant *v = find_variant(vn);
  if (!v) return kit_finalize(kit_skip(&env, "bfs", vn, "built without CUDA"));
  if (v->needs_gpu && !kit_all_ranks_have_gpu(&env)) return kit_finalize(kit_skip(&env, "bfs", vn, "no CUDA device"));
  if (kit_check_output_file(&env, "bfs", "--json", p.run.json) || kit_check_output_file(&env, "bfs", "--trace", p.run.trace) ||
      kit_check_output_file(&env, "bfs", "--dump-parents", p.dump_parents))
    return kit_finalize(KIT_EXIT_USAGE);

  /* The graph's size: from the flags, or from the file (read whole on rank 0). */
  bfs_edges file = {0, 0, 0, 0, NULL};
  int64_t N, M;
  if (p.graph) {
    struct { int bad; long long n, m; char why[400]; } hdr = {0, 0, 0, ""};
    if (env.rank == 0) {
      hdr.bad = bfs_read_graph(p.graph, &file, hdr.why, sizeof hdr.why) != 0;
      hdr.n = file.n;
      hdr.m = file.m;
    }
    KIT_MPI_CHECK(MPI_Bcast(&hdr, (int)sizeof hdr, MPI_BYTE, 0, MPI_COMM_WORLD));
    char safe[300];
    if (hdr.bad)
      return kit_finalize(kit_usage_error(&env, "bfs: --graph '%s': %s", kit_printable(p.graph, safe, sizeof safe), hdr.why));
    N = hdr.n;
    M = hdr.m;
  } else {
    N = (int64_t)1 << p.scale;
    M = (int64_t)p.edgefactor << p.scale;
  }
  if (N < env.nranks)
    return kit_finalize(kit_usage_error(&env, "bfs: %lld vertices cannot be split over %d ranks (each rank needs at least one vertex)",
                                        (long long)N, env.nranks));
  if (N > 2147483647LL)
    return kit_finalize(kit_usage_error(&env, "bfs: %lld vertices: this version gathers results with 32-bit counts (at most 2^31-1 vertices)",
                                        (long long)N));
  if (root_given && root_arg >= (uint64_t)N)
    return kit_finalize(kit_usage_error(&env, "bfs: --root %llu is not a vertex (the graph has vertices 0..%lld)",
                                        (unsigned long long)root_arg, (long long)N - 1));
  const int want_full = p.run.verify || p.dump_parents;

  /* GPUs: one per rank, or (multi-thread) every GPU the process may use. */
  /* (Only thread 0 calls MPI, from inside the thread team: MPI_THREAD_FUNNELED.) */
  int gpus_total = 0;
  const int gpus_per_rank = kit_choose_gpus(&env, "bfs", v->needs_gpu, strcmp(vn, "multi-thread") == 0 ? BFS_MT_MAX_GPUS : 0,
                                            MPI_THREAD_FUNNELED, p.run.gpus, &gpus_total);
  if (gpus_per_rank < 0) return kit_finalize(KIT_EXIT_USAGE);
  {
    /* Per rank: its edge slice, kernel 1's buffers and CSR (about 110 bytes per input edge
     * over the ranks) and the per-vertex search state; rank 0 also holds the whole edge list,
     * the oracle's CSR and the gathered arrays when it verifies. */
    const double P = env.nranks;
    double host = 110.0 * M / P + 16.0 * N / p.grid[0] + 8.0 * N / p.grid[1] + 40.0 * N / P;
    if (env.rank == 0 && want_full) host += 32.0 * M + 64.0 * N;
    /* Device (gpu_block.h): the block's CSR (4 bytes per directed entry), about 60 bytes
     * per column vertex (offsets, column bitmap and list, scan scratch) per GPU, 20 per row
     * vertex (row bitmap, keys, staging) and 32 per owned vertex; pinned staging on the host. */
    double device = 0.0;
    const double ncol = (double)N / p.grid[1], nrow = (double)N / p.grid[0];
    if (v->needs_gpu) {
      device = 8.0 * M / P + 60.0 * ncol * gpus_per_rank + 20.0 * nrow + 32.0 * N / P;
      host += 12.0 * nrow + 8.0 * ncol;
    }
    const int devices = gpus_per_rank < env.gpus_visible ? gpus_per_rank : env.gpus_visible;
    const int rc = kit_check_memory(&env, "bfs", host, device, devices);
    if (rc) return kit_finalize(rc);
  }
  /* Ceilings measured on this machine, and the hybrid share derived from them. */
  const int uses_host = !v->needs_gpu || strcmp(vn, "hybrid") == 0;
  const double host_bw = uses_host ? kit_host_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  const double dev_bw = v->needs_gpu ? kit_device_triad_ceiling(&env, p.run.measure_ceilings) : 0.0;
  double cpu_fraction = -1.0, model_fraction = -1.0, t_model = 0.0, t_zero = 0.0;
  if (strcmp(vn, "hybrid") == 0)
    cpu_fraction = p.run.cpu_fraction >= 0.0 ? p.run.cpu_fraction
                                             : (model_fraction = kit_cpu_share(host_bw / env.nranks, dev_bw, KIT_HYBRID_DERATE));

  /* The edge list, sliced by edge index over the ranks (untimed, Graph500 step 1). */
  bfs_edges slice = {0, 0, 0, 0, NULL};
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  double t0 = kit_now();
  if (p.graph) {
    int *counts = kit_malloc((size_t)env.nranks * sizeof(int), "counts"), *displs = kit_malloc((size_t)env.nranks * sizeof(int), "displs");
    for (int r = 0; r < env.nranks; ++r) {
      const int64_t c = 2 * bfs_block_count(M, env.nranks, r), d = 2 * bfs_block_begin(M, env.nranks, r);
      if (d + c > 2147483647LL) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "a graph file of %lld edges is too large to scatter", (long long)M);
      counts[r] = (int)c;
      displs[r] = (int)d;
    }
    slice.n = N;
    slice.m_total = M;
    slice.first = bfs_block_begin(M, env.nranks, env.rank);
    slice.m = bfs_block_count(M, env.nranks, env.rank);
    slice.uv = kit_malloc((size_t)(2 * slice.m + 1) * sizeof(int64_t), "edge slice");
    KIT_MPI_CHECK(MPI_Scatterv(file.uv, counts, displs, MPI_INT64_T, slice.uv, counts[env.rank], MPI_INT64_T, 0, MPI_COMM_WORLD));
    free(counts);
    free(displs);
  } else {
    bfs_generate_slice(p.scale, p.edgefactor, p.run.seed, env.rank, env.nranks, &slice);
  }
  double mine = kit_now() - t0, generation_time = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &generation_time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  uint64_t hash = bfs_edges_hash(&slice), hash_all = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&hash, &hash_all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));

  /* Kernel 1 (timed): the distributed graph, and the variant's per-graph structures. */
  bfs_graph graph;
  bfs_ctx ctx = {&p, &env, &graph, bfs_transfer_mode(p.transfer), gpus_per_rank, cpu_fraction, p.prune};
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  t0 = kit_now();
  bfs_build(&slice, p.grid[0], p.grid[1], &env, &graph);
  void *st = v->setup(&ctx);
  mine = kit_now() - t0;
  double construction_time = 0.0;
  KIT_MPI_CHECK(MPI_Allreduce(&mine, &construction_time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  /* On one rank the slice is the whole generated list, which the checks need below. */
  bfs_edges kept = {0, 0, 0, 0, NULL};
  if (env.nranks == 1 && !p.graph && want_full) kept = slice;
  else bfs_edges_free(&slice);

  /* The search keys (untimed): degree >= 1 not counting self-loops, the same on every rank. */
  uint32_t *nonisolated = bfs_nonisolated(&graph);
  int64_t roots[64];
  int nbfs;
  if (root_given) {
    if (!bfs_bit_get(nonisolated, (int64_t)root_arg))
      return kit_finalize(kit_usage_error(&env, "bfs: --root %llu has no edge to another vertex (a search key needs degree >= 1)",
                                          (unsigned long long)root_arg));
    roots[0] = (int64_t)root_arg;
    nbfs = 1;
  } else {
    nbfs = bfs_sample_roots(nonisolated, N, p.run.seed, p.nroots, roots);
  }
  free(nonisolated);
  if (nbfs == 0) return kit_finalize(kit_usage_error(&env, "bfs: no vertex has an edge to another vertex: nothing to search"));

#ifdef KIT_HAVE_CUDA
  /* --cpu-fraction auto: Paper II's model proposes a share; searches from the first key with
   * that share and with none decide, so that the hybrid never loses to its GPU alone (the
   * states are rebuilt: untimed, after kernel 1). */
  if (model_fraction > 0.0) {
    int64_t words = 0, cpu_edges = 0, edges = 0, any = 0;
    bfs_hybrid_split(st, &words, &cpu_edges, &edges);
    KIT_MPI_CHECK(MPI_Allreduce(&words, &any, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
    if (any > 0) {
      t_model = time_searches(v, st, roots[0], 3);
      v->teardown(st);
      ctx.cpu_fraction = 0.0;
      st = v->setup(&ctx);
      t_zero = time_searches(v, st, roots[0], 3);
      if (t_model < t_zero) {
        v->teardown(st);
        ctx.cpu_fraction = model_fraction;
        st = v->setup(&ctx);
      }
      cpu_fraction = ctx.cpu_fraction;
      kit_log(&env, "bfs: hybrid auto: model share %.4f took %.3g s, share 0 took %.3g s for 3 searches: using %.4f",
              model_fraction, t_model, t_zero, cpu_fraction);
    }
  }
#endif

  /* What the checks need on rank 0: the whole input list and the oracle's CSR. */
  bfs_edges all = {0, 0, 0, 0, NULL};
  bfs_csr csr = {0, NULL, NULL};
  int64_t *parent = NULL;
  int32_t *level = NULL, *oracle = NULL;
  if (env.rank == 0 && want_full) {
    if (p.graph) {
      all = file;
      file.uv = NULL;
    } else if (kept.uv) {
      all = kept;
    } else {
      bfs_generate(p.scale, p.edgefactor, p.run.seed, 0, M, &all);
    }
    bfs_csr_build(all.uv, all.m, N, &csr);
    parent = kit_malloc((size_t)N * sizeof(int64_t), "gathered parents");
    level = kit_malloc((size_t)N * sizeof(int32_t), "gathered levels");
    oracle = kit_malloc((size_t)N * sizeof(int32_t), "oracle levels");
  }
  bfs_edges_free(&file);

  /* Warm-up and the profiled pass (phases, --trace), both untimed, from the first key. */
  for (int w = 0; w < p.run.warmup; ++w) v->run(st, roots[0]);
  kit_phases_reset();
  kit_profile_enable(1);
  v->run(st, roots[0]);
  kit_ranges_collect();
  kit_profile_enable(0);
  kit_timing timing;
  memset(&timing, 0, sizeof timing);
  timing.nphases = kit_phases_reduce(MPI_COMM_WORLD, 1.0, &timing.phase_names, &timing.phase_secs);
  if (p.run.trace) kit_trace_write(p.run.trace, MPI_COMM_WORLD);

  /* Kernel 2: every search timed on its own, then validated (untimed). */
  double times[64], nedges[64];
  int64_t *parent_own = kit_malloc((size_t)(graph.own_count + 1) * sizeof(int64_t), "parents");
  int32_t *level_own = kit_malloc((size_t)(graph.own_count + 1) * sizeof(int32_t), "levels");
  failures fail;
  memset(&fail, 0, sizeof fail);
  long long my_messages = 0, my_bytes = 0;
  int64_t expand_total = 0, fold_total = 0, unpruned_total = 0, max_levels = 0;
  bfs_traffic first = {0, 0, NULL}; /* the first search's levels, summed over ranks */
  for (int k = 0; k < nbfs; ++k) {
    KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t0 = kit_now();
    v->run(st, roots[k]);
    mine = kit_now() - t0;
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &times[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));

    v->fetch(st, parent_own, level_own);
    const int64_t nedge = bfs_traversed_edges(&graph, level_own);
    nedges[k] = (double)nedge;

    /* Traffic: this rank's totals for the report, every rank's levels summed for the table. */
    const bfs_traffic *tr = v->traffic(st);
    const int nl = tr->nlevels;
    enum { NT = 7 }; /* counters per level */
    int64_t *sum = kit_malloc((size_t)(NT * nl + 1) * sizeof(int64_t), "traffic");
    for (int l = 0; l < nl; ++l) {
      my_messages += tr->lv[l].messages;
      my_bytes += tr->lv[l].expand_bytes + tr->lv[l].fold_bytes;
      const int64_t row[NT] = {tr->lv[l].frontier, tr->lv[l].expand_bytes, tr->lv[l].fold_bytes, tr->lv[l].list_bytes,
                               tr->lv[l].messages, tr->lv[l].bitmaps,      tr->lv[l].unpruned_bytes};
      memcpy(sum + NT * l, row, sizeof row);
    }
    KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sum, NT * nl, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    for (int l = 0; l < nl; ++l) {
      expand_total += sum[NT * l + 1];
      fold_total += sum[NT * l + 2];
      unpruned_total += sum[NT * l + 6];
      if (k == 0) {
        bfs_level_traffic *t = bfs_traffic_level(&first, l);
        t->frontier = tr->lv[l].frontier; /* already global */
        t->expand_bytes = sum[NT * l + 1];
        t->fold_bytes = sum[NT * l + 2];
        t->list_bytes = sum[NT * l + 3];
        t->messages = sum[NT * l + 4];
        t->bitmaps = sum[NT * l + 5];
        t->unpruned_bytes = sum[NT * l + 6];
      }
    }
    if (nl > max_levels) max_levels = nl;
    free(sum);

    if (want_full && (p.run.verify || k == 0)) {
      gather(&graph, &env, parent_own, level_own, parent, level);
      if (env.rank == 0 && p.run.verify) check_search(&csr, &all, roots[k], parent, level, oracle, nedge, &fail);
      if (env.rank == 0 && k == 0 && p.dump_parents) {
        FILE *f = kit_output_open("--dump-parents", p.dump_parents, "wb");
        fwrite(parent, sizeof(int64_t), (size_t)N, f);
        kit_output_close(f, "--dump-parents", p.dump_parents); /* a short write is checked here (ferror) */
      }
    }
  }

  /* The Graph500 output block, the first search's levels, then the kit's report. */
  bfs_g500_stats teps;
  bfs_g500_teps(nedges, times, nbfs, &teps);
  double mean_nedge = 0.0;
  for (int k = 0; k < nbfs; ++k) mean_nedge += nedges[k] / nbfs;
  int64_t peak = 0; /* the level whose messages would be longest as lists */
  for (int l = 0; l < first.nlevels; ++l)
    if (first.lv[l].list_bytes > first.lv[peak].list_bytes) peak = l;
  const double peak_bytes = first.nlevels ? (double)(first.lv[peak].expand_bytes + first.lv[peak].fold_bytes) : 0.0;
  const double peak_list = first.nlevels ? (double)first.lv[peak].list_bytes : 0.0;
  if (env.rank == 0) {
    if (p.graph) {
      printf("%-28s %s\n", "graph:", p.graph);
      printf("%-28s %lld\n", "nvertices:", (long long)N);
      printf("%-28s %lld\n", "nedges_input:", (long long)M);
    } else {
      printf("%-28s %d\n", "SCALE:", p.scale);
      printf("%-28s %d\n", "edgefactor:", p.edgefactor);
    }
    printf("%-28s %d\n", "NBFS:", nbfs);
    printf("%-28s %.12g\n", "graph_generation:", generation_time);
    printf("%-28s %d\n", "num_mpi_processes:", env.nranks);
    printf("%-28s %.12g\n", "construction_time:", construction_time);
    bfs_g500_print(stdout, times, nedges, nbfs);
    printf("%-28s 0x%016llx\n", "edge_list_hash:", (unsigned long long)hash_all);
    printf("%-28s %dx%d, transfer %s%s\n", "grid:", p.grid[0], p.grid[1], p.transfer, p.prune ? ", pruned" : "");
    printf("levels of the first search (root %lld), bytes to other ranks summed over ranks:\n", (long long)roots[0]);
    /* With --prune a last column gives the expand + fold bytes the same messages had before
     * the sort-unique, so one run shows both. */
    printf("  %5s %12s %14s %14s %14s %9s %8s", "level", "frontier", "expand_bytes", "fold_bytes", "as_lists", "messages",
           "bitmaps");
    printf(p.prune ? " %14s\n" : "\n", "unpruned");
    for (int l = 0; l < first.nlevels; ++l) {
      printf("  %5d %12lld %14lld %14lld %14lld %9lld %8lld", l, (long long)first.lv[l].frontier,
             (long long)first.lv[l].expand_bytes, (long long)first.lv[l].fold_bytes, (long long)first.lv[l].list_bytes,
             (long long)first.lv[l].messages, (long long)first.lv[l].bitmaps);
      if (p.prune) printf(" %14lld", (long long)first.lv[l].unpruned_bytes);
      printf("\n");
    }
    fflush(stdout);
  }

  kit_report rep;
  kit_report_init(&rep, "bfs", v->name);
  kit_json *pj = &rep.params;
  if (p.graph) {
    kit_json_string(pj, "graph", p.graph);
  } else {
    kit_json_int(pj, "scale", p.scale);
    kit_json_int(pj, "edgefactor", p.edgefactor);
  }
  kit_json_int(pj, "nvertices", N);
  kit_json_int(pj, "nedges", M);
  kit_json_int(pj, "grid_rows", p.grid[0]);
  kit_json_int(pj, "grid_cols", p.grid[1]);
  kit_json_string(pj, "transfer", p.transfer);
  kit_json_bool(pj, "prune", p.prune);
  /* BFS_DISCOVER=thread|edges overrides a GPU variant's discovery kernel (labs): record it, so
   * two runs that differ only there can be told apart. */
  kit_json_string(pj, "discover", getenv("BFS_DISCOVER") ? getenv("BFS_DISCOVER") : "variant default");
  kit_json_int(pj, "nbfs", nbfs);
  kit_json_int(pj, "root", root_given ? (long long)root_arg : -1);
  {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p.run.seed);
    kit_json_raw(pj, "seed", seed);
  }
  kit_json_int(pj, "warmup", p.run.warmup);
  kit_json_end_object(pj);

  timing.time = kit_stats_of(times, nbfs);
  timing.reps = nbfs;
  timing.iters = 1;
  kit_report_fill_run(&rep, &env, &timing, gpus_total, cpu_fraction);
  kit_report_fom(&rep, "harmonic_mean_GTEPS", "GTEPS", teps.mean * 1e-9);
  /* Bytes one search must move at least: each traversed edge read once in both directions
   * as a 4-byte index, and a parent (8 bytes) and a level (4 bytes) written per vertex. */
  const double ceiling = (v->needs_gpu ? dev_bw * gpus_total : 0.0) + (uses_host ? host_bw : 0.0);
  kit_report_bandwidth(&rep, 8.0 * mean_nedge + 12.0 * (double)N, 1, ceiling,
                       !v->needs_gpu ? "host triad x nodes"
                                     : uses_host ? "device triad x GPUs + host triad x nodes" : "device triad x GPUs");
  kit_report_messages(&rep, my_messages, my_bytes, nbfs);
  kit_report_result(&rep, "construction_time", construction_time, "s");
  kit_report_result(&rep, "generation_time", generation_time, "s");
  kit_report_result(&rep, "harmonic_mean_TEPS", teps.mean, "TEPS");
  kit_report_result(&rep, "harmonic_stddev_TEPS", teps.stddev, "TEPS");
  kit_report_result(&rep, "mean_nedge", mean_nedge, "edges");
  kit_report_result(&rep, "max_levels", (double)max_levels, "levels");
  kit_report_result(&rep, "expand_bytes_per_search", (double)expand_total / nbfs, "B");
  kit_report_result(&rep, "fold_bytes_per_search", (double)fold_total / nbfs, "B");
  /* Expand + fold bytes the same messages had before --prune's sort-unique (without --prune:
   * their sum), so the pruning's saving is unpruned - expand - fold. */
  kit_report_result(&rep, "unpruned_bytes_per_search", (double)unpruned_total / nbfs, "B");
  kit_report_result(&rep, "peak_level_bytes", peak_bytes, "B");
  kit_report_result(&rep, "peak_level_bytes_as_lists", peak_list, "B");
  kit_report_result(&rep, "bitmap_reduction_peak", peak_bytes > 0 ? peak_list / peak_bytes : 1.0, "x");
  (void)t_model; /* read only by the hybrid's report (CUDA builds) */
  (void)t_zero;
#ifdef KIT_HAVE_CUDA
  if (v == &bfs_hybrid) {
    /* The split actually used, summed over ranks, and the model behind an automatic one. */
    int64_t mine_split[3], all_split[3];
    bfs_hybrid_split(st, &mine_split[0], &mine_split[1], &mine_split[2]);
    KIT_MPI_CHECK(MPI_Allreduce(mine_split, all_split, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    kit_report_result(&rep, "cpu_row_vertices", 32.0 * (double)all_split[0], "vertices");
    kit_report_result(&rep, "cpu_edge_share", all_split[2] > 0 ? (double)all_split[1] / (double)all_split[2] : 0.0, "");
    if (model_fraction >= 0.0) kit_report_result(&rep, "cpu_fraction_model", model_fraction, "");
    if (t_model > 0.0) {
      kit_report_result(&rep, "calibration_model_s", t_model, "s");
      kit_report_result(&rep, "calibration_gpu_only_s", t_zero, "s");
    }
  }
#endif

  if (p.run.verify) {
    int64_t f[9] = {fail.rules.root, fail.rules.tree, fail.rules.tree_levels, fail.rules.edge_levels, fail.rules.spans,
                    fail.rules.parent_edges, fail.levels, fail.nedge, 0};
    double maxdiff = fail.max_level_diff;
    KIT_MPI_CHECK(MPI_Bcast(f, 9, MPI_INT64_T, 0, MPI_COMM_WORLD));
    KIT_MPI_CHECK(MPI_Bcast(&maxdiff, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    report_rule(&rep, "g500_root", f[0], nbfs, "searches whose root is not its own parent at level 0");
    report_rule(&rep, "g500_1_tree", f[1], nbfs, "reached vertices off the tree (cycle or broken chain)");
    report_rule(&rep, "g500_2_tree_levels", f[2], nbfs, "tree edges not one level apart");
    report_rule(&rep, "g500_3_edge_levels", f[3], nbfs, "input edges more than one level apart");
    report_rule(&rep, "g500_4_spans", f[4], nbfs, "input edges leaving the reached component");
    report_rule(&rep, "g500_5_parent_edges", f[5], nbfs, "parent links that are not input edges");
    report_rule(&rep, "oracle_levels", f[6], nbfs, "vertex levels differing from the serial oracle");
    report_rule(&rep, "nedge", f[7], nbfs, "searches whose TEPS edge count differs from the input list's");
    rep.reference = "serial BFS oracle (reference.c) on rank 0, from the input edge list";
    rep.max_abs_diff = maxdiff;
    rep.max_rel_diff = 0.0;
  }

  const int code = kit_report_finish(&rep, &env, p.run.json);
  kit_report_free(&rep);
  v->teardown(st);
  bfs_graph_free(&graph);
  bfs_edges_free(&all);
  bfs_csr_free(&csr);
  free(parent);
  free(level);
  free(oracle);
  free(parent_own);
  free(level_own);
  free(first.lv);
  return kit_finalize(code);
}
