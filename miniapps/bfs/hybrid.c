/* hybrid.c: the `hybrid` variant. One MPI rank per GPU; the rank's CPU cores take a share
 * of its vertices. The split is by destination, like multi-thread's between GPUs: the row
 * of the rank's block (its N/R row-local vertices, Bernaschi et al. Sec. 3.3) is cut at a
 * word boundary; the GPU discovers the vertices below the cut, the OpenMP threads those
 * above it (the cpu variant's claim, claim.h), each with the edges that lead there. The
 * two parts keep disjoint keys, so nothing has to be combined but the row bitmap.
 * The CPU's share is --cpu-fraction F of the row vertices (their edges follow, since the
 * Graph500 labels are permuted), or `auto`: Sourouri Paper II's bandwidth model,
 * r = B_cpu / (B_cpu + B_gpu) from the measured triads, derated (kit/hybrid.h), which the
 * driver then checks against this variant at share 0 and drops if it loses (kit_main).
 * One level (naive's exchanges on one stream, with the CPU working beside the GPU):
 *   expand (MPI) into the column bitmap on the GPU; copy it to the host [col_host];
 *   GPU: unpack, discover below the cut                          (asynchronous)
 *   CPU: wait [col_host]; discover above the cut (OpenMP, over the bitmap's words)
 *   the CPU's part of the row bitmap up to the GPU; fold (MPI), update, MPI_Allreduce.
 * After the last level the GPU's keys join the CPU's in the host row of keys, and the
 * parents follow as in naive. A bottom-up level (--direction, direction.h) splits the same
 * way: the GPU scans its words' unvisited vertices (bfs_gpu_bottom_up), the threads the
 * CPU's (bfs_bottom_up_word, the cpu variant's loop), both over the block's transpose.
 * With no CPU share on any rank the variant is two-stream's
 * schedule (as laplace's hybrid), so a share that rounds to nothing costs nothing.
 *   mpiexec -n 2 build/bin/bfs --variant hybrid --cpu-fraction 0.05 --scale 18 */
#include <stdlib.h>
#include <string.h>

#include "claim.h"
#include "direction.h"
#include "gpu_block.h"
#include "kit/check.h"
#include "kit/ranges.h"

typedef struct hy_state {
  bfs_gpu_rank r; /* first: context, GPU state, traffic */
  cudaStream_t s;
  cudaEvent_t col_host; /* the column bitmap has reached h_colbits */
  int64_t cut;          /* row words [0, cut) on the GPU, [cut, nrow/32) on the CPU */
  bfs_dev_csr gcsr;     /* GPU: edges into the words below the cut */
  int64_t *cxoff;       /* CPU: edges into the words above the cut (row-local indices) */
  uint32_t *cadj;
  uint32_t *h_colbits; /* pinned ncol bits */
  uint32_t *h_rowbits; /* pinned nrow bits; the CPU writes the words above the cut */
  uint32_t *h_rowvis;  /* bottom-up levels: pinned nrow bits, the row's visited bits above the cut */
  int kind;
  void *ts; /* two-stream's state when no rank has a CPU share, else NULL */
} hy_state;

static void *hy_setup(const void *ctx) {
  const bfs_ctx *c = ctx;
  hy_state *s = calloc(1, sizeof *s);
  const bfs_graph *g = c->g;
  s->r.c = *c;
  const int64_t rw = g->nrow / 32;
  int64_t cpu_words = bfs_hybrid_cpu_words(g, c->cpu_fraction); /* setup.c's bfs_cpu_units counts the same */
  s->cut = rw - cpu_words;
  int64_t any_words = 0;
  KIT_MPI_CHECK(MPI_Allreduce(&cpu_words, &any_words, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
  if (any_words == 0) {
    s->ts = bfs_two_stream.base.setup(c);
    return s;
  }
  bfs_gpu_init(&s->r.b, c, c->env->device, BFS_GPU_ROW_KEYS | BFS_GPU_HOST_KEYS | BFS_GPU_HOST_TRANSPOSE);
  int64_t *xoff;
  uint32_t *adj;
  bfs_csr_select(g, 0, 32 * s->cut, 1, 0, &xoff, &adj);
  bfs_dev_csr_upload(&s->gcsr, g, xoff, adj);
  free(xoff);
  free(adj);
  bfs_csr_select(g, 0, 32 * s->cut, 0, 0, &s->cxoff, &s->cadj);
  KIT_CUDA_CHECK(cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->col_host, cudaEventDisableTiming));
  s->h_colbits = kit_host_alloc((size_t)(g->ncol / 32 + 1) * sizeof(uint32_t), 1);
  s->h_rowbits = kit_host_alloc((size_t)(rw + 1) * sizeof(uint32_t), 1);
  memset(s->h_rowbits, 0, (size_t)(rw + 1) * sizeof(uint32_t));
  if (c->direction != BFS_TOP_DOWN) s->h_rowvis = kit_host_alloc((size_t)(rw + 1) * sizeof(uint32_t), 1);
  s->kind = bfs_discover_kind(BFS_DISCOVER_EDGES);
  return s;
}

/* The CPU's part of a level: the column frontier (h_colbits) against its edges. The threads
 * walk the bitmap's words themselves rather than unpack it into a list first: a serial
 * unpack of a dense frontier cost more than the CPU's whole share of the claims (measured
 * on the H200 machine), and most frontier vertices have no edge above the cut. */
static void hy_cpu_discover(hy_state *s, int level) {
  const bfs_graph *g = s->r.c.g;
  const int64_t cw = g->ncol / 32;
  int64_t *best = s->r.b.h_best;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t w = 0; w < cw; ++w) {
    uint32_t bits = s->h_colbits[w];
    while (bits) {
      const int64_t u = 32 * w + __builtin_ctz(bits);
      bits &= bits - 1;
      if (s->cxoff[u + 1] == s->cxoff[u]) continue;
      const int64_t key = bfs_key(level, bfs_col_global(g, u));
      for (int64_t e = s->cxoff[u]; e < s->cxoff[u + 1]; ++e)
        bfs_claim_host(best, s->h_rowbits, s->cadj[e], key);
    }
  }
}

static void hy_search(void *st, int64_t root) {
  hy_state *s = st;
  if (s->ts) {
    bfs_two_stream.search(s->ts, root);
    return;
  }
  bfs_gpu *b = &s->r.b;
  const bfs_graph *g = b->g;
  const int64_t rw = g->nrow / 32, cpu_words = rw - s->cut;
  int64_t count = bfs_gpu_search_start(&s->r, root, s->s);
  KIT_RANGE_PUSH("init");
  if (cpu_words > 0) { /* the CPU's part of the row: nothing discovered, no keys */
    memset(s->h_rowbits + s->cut, 0, (size_t)cpu_words * sizeof(uint32_t));
#pragma omp parallel for schedule(static)
    for (int64_t v = 32 * s->cut; v < g->nrow; ++v) b->h_best[v] = BFS_KEY_NONE;
  }
  KIT_RANGE_POP();
  for (int level = 0;; ++level) {
    bfs_level_traffic *t = bfs_level_begin(&s->r.traffic, level);
    t->bottom_up = b->dir == BFS_BOTTOM_UP;

    /* 1. Expand, as naive; the CPU gets a copy of the column's frontier (and, bottom-up, of
     * the row's visited bits above the cut). */
    const int64_t remote = bfs_gpu_expand(b, count, 0, s->s, t);
    bfs_gpu_own_to_col(b, s->s);
    if (t->bottom_up) bfs_gpu_row_visited(b, s->s, t);
    if (cpu_words > 0) {
      KIT_CUDA_CHECK(cudaMemcpyAsync(s->h_colbits, b->colbits, (size_t)(g->ncol / 32) * sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost, s->s));
      if (t->bottom_up)
        KIT_CUDA_CHECK(cudaMemcpyAsync(s->h_rowvis + s->cut, bfs_gpu_row_visited_bits(b) + s->cut,
                                       (size_t)cpu_words * sizeof(uint32_t), cudaMemcpyDeviceToHost, s->s));
      KIT_CUDA_CHECK(cudaEventRecord(s->col_host, s->s));
    }

    /* 2. Discover: the GPU below the cut (queued), the CPU above it (meanwhile); bottom-up,
     * each scans the unvisited vertices of its words for their first frontier neighbour. */
    int h = kit_gpu_range_begin(t->bottom_up ? "gpu_bottom_up" : "gpu_discover", s->s);
    if (t->bottom_up) {
      bfs_gpu_bottom_up(b, level, 0, s->cut, s->s);
    } else {
      bfs_gpu_unpack(&b->work, b->colbits, g->ncol / 32, 0, b->col_list, b->d_n_col, s->s);
      bfs_gpu_discover(s->kind, &b->work, &s->gcsr, b->geom, b->col_list, count + remote, b->d_n_col, 0,
                       level, b->rowbits, b->best, s->s);
    }
    kit_gpu_range_end(h, s->s);
    if (cpu_words > 0) {
      KIT_RANGE_PUSH(t->bottom_up ? "cpu_bottom_up" : "cpu_discover");
      KIT_CUDA_CHECK(cudaEventSynchronize(s->col_host));
      if (t->bottom_up) {
#pragma omp parallel for schedule(dynamic, 64)
        for (int64_t w = s->cut; w < rw; ++w)
          s->h_rowbits[w] |=
              bfs_bottom_up_word(g, b->h_toff, b->h_tadj, s->h_colbits, s->h_rowvis[w], w, level, b->h_best);
      } else {
        hy_cpu_discover(s, level);
      }
      KIT_RANGE_POP();
      /* The CPU's words of the row bitmap join the GPU's (queued after its discovery). */
      KIT_CUDA_CHECK(cudaMemcpyAsync(b->rowbits + s->cut, s->h_rowbits + s->cut,
                                     (size_t)cpu_words * sizeof(uint32_t), cudaMemcpyHostToDevice, s->s));
    }

    /* 3. Fold and 4. update, as naive. */
    bfs_gpu_fold_remote(b, s->s, t);
    bfs_gpu_fold_local(b, s->s);
    const int64_t next = bfs_gpu_level_end(b, &s->r.traffic, level, s->s, &count);
    /* The update synchronised s: the copy out of h_rowbits is done, the CPU may clear it. */
    if (cpu_words > 0) memset(s->h_rowbits + s->cut, 0, (size_t)cpu_words * sizeof(uint32_t));
    if (next == 0) break;
  }

  /* 5. Parents: the GPU's keys below the cut join the CPU's above it on the host. */
  KIT_RANGE_PUSH("parents");
  if (s->cut > 0)
    KIT_CUDA_CHECK(cudaMemcpyAsync(b->h_best, b->best, (size_t)(32 * s->cut) * sizeof(int64_t),
                                   cudaMemcpyDeviceToHost, s->s));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->s));
  bfs_gpu_parents_host(b, s->s);
  KIT_RANGE_POP();
}

/* kit_variant.run: n searches from the first key (kit_main's calibration of --cpu-fraction
 * auto times it with the model's share and with none). */
static void hy_run(void *st, int n) {
  for (int k = 0; k < n; ++k) hy_search(st, ((hy_state *)st)->r.c.first_key);
}

static void hy_fetch(void *st, int64_t *parent_owned, int32_t *level_owned) {
  hy_state *s = st;
  if (s->ts)
    bfs_two_stream.fetch(s->ts, parent_owned, level_owned);
  else
    bfs_gpu_rank_fetch(&s->r, parent_owned, level_owned);
}

static const bfs_traffic *hy_traffic(void *st) {
  hy_state *s = st;
  return s->ts ? bfs_two_stream.traffic(s->ts) : &s->r.traffic;
}

static void hy_teardown(void *st) {
  hy_state *s = st;
  if (s->ts) {
    bfs_two_stream.base.teardown(s->ts);
    free(s);
    return;
  }
  KIT_CUDA_CHECK(cudaSetDevice(s->r.b.device));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->s));
  KIT_CUDA_CHECK(cudaEventDestroy(s->col_host));
  bfs_dev_csr_free(&s->gcsr);
  free(s->cxoff);
  free(s->cadj);
  kit_host_free(s->h_colbits, 1);
  kit_host_free(s->h_rowbits, 1);
  if (s->h_rowvis) kit_host_free(s->h_rowvis, 1);
  bfs_gpu_rank_free(&s->r);
  free(s);
}

/* The CPU's words of the row and the share of the rank's edges they hold (for the report). */
void bfs_hybrid_split(void *st, int64_t *cpu_words, int64_t *cpu_edges, int64_t *edges) {
  const hy_state *s = st;
  const bfs_graph *g = s->r.c.g;
  *cpu_words = g->nrow / 32 - s->cut;
  *cpu_edges = s->ts ? 0 : s->cxoff[g->ncol];
  *edges = g->xoff[g->ncol];
}

const bfs_variant bfs_hybrid = {
    .base =
        {.name = "hybrid",
         .summary =
             "one rank per GPU; the CPU cores discover a share of the rank's row vertices (--cpu-fraction)",
         .needs_gpu = 1,
         .setup = hy_setup,
         .reset = bfs_no_reset,
         .run = hy_run,
         .fetch = NULL,
         .halo = NULL,
         .teardown = hy_teardown,
         .gpus_max = 0,
         .thread_level = 0,
         .hybrid = 1},
    .search = hy_search,
    .fetch = hy_fetch,
    .traffic = hy_traffic,
};
