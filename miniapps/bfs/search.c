/* search.c: bfs's timed run (kit_app.timed), Graph500 "Kernel 2": not repetitions of time
 * steps but one search per key, each timed on its own (the max over ranks, after a
 * barrier), then validated untimed (the specification's "Validation", rank 0, against the
 * input list and the serial oracle). Before them, as kit_main's loop does for other apps:
 * --warmup searches and one profiled search (phases, --trace) from the first key, untimed.
 * It also keeps each search's traffic: this rank's totals and the first search's per-level
 * table summed over ranks (Bernaschi et al. Sec. 3.3's expand and fold bytes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/stats.h"
#include "partition.h"
#include "run.h"

/* Rank 0 gets the parent and level arrays in vertex order (others get NULL). */
static void gather(const bfs_graph *g, const kit_env *env, const int64_t *parent_own,
                   const int32_t *level_own, int64_t *parent, int32_t *level) {
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
  KIT_MPI_CHECK(
      MPI_Gatherv(parent_own, mine, MPI_INT64_T, parent, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD));
  KIT_MPI_CHECK(
      MPI_Gatherv(level_own, mine, MPI_INT32_T, level, counts, displs, MPI_INT32_T, 0, MPI_COMM_WORLD));
  free(counts);
  free(displs);
}

/* Rank 0's check of one search: the five Graph500 rules, the edge count and the oracle. */
static void check_search(bfs_run *r, int64_t root, int64_t nedge_dist) {
  bfs_failures *f = &r->fail;
  bfs_validation v;
  bfs_validate(&r->csr, r->all.uv, r->all.m, root, r->parent, r->level, &v);
  f->rules.root += v.root;
  f->rules.tree += v.tree;
  f->rules.tree_levels += v.tree_levels;
  f->rules.edge_levels += v.edge_levels;
  f->rules.spans += v.spans;
  f->rules.parent_edges += v.parent_edges;
  f->nedge += v.nedge != nedge_dist;
  bfs_reference(&r->csr, root, r->oracle);
  for (int64_t x = 0; x < r->csr.n; ++x)
    if (r->level[x] != r->oracle[x]) {
      f->levels++;
      const double d =
          (r->level[x] < 0 || r->oracle[x] < 0) ? (double)r->csr.n : fabs((double)r->level[x] - r->oracle[x]);
      if (d > f->max_level_diff) f->max_level_diff = d;
    }
}

/* Search k's traffic: this rank's totals for the report, every rank's levels summed for the
 * totals and (k = 0) the table. */
static void record_traffic(bfs_run *r, const bfs_traffic *tr, int k) {
  const int nl = tr->nlevels;
  enum { NT = 7 }; /* counters per level */
  int64_t *sum = kit_malloc((size_t)(NT * nl + 1) * sizeof(int64_t), "traffic");
  for (int l = 0; l < nl; ++l) {
    r->bottom_up_levels += tr->lv[l].bottom_up; /* the same on every rank */
    r->top_down_levels += !tr->lv[l].bottom_up;
    r->messages += tr->lv[l].messages;
    r->bytes += tr->lv[l].expand_bytes + tr->lv[l].fold_bytes;
    const int64_t row[NT] = {tr->lv[l].frontier,      tr->lv[l].expand_bytes, tr->lv[l].fold_bytes,
                             tr->lv[l].list_bytes,    tr->lv[l].messages,     tr->lv[l].bitmaps,
                             tr->lv[l].unpruned_bytes};
    memcpy(sum + NT * l, row, sizeof row);
  }
  KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sum, NT * nl, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  for (int l = 0; l < nl; ++l) {
    r->expand_total += sum[NT * l + 1];
    r->fold_total += sum[NT * l + 2];
    r->unpruned_total += sum[NT * l + 6];
    if (k == 0) {
      bfs_level_traffic *t = bfs_traffic_level(&r->first, l);
      t->frontier = tr->lv[l].frontier; /* already global */
      t->expand_bytes = sum[NT * l + 1];
      t->fold_bytes = sum[NT * l + 2];
      t->list_bytes = sum[NT * l + 3];
      t->messages = sum[NT * l + 4];
      t->bitmaps = sum[NT * l + 5];
      t->unpruned_bytes = sum[NT * l + 6];
      t->bottom_up = tr->lv[l].bottom_up;
    }
  }
  if (nl > r->max_levels) r->max_levels = nl;
  free(sum);
}

/* --frontier-table: search k's next-level frontier arrays (frontier.c), counted from its
 * levels after the search (untimed): every search's sums, and the first search's levels. */
static void record_nlfs(bfs_run *r, const int32_t *level_own, int k) {
  int64_t *c = NULL;
  const int nl = bfs_nlfs_search(&r->graph, level_own, &c);
  for (int l = 0; l < nl; ++l)
    for (int q = 0; q < BFS_NLFS_NCOUNT; ++q) r->nlfs_total[q] += c[BFS_NLFS_NCOUNT * l + q];
  if (k == 0) {
    r->nlfs_first = c;
    r->nlfs_levels = nl;
  } else {
    free(c);
  }
}

int bfs_timed(void *ctx, const kit_variant *kv, void *st, kit_timing *t) {
  bfs_run *r = ctx;
  const bfs_variant *v = (const bfs_variant *)kv; /* kit_variant is its first member */
  const bfs_params *p = &r->a->p;
  const kit_env *env = r->c.env;

  /* Warm-up and the profiled pass (phases, --trace), both untimed, from the first key. */
  kit_progress pr = kit_progress_start(&p->run);
  /* The keys are input labels; a variant searches the graph kernel 1 built (cyclic: relabelled). */
  for (int w = 0; w < p->run.warmup; ++w) v->search(st, r->c.first_key);
  kit_phases_reset();
  kit_profile_enable(1);
  v->search(st, r->c.first_key);
  kit_ranges_collect();
  kit_profile_enable(0);
  memset(t, 0, sizeof *t);
  t->nphases = kit_phases_reduce(MPI_COMM_WORLD, 1.0, &t->phase_names, &t->phase_secs);
  if (p->run.trace) kit_trace_write(p->run.trace, MPI_COMM_WORLD);

  /* Kernel 2: every search timed on its own, then validated (untimed). */
  int64_t *parent_own = kit_malloc((size_t)(r->graph.own_count + 1) * sizeof(int64_t), "parents");
  int32_t *level_own = kit_malloc((size_t)(r->graph.own_count + 1) * sizeof(int32_t), "levels");
  const double searches_start = kit_now();
  for (int k = 0; k < r->nbfs; ++k) {
    KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = kit_now();
    v->search(st, bfs_internal_vertex(r, r->roots[k]));
    double mine = kit_now() - t0;
    KIT_MPI_CHECK(MPI_Allreduce(&mine, &r->times[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));

    v->fetch(st, parent_own, level_own);
    const int64_t nedge = bfs_traversed_edges(&r->graph, level_own);
    r->nedges[k] = (double)nedge;
    record_traffic(r, v->traffic(st), k);
    /* --message-matrix: the first timed search's levels, pair by pair (matrix.c). */
    if (k == 0 && p->message_matrix)
      bfs_message_matrix_write(&r->graph, env, v->traffic(st), p->message_matrix);
    if (p->frontier_table) record_nlfs(r, level_own, k);

    if (r->want_full && (p->run.verify || k == 0)) {
      gather(&r->graph, env, parent_own, level_own, r->parent, r->level);
      if (env->rank == 0) bfs_input_order(r); /* cyclic: back to input labels */
      if (env->rank == 0 && p->run.verify) check_search(r, r->roots[k], nedge);
      if (env->rank == 0 && k == 0 && p->dump_parents) {
        FILE *f = kit_output_open("--dump-parents", p->dump_parents, "wb");
        fwrite(r->parent, sizeof(int64_t), (size_t)r->graph.n, f);
        kit_output_close(f, "--dump-parents", p->dump_parents); /* a short write is checked here (ferror) */
      }
    }
    /* A long run says how far it is (searches and their validation: the time left). */
    kit_progress_line(&pr, "search", k + 1, r->nbfs, (kit_now() - searches_start) / (k + 1));
  }
  free(parent_own);
  free(level_own);

  /* Graph500's statistics: the figure of merit is the harmonic mean of TEPS (kit_app.measure). */
  bfs_g500_teps(r->nedges, r->times, r->nbfs, &r->teps);
  r->mean_nedge = 0.0;
  for (int k = 0; k < r->nbfs; ++k) r->mean_nedge += r->nedges[k] / r->nbfs;
  t->time = kit_stats_of(r->times, r->nbfs);
  t->reps = r->nbfs;
  t->iters = 1;
  return 1;
}
