/* fuzz_bfs_graph.c: libFuzzer harness for bfs's graph readers (--graph: Matrix Market and
 * edge lists, miniapps/bfs/graph_io.c) and the set-up that follows them in the driver. The
 * input is written to a file, named .mtx or .el by its first byte, and read; the reader must
 * never crash, read out of bounds or hang, must give a reason (one printable line) whenever
 * it refuses, and every graph it accepts must have edges whose endpoints are vertices of it.
 * Then, as far as one process can go:
 *   the 2D partition (partition.h) for the grids of 1 to 12 ranks the graph allows (N >= R C,
 *     as main.c requires): every vertex in exactly one block, blocks consecutive and covering
 *     0..N-1, every directed entry on a rank of the grid;
 *   kernel 1 (bfs_build, build.c) on a 1 x 1 grid, for graphs small enough to build here:
 *     the CSR must hold exactly the two directed halves of every edge that is not a self-loop,
 *     in input order, self-loops counted at their vertex, every index inside its space;
 *   the search keys (bfs_nonisolated, bfs_sample_roots): distinct vertices with an edge.
 * bash ci/fuzz.sh [SECONDS] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "bitmap.h"
#include "fuzz_file.h"
#include "partition.h"

/* Largest graph built here: kernel 1 sizes its arrays by N (the driver checks the memory
 * first, kit_check_memory); beyond this the harness would measure malloc, not the code. */
#define FUZZ_MAX_BUILD ((int64_t)1 << 16)

/* The partition of n vertices over every R x C grid of up to 12 ranks with R C <= n. */
static void check_partition(const bfs_edges *e) {
  const int64_t n = e->n;
  for (int R = 1; R <= 12; ++R)
    for (int C = 1; R * C <= 12; ++C) {
      const int64_t P = (int64_t)R * C;
      if (P > n) continue;
      /* Blocks are consecutive and cover 0..n-1 with sizes differing by at most one. */
      int64_t next = 0;
      for (int64_t b = 0; b < P; ++b) {
        const int64_t begin = bfs_block_begin(n, P, b), count = bfs_block_count(n, P, b);
        if (begin != next || count < n / P || count > n / P + 1) abort();
        next = begin + count;
        /* Its first and last vertex map back to it (every vertex for small graphs). */
        if (bfs_block_of(n, P, begin) != b || bfs_block_of(n, P, begin + count - 1) != b) abort();
      }
      if (next != n) abort();
      if (n <= FUZZ_MAX_BUILD)
        for (int64_t v = 0; v < n; ++v) {
          const int64_t b = bfs_block_of(n, P, v);
          if (b < 0 || b >= P || v < bfs_block_begin(n, P, b) ||
              v >= bfs_block_begin(n, P, b) + bfs_block_count(n, P, b))
            abort();
        }
      /* Every directed entry u -> v goes to grid row of v's owner, column of u's owner. */
      for (int64_t k = 0; k < e->m; ++k) {
        const int64_t u = e->uv[2 * k], v = e->uv[2 * k + 1];
        const int64_t bu = bfs_block_of(n, P, u), bv = bfs_block_of(n, P, v);
        const int64_t ju = bu / R, iv = bv % R, rank = iv * C + ju;
        if (ju < 0 || ju >= C || iv < 0 || iv >= R || rank < 0 || rank >= P) abort();
      }
    }
}

/* MPICH's transport (UCX) keeps a few start-up allocations until the process ends; kernel 1
 * needs MPI, so LeakSanitizer is told about them (its documented hook), and only them. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libucs.so\nleak:libuct.so\nleak:libucp.so\n";
}

/* Kernel 1 on one rank against a serial construction of the same CSR. */
static void check_build(const bfs_edges *e) {
  static int mpi_up = 0;
  if (!mpi_up) {
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) MPI_Init(NULL, NULL);
    mpi_up = 1;
  }
  kit_env env;
  memset(&env, 0, sizeof env);
  env.rank = 0;
  env.nranks = 1;
  bfs_graph g;
  bfs_build(e, 1, 1, &env, &g);
  const int64_t n = e->n;
  if (g.n != n || g.own_begin != 0 || g.own_count != n || g.ncol != bfs_pad32(n) || g.nrow != bfs_pad32(n))
    abort();
  /* Expected: per source, the destinations in input order; self-loops counted. */
  int64_t *deg = calloc((size_t)n + 1, sizeof *deg);
  int32_t *loops = calloc((size_t)n + 1, sizeof *loops);
  for (int64_t k = 0; k < e->m; ++k) {
    const int64_t u = e->uv[2 * k], v = e->uv[2 * k + 1];
    if (u == v) {
      loops[u]++;
      continue;
    }
    deg[u]++;
    deg[v]++;
  }
  if (g.xoff[0] != 0) abort();
  for (int64_t x = 0; x < g.ncol; ++x) {
    const int64_t want = x < n ? deg[x] : 0;
    if (g.xoff[x + 1] - g.xoff[x] != want) abort();
  }
  for (int64_t v = 0; v < n; ++v)
    if (g.loops[v] != loops[v]) abort();
  int64_t *fill = calloc((size_t)n + 1, sizeof *fill);
  for (int64_t k = 0; k < e->m; ++k) {
    const int64_t u = e->uv[2 * k], v = e->uv[2 * k + 1];
    if (u == v) continue;
    if (g.adj[g.xoff[u] + fill[u]++] != (uint32_t)v) abort();
    if (g.adj[g.xoff[v] + fill[v]++] != (uint32_t)u) abort();
  }
  /* The search keys: distinct vertices with an edge other than a self-loop. */
  uint32_t *nonisolated = bfs_nonisolated(&g);
  int64_t eligible = 0;
  for (int64_t v = 0; v < n; ++v) {
    if (bfs_bit_get(nonisolated, v) != (deg[v] > 0)) abort();
    eligible += deg[v] > 0;
  }
  int64_t roots[8];
  const int got = bfs_sample_roots(nonisolated, n, 1, 8, roots);
  if (got != (eligible < 8 ? eligible : 8)) abort();
  for (int r = 0; r < got; ++r) {
    if (roots[r] < 0 || roots[r] >= n || deg[roots[r]] == 0) abort();
    for (int q = 0; q < r; ++q)
      if (roots[q] == roots[r]) abort();
  }
  free(nonisolated);
  free(fill);
  free(loops);
  free(deg);
  bfs_graph_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  const int mtx = size > 0 && (data[0] & 1);
  if (fuzz_to_file(data, size, "graph", mtx ? "mtx" : "el", path, sizeof path) != 0) return 0;
  bfs_edges e;
  char err[256] = "";
  const int rc = bfs_read_graph(path, &e, err, sizeof err);
  remove(path);
  if (rc != 0) {
    if (err[0] == '\0') abort(); /* refused without a reason */
    for (const char *c = err; *c; ++c)
      if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) abort(); /* a raw byte of the file */
    return 0;
  }
  if (e.m <= 0 || e.n <= 0 || e.m_total != e.m || e.first != 0) abort();
  for (int64_t i = 0; i < 2 * e.m; ++i)
    if (e.uv[i] < 0 || e.uv[i] >= e.n) abort();
  check_partition(&e);
  if (e.n <= FUZZ_MAX_BUILD && e.m <= FUZZ_MAX_BUILD) check_build(&e);
  bfs_edges_free(&e);
  return 0;
}
