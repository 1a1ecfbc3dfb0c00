/* matrix.c: --message-matrix FILE, the network pattern of one search (Rossetti et al.'s
 * slides draw it per level): for every level, the payload bytes each rank sent each other
 * rank in the expand (column) and in the fold (row), as two P x P matrices (P = R*C, rows:
 * sender, columns: receiver, both world ranks i*C + j). The entries follow exchange.h's
 * counting rules exactly: payload only, no headers, and a rank's message to itself is a
 * local copy that is not counted (the diagonal is zero). So row s of a level's expand
 * matrix sums to rank s's expand_bytes of that level, and the whole of every level's two
 * matrices to the search's expand and fold totals. The expand message is one allgather:
 * each of the R - 1 other column members gets the same expand_bytes / (R - 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "kit/check.h"
#include "kit/driver.h"

static void write_row(FILE *f, const int64_t *m, int P, int s) {
  fputc('[', f);
  for (int d = 0; d < P; ++d) fprintf(f, "%s%lld", d ? "," : "", (long long)m[(int64_t)s * P + d]);
  fputc(']', f);
}

static void write_matrix(FILE *f, const char *key, const int64_t *m, int P) {
  fprintf(f, "\"%s\":[", key);
  for (int s = 0; s < P; ++s) {
    if (s) fputc(',', f);
    write_row(f, m, P, s);
  }
  fputc(']', f);
}

void bfs_message_matrix_write(const bfs_graph *g, const kit_env *env, const bfs_traffic *tr,
                              const char *path) {
  const int R = g->R, C = g->C, P = R * C, nl = tr->nlevels, W = 1 + C; /* per level: expand, fold[C] */
  int64_t *mine = kit_malloc((size_t)(nl * W + 1) * sizeof(int64_t), "message matrix");
  for (int l = 0; l < nl; ++l) {
    const bfs_level_traffic *t = &tr->lv[l];
    mine[W * l] = R > 1 ? t->expand_bytes / (R - 1) : 0;
    for (int jj = 0; jj < C; ++jj) mine[W * l + 1 + jj] = t->fold_to ? t->fold_to[jj] : 0;
  }
  int64_t *all =
      env->rank == 0 ? kit_malloc((size_t)P * (nl * W + 1) * sizeof(int64_t), "message matrix") : NULL;
  KIT_MPI_CHECK(MPI_Gather(mine, nl * W, MPI_INT64_T, all, nl * W, MPI_INT64_T, 0, MPI_COMM_WORLD));
  free(mine);
  if (env->rank != 0) return;
  int64_t *ex = kit_malloc((size_t)P * P * sizeof(int64_t), "message matrix");
  int64_t *fo = kit_malloc((size_t)P * P * sizeof(int64_t), "message matrix");
  FILE *f = kit_output_open("--message-matrix", path, "w");
  for (int l = 0; l < nl; ++l) {
    memset(ex, 0, (size_t)P * P * sizeof(int64_t));
    memset(fo, 0, (size_t)P * P * sizeof(int64_t));
    for (int s = 0; s < P; ++s) {
      const int i = s / C, j = s % C;
      const int64_t *rec = all + (int64_t)s * nl * W + (int64_t)W * l;
      for (int ii = 0; ii < R; ++ii)
        if (ii != i) ex[(int64_t)s * P + ii * C + j] = rec[0];
      for (int jj = 0; jj < C; ++jj)
        if (jj != j) fo[(int64_t)s * P + i * C + jj] = rec[1 + jj];
    }
    fprintf(f,
            "{\"schema\":\"bfs.message_matrix/"
            "1\",\"level\":%d,\"direction\":\"%s\",\"grid_rows\":%d,\"grid_cols\":%d,",
            l, tr->lv[l].bottom_up ? "bottom-up" : "top-down", R, C);
    write_matrix(f, "expand", ex, P);
    fputc(',', f);
    write_matrix(f, "fold", fo, P);
    fputs("}\n", f);
  }
  kit_output_close(f, "--message-matrix", path);
  free(ex);
  free(fo);
  free(all);
}
