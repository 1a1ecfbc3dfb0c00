/* gpu_block.h: a rank's BFS state resident on one GPU, and the steps of a level that the
 * GPU variants (naive.c, two_stream.c, multi_thread.c, hybrid.c) compose. Host C on the CUDA
 * runtime API; the kernels are kernels.cu's. Bernaschi et al. Sec. 3.3 (2D partitioning,
 * expand along the grid column, fold along the grid row, list or bitmap messages packed
 * and unpacked on the GPU).
 * Messages are the cpu variant's (exchange.c), so both count the same bytes: the expand
 * sends this rank's frontier as owner-local indices or as a bitmap of its own_pad bits; the
 * fold sends each row member the discovered vertices of its section, as owner-local indices
 * or as that section's bitmap; --transfer picks per message. Each message is preceded by a
 * three-int header {bitmap?, words, vertices}. A rank's part for itself never leaves the
 * device: it is merged there, and goes through MPI as an empty message.
 * Ordering: every function below enqueues on the stream it is given; those that talk to
 * MPI synchronise that stream first, so the host reads only finished copies. One bfs_gpu's
 * exchanges (expand, fold_remote, update) must always use the same stream: the pinned
 * staging buffers are reused, and that stream's order (and the synchronisations before MPI)
 * is what keeps a copy out of a buffer finished before MPI writes it again. */
#ifndef BFS_GPU_BLOCK_H
#define BFS_GPU_BLOCK_H
#include <cuda_runtime_api.h>

#include "bfs.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CSR on the device: ncol+1 offsets by column-local source, nnz destinations. */
typedef struct bfs_dev_csr {
  int64_t nnz;
  int64_t *xoff;
  uint32_t *adj;
} bfs_dev_csr;

/* Copies a host CSR over g's ncol sources to the current device. */
void bfs_dev_csr_upload(bfs_dev_csr *d, const bfs_graph *g, const int64_t *xoff, const uint32_t *adj);
void bfs_dev_csr_free(bfs_dev_csr *d);

/* One stream's scratch: CUB storage and the two scan arrays (bitmap unpacks and the edge-
 * balanced discovery). Two streams never share one: their scans would overwrite each other. */
typedef struct bfs_work {
  void *cub;
  size_t cub_bytes;
  int64_t *cnt, *offs; /* scan input and output, max_items each */
  int64_t max_items;
  /* --prune only: the sort-unique's CUB storage and sort output for su_cap items, allocated
   * on first use and grown (never shrunk), and its device and pinned count slots. */
  void *su_cub;
  size_t su_cub_bytes;
  uint32_t *su_tmp;
  int64_t su_cap;
  int64_t *su_n, *h_su_n;
} bfs_work;

/* Scratch for lists of up to max_items - 1 vertices and bitmaps of up to max_items - 1 words. */
void bfs_work_init(bfs_work *w, int64_t max_items);
void bfs_work_free(bfs_work *w);
/* The scratch size that covers every list and bitmap of g. */
int64_t bfs_work_items(const bfs_graph *g);

/* Unpack (Bernaschi Algorithm 1): popcounts, their exclusive scan, then the warp-shuffle
 * kernel writes the set bits of bmap[0..nwords) as first + bit index into out, and the
 * device slot *count gets how many (the scan's last entry, copied so the scratch can be
 * reused while a reader of the list still needs its length). */
void bfs_gpu_unpack(bfs_work *w, const uint32_t *bmap, int64_t nwords, uint32_t first, uint32_t *out,
                    int64_t *count, cudaStream_t s);

/* --prune (Rossetti's recipe 3): list[0..n) sorted and made unique in place on s (CUB radix
 * sort + DeviceSelect::Unique); returns the new length (synchronises s: the host needs it for
 * the message header). */
int64_t bfs_gpu_sort_unique(bfs_work *w, uint32_t *list, int64_t n, cudaStream_t s);

/* Discovery kernels: the slides' straightforward BFS (a thread per frontier vertex) or the
 * edge-balanced one (a thread per frontier edge, sources found by binary search over the
 * scan of their degrees). */
enum { BFS_DISCOVER_THREAD = 0, BFS_DISCOVER_EDGES = 1 };
/* The kernel a variant uses: its default, or BFS_DISCOVER=thread|edges from the
 * environment (so a lab can compare the variants with the same kernel). */
int bfs_discover_kind(int fallback);
/* Claims, at `level`, every CSR neighbour of the sources list[k] + src_base, k < min(n,
 * *n_dev), into rowbits and best (indices as the CSR stores them). Nothing when n is 0. */
void bfs_gpu_discover(int kind, bfs_work *w, const bfs_dev_csr *csr, bfs_dev_geom geom, const uint32_t *list,
                      int64_t n, const int64_t *n_dev, int64_t src_base, int level, uint32_t *rowbits,
                      unsigned long long *best, cudaStream_t s);

/* bfs_gpu_init flags. */
enum {
  BFS_GPU_ROW_KEYS = 1,  /* keep the row's keys (best) on the device */
  BFS_GPU_HOST_KEYS = 2, /* pinned host keys for the row even when C = 1 (hybrid, multi-thread) */
  BFS_GPU_COMM = 4,      /* the frontier messages go by --comm (naive, two-stream): see xcol */
  /* Bottom-up levels (c->direction not top-down): */
  BFS_GPU_NO_TRANSPOSE = 8,   /* no transpose on this GPU (multi-thread: each GPU its slice's) */
  BFS_GPU_HOST_TRANSPOSE = 16 /* keep the host transpose too (hybrid: the CPU's share scans it) */
};

/* One rank's frontier state on one GPU. Index spaces as in bfs_graph: owned (own_pad),
 * column-local (ncol), row-local (nrow); bitmaps are words of 32 vertices. */
typedef struct bfs_gpu {
  const bfs_graph *g;
  int device;                       /* CUDA device holding it */
  int mode;                         /* BFS_LIST, BFS_BITMAP, BFS_AUTO */
  int prune;                        /* --prune: list messages sort-uniqued before they leave */
  bfs_dev_geom geom;                /* column geometry for parent labels */
  int64_t *d_col_off, *d_col_begin; /* behind geom */
  int64_t *d_row_words;             /* [C+1] first word of each row section */
  uint32_t *front, *visited;        /* own_pad bits: this level's frontier, reached so far */
  uint32_t *recv;                   /* own_pad bits: what the fold brought (the update clears it) */
  uint32_t *own_list;               /* own_pad: the frontier as owner-local indices */
  int32_t *level;                   /* own_count */
  int64_t *parent, *best_own;       /* own_count parents, own_pad keys after the row's MIN */
  uint32_t *colbits, *col_list;     /* ncol bits, ncol entries: the column's frontier */
  uint32_t *rowbits;                /* nrow bits: discovered here at this level */
  unsigned long long *best;         /* nrow keys (BFS_GPU_ROW_KEYS), else NULL */
  int64_t *d_n_own, *d_n_col;       /* device counts of own_list and col_list */
  uint32_t *d_sbuf, *d_rbuf;        /* device staging of fold lists and received messages */
  int64_t *d_sec;                   /* [C+1] the fold scan at each section's first word */
  unsigned long long *d_count;      /* [2] the update's fresh-vertex count and their degrees (m_f) */
  uint32_t *h_xr, *h_fs, *h_fr;     /* pinned: expand receive, fold send, fold receive */
  int64_t *h_best, *h_best_own;     /* pinned: nrow keys (C > 1 or HOST_KEYS), own_pad after MIN */
  int64_t *h_sec;                   /* pinned [C+1] */
  unsigned long long *h_count;      /* pinned [2] */
  int *hdr_s, *hdr_r, *scount, *sdispl, *rcount, *rdispl; /* MPI counts */
  int64_t *keys_in; /* C > 1: C * own_pad, the row's keys for the own section */
  /* --comm other than host (BFS_GPU_COMM): the expand's and the fold's payloads go device to
   * device through kit/exchange.h, a link to each other member of the grid column (xcol) and
   * of the grid row (xrow), each sized for the largest message; the headers still travel by
   * MPI first (counts first, kit_exchange_set_counts). NULL: host staging and MPI
   * collectives, as the cpu variant's messages. */
  struct kit_exchange *xcol, *xrow;
  void **x_send, **x_recv; /* per link: this exchange's buffers and counts */
  size_t *x_scount, *x_rcount;
  bfs_work work; /* scratch of the stream that runs the exchanges */
  /* Direction-optimising search (direction.h; c->direction not top-down): the bottom-up
   * levels' transpose and visited bits, and the switch rule's counters. */
  int direction;    /* --direction: BFS_TOP_DOWN, BFS_BOTTOM_UP or BFS_DIRECTION_AUTO */
  int dir;          /* the direction of the level about to run */
  int64_t *d_toff;  /* [nrow+1] the block's transpose (bfs_block_transpose) ... */
  uint32_t *d_tadj; /* ... its column-local sources, increasing in each list */
  int64_t *h_toff;  /* BFS_GPU_HOST_TRANSPOSE: the same on the host (NO_TRANSPOSE: neither) */
  uint32_t *h_tadj;
  int64_t *d_deg, *h_deg;      /* own_pad degrees of the owned vertices (device, host) */
  int64_t deg_total;           /* their sum */
  int64_t mu_left;             /* this search: degrees of the owned vertices not yet visited (m_u) */
  int64_t nvis;                /* this search: owned vertices visited so far */
  uint32_t *rowvis, *h_rowvis; /* C > 1: nrow bits, the row's visited bits (device; pinned staging) */
  int *vis_count, *vis_displ;  /* C > 1: each row member's visited words and where they go */
} bfs_gpu;

/* Allocates everything on `device` (made current); the caller uploads its own CSR(s). */
void bfs_gpu_init(bfs_gpu *b, const bfs_ctx *c, int device, int flags);
void bfs_gpu_free(bfs_gpu *b);

/* A new search: clears the bitmaps, levels to -1, keys to none, and puts the root in the
 * frontier if this rank owns it. Returns this rank's frontier size (0 or 1). */
int64_t bfs_gpu_start(bfs_gpu *b, int64_t root, cudaStream_t s);

/* Expand, remote part (grid column, MPI_Allgatherv): clears colbits, then merges into it the
 * other column members' frontiers (bitmap messages OR'd, lists packed with atomicOr).
 * `count` is this rank's frontier size; own_list_ready says own_list already holds it.
 * Returns the number of column vertices merged (from the headers). colbits's own section
 * stays empty (bfs_gpu_own_to_col fills it). */
int64_t bfs_gpu_expand(bfs_gpu *b, int64_t count, int own_list_ready, cudaStream_t s, bfs_level_traffic *t);
/* colbits's own section = this rank's frontier (a device copy). */
void bfs_gpu_own_to_col(bfs_gpu *b, cudaStream_t s);
/* Fold, remote part (grid row, MPI_Alltoallv): the other sections of rowbits go to their
 * owners, as lists (unpacked on the GPU) or bitmaps; what the row sends here is merged into
 * recv. Reads only the other sections of rowbits, so the own section may still be being
 * written by another stream. */
void bfs_gpu_fold_remote(bfs_gpu *b, cudaStream_t s, bfs_level_traffic *t);
/* Fold, local part: recv |= rowbits's own section; then rowbits is cleared for the next level. */
void bfs_gpu_fold_local(bfs_gpu *b, cudaStream_t s);
/* Update: owners keep the unvisited vertices of recv as the next frontier at level+1;
 * returns their number on this rank (synchronises s). */
int64_t bfs_gpu_update(bfs_gpu *b, int level, cudaStream_t s);
/* Bottom-up levels (direction.h; Beamer et al. 2013 in 2D). The row's visited set: with
 * C > 1 each owner's visited bits go to every other row member (MPI_Allgatherv by the host,
 * or the --comm exchange), counted as fold traffic as the cpu variant counts them; with C = 1
 * the row is this rank's own visited set and nothing moves. Ordered on s. */
void bfs_gpu_row_visited(bfs_gpu *b, cudaStream_t s, bfs_level_traffic *t);
/* The row's visited bits after bfs_gpu_row_visited (on b's device): the gathered row (C > 1)
 * or this rank's own visited bits (C = 1). */
const uint32_t *bfs_gpu_row_visited_bits(const bfs_gpu *b);
/* Bottom-up discovery over row words [w_lo, w_hi): each vertex there that the row has not
 * visited claims, at `level`, its first column-frontier neighbour in this block
 * (bfs_first_in_frontier), the smallest label, so the parents equal a top-down level's.
 * Disjoint word ranges may run concurrently on two streams. */
void bfs_gpu_bottom_up(bfs_gpu *b, int level, int64_t w_lo, int64_t w_hi, cudaStream_t s);
/* Parents from the device keys (BFS_GPU_ROW_KEYS), the "parents" range: the row's MIN
 * (bfs_row_min_keys when C > 1), then parent = the key's label (synchronises s). */
void bfs_gpu_parents(bfs_gpu *b, cudaStream_t s);
/* The same from keys the caller gathered in h_best (nrow of them). */
void bfs_gpu_parents_host(bfs_gpu *b, cudaStream_t s);
/* Parents and levels of the owned vertices, to the host (synchronous). */
void bfs_gpu_fetch(const bfs_gpu *b, int64_t *parent, int32_t *level);

/* KIT_FAULT=stale-halo (tests only): drop what other ranks or GPUs sent. */
int bfs_gpu_drop_remote(void);
/* A search's traffic record, level by level, with the frontier sizes the cpu variant keeps. */
void bfs_note_frontier(bfs_traffic *t, int level, int64_t next);

/* The bookkeeping every level loop of a GPU variant shares, so that each variant file shows
 * only its own schedule of expand, discover and fold. */

/* What the state of a one-GPU-per-rank variant (naive, two-stream, hybrid) starts with: the
 * driver's context, the rank's GPU state and the last search's traffic. Being the first
 * member lets one fetch and one traffic function serve them all. */
typedef struct bfs_gpu_rank {
  bfs_ctx c;
  bfs_gpu b;
  bfs_traffic traffic;
} bfs_gpu_rank;
/* A new search on r (device made current, traffic table emptied, bfs_gpu_start on s inside
 * the "init" range). Returns this rank's frontier size (0 or 1). */
int64_t bfs_gpu_search_start(bfs_gpu_rank *r, int64_t root, cudaStream_t s);
/* A level's last step, the "update" range: owners keep the unvisited vertices of recv as the
 * next frontier (bfs_gpu_update; *count gets this rank's), MPI_Allreduce of its size over
 * every rank (with the switch rule's counters under auto: b->dir becomes the next level's
 * direction), recorded in tr. Returns the global size: 0 ends the search. */
int64_t bfs_gpu_level_end(bfs_gpu *b, bfs_traffic *tr, int level, cudaStream_t s, int64_t *count);
/* bfs_variant.fetch and .traffic for a state that starts with a bfs_gpu_rank. */
void bfs_gpu_rank_fetch(void *st, int64_t *parent_owned, int32_t *level_owned);
const bfs_traffic *bfs_gpu_rank_traffic(void *st);
/* Frees the GPU state and the traffic table (the variant frees its streams and CSRs). */
void bfs_gpu_rank_free(bfs_gpu_rank *r);

#ifdef __cplusplus
}
#endif
#endif
