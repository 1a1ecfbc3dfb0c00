/* report.c: bfs's own output after the searches (kit_app.finish): the Graph500 output block
 * (the specification's "Computing and Outputting Performance Information", statistics in
 * g500.c), the first search's per-level traffic table (Bernaschi et al. Sec. 3.3's expand
 * and fold, Rossetti's list/bitmap and pruning comparisons), then the kit report's results,
 * the hybrid's split and the validation rules (the specification's "Validation"). The
 * block is printed before kit_main prints the kit's report, as the reference code does. */
#include <stdio.h>
#include <stdlib.h>

#include "kit/check.h"
#include "run.h"

/* m / n, or 0 when n is 0. */
static double ratio(int64_t m, int64_t n) {
  return n > 0 ? (double)m / (double)n : 0.0;
}

/* --frontier-table: the first search's next-level frontier arrays, the slides' table
 * ("NLFS" and "NLFS-after-SU" per level) with their ratio; frontier.c says what is counted. */
static void print_nlfs(const bfs_run *r) {
  const bfs_traffic *first = &r->first;
  printf(
      "next-level frontier arrays of the first search (Rossetti's recipes 1-3: m entries, n after "
      "sort-unique; remote: owned by another rank), summed over ranks:\n");
  printf("  %5s %4s %12s %14s %14s %9s %14s %14s\n", "level", "dir", "frontier", "m", "n", "m/n", "m_remote",
         "n_remote");
  int64_t sum[BFS_NLFS_NCOUNT] = {0, 0, 0, 0}, fsum = 0;
  for (int l = 0; l < r->nlfs_levels; ++l) {
    const int64_t *c = r->nlfs_first + BFS_NLFS_NCOUNT * l;
    const int64_t fr = l < first->nlevels ? first->lv[l].frontier : 0;
    const char *dir = l < first->nlevels ? (first->lv[l].bottom_up ? "BU" : "TD") : "-";
    printf("  %5d %4s %12lld %14lld %14lld %9.2f %14lld %14lld\n", l, dir, (long long)fr,
           (long long)c[BFS_NLFS_M], (long long)c[BFS_NLFS_N], ratio(c[BFS_NLFS_M], c[BFS_NLFS_N]),
           (long long)c[BFS_NLFS_M_REMOTE], (long long)c[BFS_NLFS_N_REMOTE]);
    for (int q = 0; q < BFS_NLFS_NCOUNT; ++q) sum[q] += c[q];
    fsum += fr;
  }
  printf("  %5s %4s %12lld %14lld %14lld %9.2f %14lld %14lld\n", "total", "-", (long long)fsum,
         (long long)sum[BFS_NLFS_M], (long long)sum[BFS_NLFS_N], ratio(sum[BFS_NLFS_M], sum[BFS_NLFS_N]),
         (long long)sum[BFS_NLFS_M_REMOTE], (long long)sum[BFS_NLFS_N_REMOTE]);
}

/* The Graph500 block and the first search's levels, on rank 0. */
static void print_g500(const bfs_run *r, double construction_time) {
  const bfs_params *p = &r->a->p;
  const bfs_traffic *first = &r->first;
  if (p->graph) {
    printf("%-28s %s\n", "graph:", p->graph);
    printf("%-28s %lld\n", "nvertices:", (long long)r->a->n);
    printf("%-28s %lld\n", "nedges_input:", (long long)r->a->m);
  } else {
    printf("%-28s %d\n", "SCALE:", p->scale);
    printf("%-28s %d\n", "edgefactor:", p->edgefactor);
  }
  printf("%-28s %d\n", "NBFS:", r->nbfs);
  printf("%-28s %.12g\n", "graph_generation:", r->generation_time);
  printf("%-28s %d\n", "num_mpi_processes:", r->c.env->nranks);
  printf("%-28s %.12g\n", "construction_time:", construction_time);
  bfs_g500_print(stdout, r->times, r->nedges, r->nbfs);
  printf("%-28s 0x%016llx\n", "edge_list_hash:", (unsigned long long)r->hash);
  printf("%-28s %dx%d, %s partition (edge imbalance %.4f), transfer %s%s\n", "grid:", p->grid[0], p->grid[1],
         p->partition, r->edge_imbalance, p->transfer, p->prune ? ", pruned" : "");
  /* Directions (direction.h): every search's levels, and the first search's in order. */
  printf("%-28s %s: %lld levels top-down, %lld bottom-up over %d searches\n", "direction:", p->direction,
         (long long)r->top_down_levels, (long long)r->bottom_up_levels, r->nbfs);
  printf("%-28s", "first_search_directions:");
  for (int l = 0; l < first->nlevels; ++l) printf(" %s", first->lv[l].bottom_up ? "BU" : "TD");
  printf("\n");
  printf("levels of the first search (root %lld), bytes to other ranks summed over ranks:\n",
         (long long)r->roots[0]);
  /* With --prune a last column gives the expand + fold bytes the same messages had before
   * the sort-unique, so one run shows both. */
  printf("  %5s %12s %14s %14s %14s %9s %8s", "level", "frontier", "expand_bytes", "fold_bytes", "as_lists",
         "messages", "bitmaps");
  printf(p->prune ? " %14s\n" : "\n", "unpruned");
  for (int l = 0; l < first->nlevels; ++l) {
    const bfs_level_traffic *t = &first->lv[l];
    printf("  %5d %12lld %14lld %14lld %14lld %9lld %8lld", l, (long long)t->frontier,
           (long long)t->expand_bytes, (long long)t->fold_bytes, (long long)t->list_bytes,
           (long long)t->messages, (long long)t->bitmaps);
    if (p->prune) printf(" %14lld", (long long)t->unpruned_bytes);
    printf("\n");
  }
  if (p->frontier_table) print_nlfs(r);
  fflush(stdout);
}

static void report_rule(kit_report *rep, const char *name, int64_t bad, int nbfs, const char *what) {
  kit_report_check(rep, name, bad == 0 ? KIT_VERIFY_PASSED : KIT_VERIFY_FAILED, (double)bad, 0.0,
                   "%lld %s over %d searches", (long long)bad, what, nbfs);
}

/* The failed rules counted on rank 0, known to every rank (the verdict is collective). */
static void report_validation(const bfs_run *r, kit_report *rep) {
  const bfs_failures *fl = &r->fail;
  int64_t f[9] = {fl->rules.root,
                  fl->rules.tree,
                  fl->rules.tree_levels,
                  fl->rules.edge_levels,
                  fl->rules.spans,
                  fl->rules.parent_edges,
                  fl->levels,
                  fl->nedge,
                  0};
  double maxdiff = fl->max_level_diff;
  KIT_MPI_CHECK(MPI_Bcast(f, 9, MPI_INT64_T, 0, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Bcast(&maxdiff, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  const int n = r->nbfs;
  report_rule(rep, "g500_root", f[0], n, "searches whose root is not its own parent at level 0");
  report_rule(rep, "g500_1_tree", f[1], n, "reached vertices off the tree (cycle or broken chain)");
  report_rule(rep, "g500_2_tree_levels", f[2], n, "tree edges not one level apart");
  report_rule(rep, "g500_3_edge_levels", f[3], n, "input edges more than one level apart");
  report_rule(rep, "g500_4_spans", f[4], n, "input edges leaving the reached component");
  report_rule(rep, "g500_5_parent_edges", f[5], n, "parent links that are not input edges");
  report_rule(rep, "oracle_levels", f[6], n, "vertex levels differing from the serial oracle");
  report_rule(rep, "nedge", f[7], n, "searches whose TEPS edge count differs from the input list's");
  rep->reference = "serial BFS oracle (reference.c) on rank 0, from the input edge list";
  rep->max_abs_diff = maxdiff;
  rep->max_rel_diff = 0.0;
}

void bfs_finish(void *ctx, const kit_variant *v, void *st, const kit_timing *t, kit_report *rep) {
  const bfs_run *r = ctx;
  const int nbfs = r->nbfs;
  /* Kernel 1 is the graph build (setup.c) and the variant's per-graph set-up (kit_main's). */
  const double construction_time = r->build_time + t->setup_s;
  const bfs_traffic *first = &r->first;
  int64_t peak = 0; /* the level whose messages would be longest as lists */
  for (int l = 0; l < first->nlevels; ++l)
    if (first->lv[l].list_bytes > first->lv[peak].list_bytes) peak = l;
  const double peak_bytes =
      first->nlevels ? (double)(first->lv[peak].expand_bytes + first->lv[peak].fold_bytes) : 0.0;
  const double peak_list = first->nlevels ? (double)first->lv[peak].list_bytes : 0.0;
  if (r->c.env->rank == 0) print_g500(r, construction_time);

  kit_report_messages(rep, r->messages, r->bytes, nbfs);
  kit_report_result(rep, "construction_time", construction_time, "s");
  kit_report_result(rep, "generation_time", r->generation_time, "s");
  kit_report_result(rep, "edge_imbalance", r->edge_imbalance, "x");
  kit_report_result(rep, "harmonic_mean_TEPS", r->teps.mean, "TEPS");
  kit_report_result(rep, "harmonic_stddev_TEPS", r->teps.stddev, "TEPS");
  kit_report_result(rep, "mean_nedge", r->mean_nedge, "edges");
  kit_report_result(rep, "max_levels", (double)r->max_levels, "levels");
  kit_report_result(rep, "bottom_up_levels", (double)r->bottom_up_levels, "levels");
  kit_report_result(rep, "top_down_levels", (double)r->top_down_levels, "levels");
  kit_report_result(rep, "expand_bytes_per_search", (double)r->expand_total / nbfs, "B");
  kit_report_result(rep, "fold_bytes_per_search", (double)r->fold_total / nbfs, "B");
  /* Expand + fold bytes the same messages had before --prune's sort-unique (without --prune:
   * their sum), so the pruning's saving is unpruned - expand - fold. */
  kit_report_result(rep, "unpruned_bytes_per_search", (double)r->unpruned_total / nbfs, "B");
  kit_report_result(rep, "peak_level_bytes", peak_bytes, "B");
  kit_report_result(rep, "peak_level_bytes_as_lists", peak_list, "B");
  kit_report_result(rep, "bitmap_reduction_peak", peak_bytes > 0 ? peak_list / peak_bytes : 1.0, "x");
  if (r->a->p.frontier_table) { /* every search's next-level frontier arrays (frontier.c) */
    const int64_t *c = r->nlfs_total;
    kit_report_result(rep, "nlfs_per_search", (double)c[BFS_NLFS_M] / nbfs, "entries");
    kit_report_result(rep, "nlfs_unique_per_search", (double)c[BFS_NLFS_N] / nbfs, "entries");
    kit_report_result(rep, "unique_ratio", ratio(c[BFS_NLFS_M], c[BFS_NLFS_N]), "x");
    kit_report_result(rep, "nlfs_remote_per_search", (double)c[BFS_NLFS_M_REMOTE] / nbfs, "entries");
    kit_report_result(rep, "nlfs_remote_unique_per_search", (double)c[BFS_NLFS_N_REMOTE] / nbfs, "entries");
  }
#ifdef KIT_HAVE_CUDA
  if (v == &bfs_hybrid.base) {
    /* The split actually used, summed over ranks (kit_main reports the model and the
     * calibration: kit_app.cpu_unit is NULL, the split is in words, not whole units). */
    int64_t mine[3], all[3];
    bfs_hybrid_split(st, &mine[0], &mine[1], &mine[2]);
    KIT_MPI_CHECK(MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    kit_report_result(rep, "cpu_row_vertices", 32.0 * (double)all[0], "vertices");
    kit_report_result(rep, "cpu_edge_share", all[2] > 0 ? (double)all[1] / (double)all[2] : 0.0, "");
  }
#else
  (void)v;
  (void)st;
#endif
  if (r->a->p.run.verify) report_validation(r, rep);
}
