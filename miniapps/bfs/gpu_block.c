/* gpu_block.c: a rank's BFS state on one GPU and the steps of a level (gpu_block.h).
 * Bernaschi et al. Sec. 3.3: expand along the grid column, fold along the grid row, each
 * message a list or a bitmap, packed (atomicOr) and unpacked (popcount scan + Algorithm 1)
 * on the GPU; the host only stages the payloads for MPI through pinned buffers. */
#include "gpu_block.h"

#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "claim.h"
#include "direction.h"
#include "exchange.h"
#include "kit/check.h"
#include "kit/exchange.h"
#include "kit/ranges.h"
#include "kit/runtime.h"

static void *dev_alloc(size_t bytes) {
  void *p = NULL;
  KIT_CUDA_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
  return p;
}

static void dev_free(void *p) {
  if (p) KIT_CUDA_CHECK(cudaFree(p));
}

void bfs_dev_csr_upload(bfs_dev_csr *d, const bfs_graph *g, const int64_t *xoff, const uint32_t *adj) {
  d->nnz = xoff[g->ncol];
  d->xoff = dev_alloc((size_t)(g->ncol + 1) * sizeof(int64_t));
  d->adj = dev_alloc((size_t)(d->nnz + 1) * sizeof(uint32_t));
  KIT_CUDA_CHECK(cudaMemcpy(d->xoff, xoff, (size_t)(g->ncol + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
  if (d->nnz > 0)
    KIT_CUDA_CHECK(cudaMemcpy(d->adj, adj, (size_t)d->nnz * sizeof(uint32_t), cudaMemcpyHostToDevice));
  /* cudaMemcpy from pageable memory may return before the data has landed, and it runs on
   * the legacy stream, which the variants' non-blocking streams do not wait for. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void bfs_dev_csr_free(bfs_dev_csr *d) {
  dev_free(d->xoff);
  dev_free(d->adj);
  memset(d, 0, sizeof *d);
}

void bfs_work_init(bfs_work *w, int64_t max_items) {
  memset(w, 0, sizeof *w); /* the --prune storage comes on first use */
  w->max_items = max_items;
  w->cnt = dev_alloc((size_t)max_items * sizeof(int64_t));
  w->offs = dev_alloc((size_t)max_items * sizeof(int64_t));
  /* CUB's storage grows with the item count (one tile descriptor per tile). */
  w->cub_bytes = bfs_scan_bytes(max_items);
  w->cub = dev_alloc(w->cub_bytes);
}

void bfs_work_free(bfs_work *w) {
  dev_free(w->cnt);
  dev_free(w->offs);
  dev_free(w->cub);
  dev_free(w->su_cub);
  dev_free(w->su_tmp);
  dev_free(w->su_n);
  if (w->h_su_n) kit_host_free(w->h_su_n, 1);
  memset(w, 0, sizeof *w);
}

int64_t bfs_work_items(const bfs_graph *g) {
  int64_t m = g->ncol; /* the longest list: the whole column */
  if (g->nrow / 32 > m) m = g->nrow / 32;
  if (g->own_pad > m) m = g->own_pad;
  return m + 2; /* a scan takes items + 1 entries */
}

void bfs_gpu_unpack(bfs_work *w, const uint32_t *bmap, int64_t nwords, uint32_t first, uint32_t *out,
                    int64_t *count, cudaStream_t s) {
  if (nwords + 1 > w->max_items)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "unpack of %lld words exceeds the scratch (%lld)",
            (long long)nwords, (long long)w->max_items);
  launch_bfs_popc(bmap, nwords, 0, 0, w->cnt, s);
  launch_bfs_scan(w->cub, w->cub_bytes, w->cnt, w->offs, nwords + 1, s);
  launch_bfs_unpack(bmap, w->offs, nwords, 0, first, out, s);
  KIT_CUDA_CHECK(cudaMemcpyAsync(count, w->offs + nwords, sizeof(int64_t), cudaMemcpyDeviceToDevice, s));
}

int64_t bfs_gpu_sort_unique(bfs_work *w, uint32_t *list, int64_t n, cudaStream_t s) {
  if (n <= 1) return n;
  if (n > w->su_cap) { /* grow: at least double, so a search reallocates O(log n) times */
    KIT_CUDA_CHECK(cudaStreamSynchronize(s)); /* earlier sorts on s are done with the old storage */
    dev_free(w->su_cub);
    dev_free(w->su_tmp);
    w->su_cap = n > 2 * w->su_cap ? n : 2 * w->su_cap;
    w->su_cub_bytes = bfs_sort_unique_bytes(w->su_cap);
    w->su_cub = dev_alloc(w->su_cub_bytes);
    w->su_tmp = dev_alloc((size_t)w->su_cap * sizeof(uint32_t));
    if (!w->su_n) {
      w->su_n = dev_alloc(sizeof(int64_t));
      w->h_su_n = kit_host_alloc(sizeof(int64_t), 1);
    }
  }
  launch_bfs_sort_unique(w->su_cub, w->su_cub_bytes, list, w->su_tmp, n, w->su_n, s);
  KIT_CUDA_CHECK(cudaMemcpyAsync(w->h_su_n, w->su_n, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  return *w->h_su_n;
}

int bfs_discover_kind(int fallback) {
  const char *e = getenv("BFS_DISCOVER");
  if (!e) return fallback;
  if (strcmp(e, "thread") == 0) return BFS_DISCOVER_THREAD;
  if (strcmp(e, "edges") == 0) return BFS_DISCOVER_EDGES;
  return fallback;
}

void bfs_gpu_discover(int kind, bfs_work *w, const bfs_dev_csr *csr, bfs_dev_geom geom, const uint32_t *list,
                      int64_t n, const int64_t *n_dev, int64_t src_base, int level, uint32_t *rowbits,
                      unsigned long long *best, cudaStream_t s) {
  if (n <= 0 || csr->nnz == 0) return;
  if (kind == BFS_DISCOVER_THREAD) {
    launch_bfs_discover_thread(csr->xoff, csr->adj, list, n, n_dev, src_base, geom, level, rowbits, best, s);
    return;
  }
  if (n + 1 > w->max_items)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "a frontier of %lld exceeds the scratch (%lld)",
            (long long)n, (long long)w->max_items);
  /* Rossetti's recipes 1 and 2: the frontier's degrees, their prefix sum, a thread per edge. */
  launch_bfs_degrees(csr->xoff, list, n, n_dev, src_base, w->cnt, s);
  launch_bfs_scan(w->cub, w->cub_bytes, w->cnt, w->offs, n + 1, s);
  launch_bfs_discover_edges(csr->xoff, csr->adj, list, n, w->offs, csr->nnz, src_base, geom, level, rowbits,
                            best, s);
}

/* --comm's exchanges (gpu_block.h, xcol and xrow): a link to every other member of this
 * rank's grid column and of its grid row, over MPI_COMM_WORLD, each with room for the largest
 * message any link carries: an expand message is its sender's frontier, a fold message a
 * section of its receiver's vertices, each at most that rank's own_pad indices (or own_pad/32
 * bitmap words). One room for every link, the largest own_pad of the job, so the two ends of
 * a link agree on it whatever the padding. Link k is member k of the column or row, this rank
 * left out (link_of). */
static int link_of(int member, int self) {
  return member - (member > self);
}

/* The exchange with the other `members` of a grid line, member m being world rank
 * first + m * stride (this rank is member `self`); NULL when it has no other member. */
static kit_exchange *line_exchange(kit_comm kind, int members, int self, int first, int stride, size_t cap) {
  if (members < 2) return NULL;
  kit_link *links = kit_malloc((size_t)members * sizeof *links, "exchange links");
  for (int m = 0; m < members; ++m)
    if (m != self) links[link_of(m, self)] = (kit_link){first + m * stride, cap, cap, 0, 0};
  kit_exchange *x = kit_malloc(sizeof *x, "exchange");
  kit_exchange_init_links(x, kind, MPI_COMM_WORLD, members - 1, links, MPI_UINT32_T, sizeof(uint32_t), 0);
  free(links);
  return x;
}

static void comm_init(bfs_gpu *b, kit_comm kind) {
  const bfs_graph *g = b->g;
  long long most = (long long)g->own_pad;
  KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
  /* World rank i C + j: the column's members are j, C + j, ...; the row's i C, i C + 1, ... */
  b->xcol = line_exchange(kind, g->R, g->i, g->j, g->C, (size_t)most);
  b->xrow = line_exchange(kind, g->C, g->j, g->i * g->C, 1, (size_t)most);
  const int peers = (g->R > g->C ? g->R : g->C);
  b->x_send = kit_malloc((size_t)peers * sizeof *b->x_send, "exchange buffers");
  b->x_recv = kit_malloc((size_t)peers * sizeof *b->x_recv, "exchange buffers");
  b->x_scount = kit_malloc((size_t)peers * sizeof *b->x_scount, "exchange counts");
  b->x_rcount = kit_malloc((size_t)peers * sizeof *b->x_rcount, "exchange counts");
}

/* One exchange over x (xcol or xrow) among `members` (R or C) with this rank at `self`: the
 * caller has put in x_send and x_scount what goes over each link; member m's message to this
 * rank lands at d_rbuf + rdispl[m] (rcount[m] words, from the headers). Ordered on s. */
static void comm_run(bfs_gpu *b, kit_exchange *x, int members, int self, cudaStream_t s) {
  for (int m = 0; m < members; ++m) {
    if (m == self) continue;
    b->x_recv[link_of(m, self)] = b->d_rbuf + b->rdispl[m];
    b->x_rcount[link_of(m, self)] = (size_t)b->rcount[m];
  }
  kit_exchange_set_counts(x, b->x_scount, b->x_rcount);
  kit_exchange_run(x, b->x_send, b->x_recv, s);
}

/* Bottom-up's set-up (kernel 1's time, as the cpu variant's): the block's transpose built on
 * the host (build.c) and uploaded, the owned vertices' degrees, and with C > 1 the row's
 * visited bits and their layout. */
static void direction_init(bfs_gpu *b, int flags) {
  const bfs_graph *g = b->g;
  b->h_deg = kit_malloc(((size_t)g->own_pad + 1) * sizeof(int64_t), "degrees");
  b->deg_total = bfs_owned_degrees(g, b->h_deg);
  b->d_deg = dev_alloc((size_t)g->own_pad * sizeof(int64_t));
  KIT_CUDA_CHECK(
      cudaMemcpy(b->d_deg, b->h_deg, (size_t)g->own_pad * sizeof(int64_t), cudaMemcpyHostToDevice));
  if (!(flags & BFS_GPU_NO_TRANSPOSE)) {
    int64_t *toff;
    uint32_t *tadj;
    bfs_block_transpose(g, 0, g->nrow, &toff, &tadj);
    const int64_t nent = toff[g->nrow];
    b->d_toff = dev_alloc((size_t)(g->nrow + 1) * sizeof(int64_t));
    b->d_tadj = dev_alloc((size_t)(nent + 1) * sizeof(uint32_t));
    KIT_CUDA_CHECK(
        cudaMemcpy(b->d_toff, toff, (size_t)(g->nrow + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    if (nent > 0)
      KIT_CUDA_CHECK(cudaMemcpy(b->d_tadj, tadj, (size_t)nent * sizeof(uint32_t), cudaMemcpyHostToDevice));
    if (flags & BFS_GPU_HOST_TRANSPOSE) {
      b->h_toff = toff;
      b->h_tadj = tadj;
    } else {
      free(toff);
      free(tadj);
    }
  }
  if (g->C > 1) {
    b->rowvis = dev_alloc((size_t)g->nrow / 32 * sizeof(uint32_t));
    KIT_CUDA_CHECK(cudaMemset(b->rowvis, 0, (size_t)g->nrow / 32 * sizeof(uint32_t)));
    b->h_rowvis = kit_host_alloc((size_t)g->nrow / 32 * sizeof(uint32_t), 1);
    bfs_row_visited_layout(g, &b->vis_count, &b->vis_displ);
  }
}

void bfs_gpu_init(bfs_gpu *b, const bfs_ctx *c, int device, int flags) {
  memset(b, 0, sizeof *b);
  const bfs_graph *g = c->g;
  b->g = g;
  b->device = device;
  b->mode = c->transfer;
  b->prune = c->prune;
  KIT_CUDA_CHECK(cudaSetDevice(device));
  const size_t ow = (size_t)g->own_pad / 32, cw = (size_t)g->ncol / 32, rw = (size_t)g->nrow / 32;
  b->d_col_off = dev_alloc((size_t)(g->R + 1) * sizeof(int64_t));
  b->d_col_begin = dev_alloc((size_t)g->R * sizeof(int64_t));
  KIT_CUDA_CHECK(
      cudaMemcpy(b->d_col_off, g->col_off, (size_t)(g->R + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
  KIT_CUDA_CHECK(
      cudaMemcpy(b->d_col_begin, g->col_begin, (size_t)g->R * sizeof(int64_t), cudaMemcpyHostToDevice));
  b->geom.R = g->R;
  b->geom.col_off = b->d_col_off;
  b->geom.col_begin = b->d_col_begin;
  int64_t *row_words = kit_malloc((size_t)(g->C + 1) * sizeof(int64_t), "row sections");
  for (int jj = 0; jj <= g->C; ++jj) row_words[jj] = g->row_off[jj] / 32;
  b->d_row_words = dev_alloc((size_t)(g->C + 1) * sizeof(int64_t));
  KIT_CUDA_CHECK(
      cudaMemcpy(b->d_row_words, row_words, (size_t)(g->C + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
  free(row_words);

  b->front = dev_alloc(ow * sizeof(uint32_t));
  b->visited = dev_alloc(ow * sizeof(uint32_t));
  b->recv = dev_alloc(ow * sizeof(uint32_t));
  b->own_list = dev_alloc((size_t)g->own_pad * sizeof(uint32_t));
  b->level = dev_alloc((size_t)g->own_count * sizeof(int32_t));
  b->parent = dev_alloc((size_t)g->own_count * sizeof(int64_t));
  b->best_own = dev_alloc((size_t)g->own_pad * sizeof(int64_t));
  b->colbits = dev_alloc(cw * sizeof(uint32_t));
  b->col_list = dev_alloc((size_t)g->ncol * sizeof(uint32_t));
  b->rowbits = dev_alloc(rw * sizeof(uint32_t));
  if (flags & BFS_GPU_ROW_KEYS) b->best = dev_alloc((size_t)g->nrow * sizeof(unsigned long long));
  b->d_n_own = dev_alloc(sizeof(int64_t));
  b->d_n_col = dev_alloc(sizeof(int64_t));
  /* Receive: the column's messages (at most ncol words) or the row's (at most C own_pad). */
  const int64_t rmax = g->ncol > (int64_t)g->C * g->own_pad ? g->ncol : (int64_t)g->C * g->own_pad;
  b->d_sbuf = dev_alloc((size_t)g->nrow * sizeof(uint32_t));
  b->d_rbuf = dev_alloc((size_t)rmax * sizeof(uint32_t));
  b->d_sec = dev_alloc((size_t)(g->C + 1) * sizeof(int64_t));
  b->d_count = dev_alloc(2 * sizeof(unsigned long long));
  /* Nothing is read before it is written, but a defined start makes a bug reproducible. */
  KIT_CUDA_CHECK(cudaMemset(b->own_list, 0, (size_t)g->own_pad * sizeof(uint32_t)));
  KIT_CUDA_CHECK(cudaMemset(b->col_list, 0, (size_t)g->ncol * sizeof(uint32_t)));
  KIT_CUDA_CHECK(cudaMemset(b->d_n_own, 0, sizeof(int64_t)));
  KIT_CUDA_CHECK(cudaMemset(b->d_n_col, 0, sizeof(int64_t)));
  KIT_CUDA_CHECK(cudaMemset(b->best_own, 0xff, (size_t)g->own_pad * sizeof(int64_t)));

  b->h_xr = kit_host_alloc((size_t)(g->ncol + 1) * sizeof(uint32_t), 1);
  b->h_fs = kit_host_alloc((size_t)(g->nrow + 1) * sizeof(uint32_t), 1);
  b->h_fr = kit_host_alloc((size_t)(rmax + 1) * sizeof(uint32_t), 1);
  if (g->C > 1 || (flags & BFS_GPU_HOST_KEYS))
    b->h_best = kit_host_alloc((size_t)g->nrow * sizeof(int64_t), 1);
  b->h_best_own = kit_host_alloc((size_t)g->own_pad * sizeof(int64_t), 1);
  b->h_sec = kit_host_alloc((size_t)(g->C + 1) * sizeof(int64_t), 1);
  b->h_count = kit_host_alloc(2 * sizeof(unsigned long long), 1);
  const int peers = (g->R > g->C ? g->R : g->C) + 1;
  b->hdr_s = kit_malloc((size_t)peers * 3 * sizeof(int), "headers");
  b->hdr_r = kit_malloc((size_t)peers * 3 * sizeof(int), "headers");
  b->scount = kit_malloc((size_t)peers * sizeof(int), "counts");
  b->sdispl = kit_malloc((size_t)peers * sizeof(int), "counts");
  b->rcount = kit_malloc((size_t)peers * sizeof(int), "counts");
  b->rdispl = kit_malloc((size_t)peers * sizeof(int), "counts");
  if (g->C > 1) b->keys_in = kit_malloc((size_t)g->C * g->own_pad * sizeof(int64_t), "parent keys");
  bfs_work_init(&b->work, bfs_work_items(g));
  if ((flags & BFS_GPU_COMM) && c->p->comm && kit_comm_of(c->p->comm) != KIT_COMM_HOST)
    comm_init(b, kit_comm_of(c->p->comm));
  b->direction = c->direction;
  if (b->direction != BFS_TOP_DOWN) direction_init(b, flags);
  (void)bfs_gpu_drop_remote(); /* caches the fault flag before any thread team reads it */
  /* The memsets and copies above ran on the legacy stream: finish them before any
   * non-blocking stream touches these buffers. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void bfs_gpu_free(bfs_gpu *b) {
  KIT_CUDA_CHECK(cudaSetDevice(b->device));
  kit_exchange *xs[] = {b->xcol, b->xrow};
  for (int k = 0; k < 2; ++k)
    if (xs[k]) {
      kit_exchange_free(xs[k]);
      free(xs[k]);
    }
  free(b->x_send);
  free(b->x_recv);
  free(b->x_scount);
  free(b->x_rcount);
  bfs_work_free(&b->work);
  void *dev[] = {b->d_col_off, b->d_col_begin, b->d_row_words, b->front,    b->visited, b->recv,
                 b->own_list,  b->level,       b->parent,      b->best_own, b->colbits, b->col_list,
                 b->rowbits,   b->best,        b->d_n_own,     b->d_n_col,  b->d_sbuf,  b->d_rbuf,
                 b->d_sec,     b->d_count,     b->d_toff,      b->d_tadj,   b->d_deg,   b->rowvis};
  for (size_t k = 0; k < sizeof dev / sizeof *dev; ++k) dev_free(dev[k]);
  void *pinned[] = {b->h_xr, b->h_fs, b->h_fr, b->h_best, b->h_best_own, b->h_sec, b->h_count, b->h_rowvis};
  for (size_t k = 0; k < sizeof pinned / sizeof *pinned; ++k)
    if (pinned[k]) kit_host_free(pinned[k], 1);
  free(b->hdr_s);
  free(b->hdr_r);
  free(b->scount);
  free(b->sdispl);
  free(b->rcount);
  free(b->rdispl);
  free(b->keys_in);
  free(b->h_deg);
  free(b->h_toff);
  free(b->h_tadj);
  free(b->vis_count);
  free(b->vis_displ);
  memset(b, 0, sizeof *b);
}

int bfs_gpu_drop_remote(void) {
  static int cached = -1; /* read once, before any thread team exists (setup calls it) */
  if (cached < 0) cached = kit_fault("stale-halo");
  return cached;
}

void bfs_note_frontier(bfs_traffic *t, int level, int64_t next) {
  if (next > 0) bfs_traffic_level(t, level + 1)->frontier = next;
  if (level == 0) t->lv[0].frontier = 1;
}

int64_t bfs_gpu_search_start(bfs_gpu_rank *r, int64_t root, cudaStream_t s) {
  KIT_CUDA_CHECK(cudaSetDevice(r->b.device));
  r->traffic.nlevels = 0;
  KIT_RANGE_PUSH("init");
  const int64_t count = bfs_gpu_start(&r->b, root, s);
  KIT_RANGE_POP();
  return count;
}

int64_t bfs_gpu_level_end(bfs_gpu *b, bfs_traffic *tr, int level, cudaStream_t s, int64_t *count) {
  KIT_RANGE_PUSH("update");
  *count = bfs_gpu_update(b, level, s);
  /* m_u needs no pass over the vertices: the visited set grew by exactly the new frontier, so
   * the unvisited vertices' degrees drop by its degrees (m_f), the cpu variant's sums. */
  const int64_t mf = (int64_t)b->h_count[1];
  b->mu_left -= mf;
  b->nvis += *count;
  const int64_t next = bfs_direction_level_end(b->direction, &b->dir, *count, mf, b->mu_left, b->g->n, level);
  KIT_RANGE_POP();
  bfs_note_frontier(tr, level, next);
  return next;
}

void bfs_gpu_rank_fetch(void *st, int64_t *parent_owned, int32_t *level_owned) {
  bfs_gpu_fetch(&((bfs_gpu_rank *)st)->b, parent_owned, level_owned);
}

const bfs_traffic *bfs_gpu_rank_traffic(void *st) {
  return &((bfs_gpu_rank *)st)->traffic;
}

void bfs_gpu_rank_free(bfs_gpu_rank *r) {
  bfs_gpu_free(&r->b);
  bfs_traffic_free(&r->traffic);
}

int64_t bfs_gpu_start(bfs_gpu *b, int64_t root, cudaStream_t s) {
  const bfs_graph *g = b->g;
  const size_t ow = (size_t)g->own_pad / 32;
  KIT_CUDA_CHECK(cudaMemsetAsync(b->front, 0, ow * sizeof(uint32_t), s));
  KIT_CUDA_CHECK(cudaMemsetAsync(b->visited, 0, ow * sizeof(uint32_t), s));
  KIT_CUDA_CHECK(cudaMemsetAsync(b->recv, 0, ow * sizeof(uint32_t), s));
  KIT_CUDA_CHECK(cudaMemsetAsync(b->colbits, 0, (size_t)g->ncol / 32 * sizeof(uint32_t), s));
  KIT_CUDA_CHECK(cudaMemsetAsync(b->rowbits, 0, (size_t)g->nrow / 32 * sizeof(uint32_t), s));
  KIT_CUDA_CHECK(cudaMemsetAsync(b->level, 0xff, (size_t)g->own_count * sizeof(int32_t), s)); /* -1 */
  if (b->best) launch_bfs_fill_u64(b->best, g->nrow, (unsigned long long)BFS_KEY_NONE, s);
  const int mine = root >= g->own_begin && root < g->own_begin + g->own_count;
  /* auto starts top-down from the one root vertex, as Beamer's search does. */
  b->dir = b->direction == BFS_BOTTOM_UP ? BFS_BOTTOM_UP : BFS_TOP_DOWN;
  b->nvis = mine;
  b->mu_left = b->deg_total - (mine && b->h_deg ? b->h_deg[root - g->own_begin] : 0);
  if (mine) launch_bfs_root(b->front, b->visited, b->level, root - g->own_begin, s);
  return mine;
}

int64_t bfs_gpu_expand(bfs_gpu *b, int64_t count, int own_list_ready, cudaStream_t s, bfs_level_traffic *t) {
  const bfs_graph *g = b->g;
  KIT_CUDA_CHECK(cudaMemsetAsync(b->colbits, 0, (size_t)g->ncol / 32 * sizeof(uint32_t), s));
  if (g->R == 1) return 0; /* 1D row: the column is this rank alone */
  KIT_RANGE_PUSH("expand");
  const int bm = bfs_as_bitmap(b->mode, count, g->own_count);
  int64_t words = bm ? g->own_pad / 32 : count;
  const uint32_t *payload = bm ? b->front : b->own_list;
  if (!bm && !own_list_ready)
    bfs_gpu_unpack(&b->work, b->front, g->own_pad / 32, 0, b->own_list, b->d_n_own, s);
  if (!bm && b->prune && count > 1) { /* a copy: another stream may still read own_list */
    KIT_CUDA_CHECK(cudaMemcpyAsync(b->d_sbuf, b->own_list, (size_t)count * sizeof(uint32_t),
                                   cudaMemcpyDeviceToDevice, s));
    words = bfs_gpu_sort_unique(&b->work, b->d_sbuf, count, s);
    payload = b->d_sbuf;
  }
  const int hdr[3] = {bm, bfs_msg_int(words), bfs_msg_int(bm ? count : words)};
  KIT_MPI_CHECK(MPI_Allgather(hdr, 3, MPI_INT, b->hdr_r, 3, MPI_INT, g->col));
  bfs_recv_layout(b->hdr_r, 3, g->R, b->rcount, b->rdispl);
  if (b->xcol) { /* --comm: device to device, the same message over every link */
    for (int k = 0; k < g->R - 1; ++k) {
      b->x_send[k] = (void *)payload;
      b->x_scount[k] = (size_t)words;
    }
    comm_run(b, b->xcol, g->R, g->i, s);
  } else {
    /* This rank's message goes straight to where the gather puts it (MPI_IN_PLACE). */
    if (words > 0)
      KIT_CUDA_CHECK(cudaMemcpyAsync(b->h_xr + b->rdispl[g->i], payload, (size_t)words * sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost, s));
    KIT_CUDA_CHECK(
        cudaStreamSynchronize(s)); /* the message is in host memory; earlier H2Ds out of h_xr are done */
    KIT_MPI_CHECK(
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_UINT32_T, b->h_xr, b->rcount, b->rdispl, MPI_UINT32_T, g->col));
  }
  /* The others' messages (up to the GPU, where they came by the host), each merged into its
   * member's section. */
  int64_t merged = 0;
  for (int ii = 0; ii < g->R; ++ii) {
    if (ii == g->i || b->rcount[ii] == 0 || bfs_gpu_drop_remote()) continue;
    uint32_t *msg = b->d_rbuf + b->rdispl[ii];
    uint32_t *sec = b->colbits + g->col_off[ii] / 32;
    if (!b->xcol)
      KIT_CUDA_CHECK(cudaMemcpyAsync(msg, b->h_xr + b->rdispl[ii], (size_t)b->rcount[ii] * sizeof(uint32_t),
                                     cudaMemcpyHostToDevice, s));
    if (b->hdr_r[3 * ii])
      launch_bfs_or(sec, msg, b->rcount[ii], s);
    else
      launch_bfs_pack(msg, b->rcount[ii], g->col_count[ii], sec, s);
    merged += b->hdr_r[3 * ii + 2];
  }
  bfs_count_expand(g, bm, words, count, t);
  KIT_RANGE_POP();
  return merged;
}

void bfs_gpu_own_to_col(bfs_gpu *b, cudaStream_t s) {
  const bfs_graph *g = b->g;
  KIT_CUDA_CHECK(cudaMemcpyAsync(b->colbits + g->col_off[g->i] / 32, b->front,
                                 (size_t)g->own_pad / 32 * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
}

void bfs_gpu_fold_remote(bfs_gpu *b, cudaStream_t s, bfs_level_traffic *t) {
  const bfs_graph *g = b->g;
  if (g->C == 1) return; /* 1D column: the row is this rank alone */
  KIT_RANGE_PUSH("fold");
  const int64_t rw = g->nrow / 32, own_lo = g->row_off[g->j] / 32, own_hi = g->row_off[g->j + 1] / 32;
  bfs_work *w = &b->work;
  /* Per-word popcounts of the other sections (the own one is not read: another stream may
   * still be writing it), their scan, and its value at each section's first word. */
  launch_bfs_popc(b->rowbits, rw, own_lo, own_hi, w->cnt, s);
  launch_bfs_scan(w->cub, w->cub_bytes, w->cnt, w->offs, rw + 1, s);
  launch_bfs_gather(w->offs, b->d_row_words, g->C + 1, b->d_sec, s);
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(b->h_sec, b->d_sec, (size_t)(g->C + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  /* Each message as a list (unpacked on the GPU) or the section's bitmap, then to the host. */
  int64_t at = 0;
  for (int jj = 0; jj < g->C; ++jj) {
    const int64_t w0 = g->row_off[jj] / 32, nwords = (g->row_off[jj + 1] - g->row_off[jj]) / 32;
    const int64_t count = jj == g->j ? 0 : b->h_sec[jj + 1] - b->h_sec[jj];
    const int bm = jj != g->j && bfs_as_bitmap(b->mode, count, g->row_count[jj]);
    int64_t words = jj == g->j ? 0 : bm ? nwords : count;
    if (words > 0) {
      const uint32_t *src = b->rowbits + w0;
      if (!bm) { /* owner-local indices: bit positions within the section */
        launch_bfs_unpack(b->rowbits + w0, w->offs + w0, nwords, b->h_sec[jj], 0, b->d_sbuf + at, s);
        if (b->prune) words = bfs_gpu_sort_unique(w, b->d_sbuf + at, count, s);
        src = b->d_sbuf + at;
      }
      if (b->xrow) { /* --comm: sent from where it is, after the headers */
        b->x_send[link_of(jj, g->j)] = (void *)src;
        b->x_scount[link_of(jj, g->j)] = (size_t)words;
      } else {
        KIT_CUDA_CHECK(
            cudaMemcpyAsync(b->h_fs + at, src, (size_t)words * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
      }
    } else if (b->xrow && jj != g->j) { /* nothing for that member this level */
      b->x_send[link_of(jj, g->j)] = NULL;
      b->x_scount[link_of(jj, g->j)] = 0;
    }
    b->hdr_s[3 * jj] = bm;
    b->hdr_s[3 * jj + 1] = bfs_msg_int(words);
    b->hdr_s[3 * jj + 2] = bfs_msg_int(bm ? count : words);
    b->scount[jj] = (int)words;
    b->sdispl[jj] = bfs_msg_int(at);
    at += words;
    bfs_count_fold(g, jj, bm, words, count, t);
  }
  if (!b->xrow)
    KIT_CUDA_CHECK(cudaStreamSynchronize(s)); /* messages in host memory; earlier H2Ds out of h_fr done */
  KIT_MPI_CHECK(MPI_Alltoall(b->hdr_s, 3, MPI_INT, b->hdr_r, 3, MPI_INT, g->row));
  bfs_recv_layout(b->hdr_r, 3, g->C, b->rcount, b->rdispl);
  if (b->xrow)
    comm_run(b, b->xrow, g->C, g->j, s);
  else
    KIT_MPI_CHECK(MPI_Alltoallv(b->h_fs, b->scount, b->sdispl, MPI_UINT32_T, b->h_fr, b->rcount, b->rdispl,
                                MPI_UINT32_T, g->row));
  for (int jj = 0; jj < g->C; ++jj) {
    if (jj == g->j || b->rcount[jj] == 0 || bfs_gpu_drop_remote()) continue;
    uint32_t *msg = b->d_rbuf + b->rdispl[jj];
    if (!b->xrow)
      KIT_CUDA_CHECK(cudaMemcpyAsync(msg, b->h_fr + b->rdispl[jj], (size_t)b->rcount[jj] * sizeof(uint32_t),
                                     cudaMemcpyHostToDevice, s));
    if (b->hdr_r[3 * jj])
      launch_bfs_or(b->recv, msg, b->rcount[jj], s);
    else
      launch_bfs_pack(msg, b->rcount[jj], g->own_count, b->recv, s);
  }
  KIT_RANGE_POP();
}

void bfs_gpu_fold_local(bfs_gpu *b, cudaStream_t s) {
  const bfs_graph *g = b->g;
  launch_bfs_or(b->recv, b->rowbits + g->row_off[g->j] / 32, g->own_pad / 32, s);
  KIT_CUDA_CHECK(cudaMemsetAsync(b->rowbits, 0, (size_t)g->nrow / 32 * sizeof(uint32_t), s));
}

int64_t bfs_gpu_update(bfs_gpu *b, int level, cudaStream_t s) {
  const bfs_graph *g = b->g;
  KIT_CUDA_CHECK(cudaMemsetAsync(b->d_count, 0, 2 * sizeof(unsigned long long), s));
  launch_bfs_update(b->recv, b->visited, b->front, b->level, g->own_pad / 32, g->own_count, level + 1,
                    b->direction == BFS_DIRECTION_AUTO ? b->d_deg : NULL, b->d_count, s);
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(b->h_count, b->d_count, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  return (int64_t)*b->h_count;
}

void bfs_gpu_row_visited(bfs_gpu *b, cudaStream_t s, bfs_level_traffic *t) {
  const bfs_graph *g = b->g;
  if (g->C == 1) return; /* the row is this rank's own section: bfs_gpu_bottom_up reads visited */
  KIT_RANGE_PUSH("row_visited");
  const int64_t ow = g->own_pad / 32;
  uint32_t *own = b->rowvis + g->row_off[g->j] / 32;
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(own, b->visited, (size_t)ow * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
  if (b->xrow) { /* --comm: this rank's bits over every row link, the others' into their sections */
    for (int jj = 0; jj < g->C; ++jj) {
      if (jj == g->j) continue;
      const int k = link_of(jj, g->j);
      b->x_send[k] = b->visited;
      b->x_scount[k] = (size_t)ow;
      b->x_recv[k] = b->rowvis + b->vis_displ[jj];
      b->x_rcount[k] = (size_t)b->vis_count[jj];
    }
    kit_exchange_set_counts(b->xrow, b->x_scount, b->x_rcount);
    kit_exchange_run(b->xrow, b->x_send, b->x_recv, s);
  } else {
    KIT_CUDA_CHECK(cudaMemcpyAsync(b->h_rowvis + b->vis_displ[g->j], b->visited,
                                   (size_t)ow * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s)); /* in host memory; the last level's upload is done */
    KIT_MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_UINT32_T, b->h_rowvis, b->vis_count, b->vis_displ,
                                 MPI_UINT32_T, g->row));
    KIT_CUDA_CHECK(cudaMemcpyAsync(b->rowvis, b->h_rowvis, (size_t)g->nrow / 32 * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, s));
  }
  /* Only a shortcut: a vertex taken for unvisited is claimed again and its owner drops it (a
   * later level's key never wins the row's MIN), so KIT_FAULT=stale-halo leaves it alone. */
  bfs_count_row_visited(g, b->nvis, t);
  KIT_RANGE_POP();
}

const uint32_t *bfs_gpu_row_visited_bits(const bfs_gpu *b) {
  return b->g->C > 1 ? b->rowvis : b->visited;
}

void bfs_gpu_bottom_up(bfs_gpu *b, int level, int64_t w_lo, int64_t w_hi, cudaStream_t s) {
  launch_bfs_bottom_up(b->d_toff, b->d_tadj, b->colbits, bfs_gpu_row_visited_bits(b), w_lo, w_hi, b->geom,
                       level, b->rowbits, b->best, s);
}

void bfs_gpu_parents(bfs_gpu *b, cudaStream_t s) {
  const bfs_graph *g = b->g;
  KIT_RANGE_PUSH("parents");
  if (g->C == 1) { /* the row is this rank's own section: its keys are final */
    launch_bfs_parents(b->level, (const int64_t *)b->best, g->own_count, g->own_begin, b->parent, s);
    KIT_CUDA_CHECK(cudaStreamSynchronize(s));
  } else {
    KIT_CUDA_CHECK(
        cudaMemcpyAsync(b->h_best, b->best, (size_t)g->nrow * sizeof(int64_t), cudaMemcpyDeviceToHost, s));
    KIT_CUDA_CHECK(cudaStreamSynchronize(s));
    bfs_gpu_parents_host(b, s);
  }
  KIT_RANGE_POP();
}

void bfs_gpu_parents_host(bfs_gpu *b, cudaStream_t s) {
  const bfs_graph *g = b->g;
  const int64_t *keys = b->h_best;
  if (g->C > 1) {
    bfs_row_min_keys(g, b->h_best, b->h_best_own, b->keys_in);
    keys = b->h_best_own;
  }
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(b->best_own, keys, (size_t)g->own_pad * sizeof(int64_t), cudaMemcpyHostToDevice, s));
  launch_bfs_parents(b->level, b->best_own, g->own_count, g->own_begin, b->parent, s);
  KIT_CUDA_CHECK(cudaStreamSynchronize(s));
}

void bfs_gpu_fetch(const bfs_gpu *b, int64_t *parent, int32_t *level) {
  const bfs_graph *g = b->g;
  KIT_CUDA_CHECK(cudaSetDevice(b->device));
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
  KIT_CUDA_CHECK(
      cudaMemcpy(parent, b->parent, (size_t)g->own_count * sizeof(int64_t), cudaMemcpyDeviceToHost));
  KIT_CUDA_CHECK(cudaMemcpy(level, b->level, (size_t)g->own_count * sizeof(int32_t), cudaMemcpyDeviceToHost));
}
