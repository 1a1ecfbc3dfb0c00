/* exchange.h: the two frontier exchanges of one BFS level on the 2D grid (Bernaschi et al.
 * Sec. 3.3): "expand" along the grid column, "fold" along the grid row. Each message is a
 * list of 32-bit vertex indices or a bitmap of the receiver's (expand: the sender's) vertex
 * range, chosen per message: --transfer list, bitmap, or auto (a bitmap when the list would
 * hold more than n/32 vertices of an n-vertex range, i.e. be longer in bits). Every rank
 * first tells its peers each message's form and length (two ints), then sends the payload.
 * Bytes are counted per level for messages to other ranks: payload only, not the two-int
 * headers; a rank's message to itself is a local copy and is not counted. */
#ifndef BFS_EXCHANGE_H
#define BFS_EXCHANGE_H
#include <stdint.h>

#include "bfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch buffers of the exchanges, sized once per graph. */
typedef struct bfs_exchange {
  uint32_t *sbuf, *rbuf;
  int *hdr_s, *hdr_r; /* per peer: {bitmap?, words} */
  int *scount, *sdispl, *rcount, *rdispl;
  int prune; /* --prune: sort-unique every list message before it leaves */
} bfs_exchange;

void bfs_exchange_init(bfs_exchange *x, const bfs_graph *g);
void bfs_exchange_free(bfs_exchange *x);

/* 1 if a message of `count` vertices of an n-vertex range goes as a bitmap. */
int bfs_as_bitmap(int mode, int64_t count, int64_t n);

/* --prune (Rossetti's recipe 3) on the host: list[0..n) sorted and its repeats dropped;
 * returns the new length. */
int64_t bfs_sort_unique(uint32_t *list, int64_t n);

/* v as an MPI count; a message longer than INT_MAX words is a runtime error (exit 3). */
int bfs_msg_int(int64_t v);
/* Receive counts and displacements from the peers' headers (`stride` ints each, the word
 * count at index 1): the messages land back to back in peer order. */
void bfs_recv_layout(const int *hdr, int stride, int npeers, int *count, int *displ);

/* The traffic rules, in one place for the cpu exchanges here and the GPU ones (gpu_block.c),
 * so every variant prints the same per-level table. A message is `words` 32-bit words of
 * payload carrying `count` vertices, `bm` says whether it went as a bitmap. A list that
 * --prune shortened has words < count: what it would have cost unpruned (count words) goes
 * to unpruned_bytes, so a run reports both.
 * Expand: this rank's one message reaches the R - 1 other members of its grid column. */
void bfs_count_expand(const bfs_graph *g, int bm, int64_t words, int64_t count, bfs_level_traffic *t);
/* Fold: the message to row member jj; the one to itself (jj == g->j) is a local copy and
 * is not counted. */
void bfs_count_fold(const bfs_graph *g, int jj, int bm, int64_t words, int64_t count, bfs_level_traffic *t);

/* A bottom-up level's gather of the row's visited bits: this rank's own_pad/32 words (nvis
 * vertices) to each of the C - 1 other row members, counted as fold traffic. */
void bfs_count_row_visited(const bfs_graph *g, int64_t nvis, bfs_level_traffic *t);

/* Expand: own_bits (own_pad bits, `count` of them set) is this rank's frontier; on return
 * colbits (ncol bits, zeroed by the caller) holds the frontier of the whole grid column. */
void bfs_expand(const bfs_graph *g, int mode, const uint32_t *own_bits, int64_t count, uint32_t *colbits,
                bfs_exchange *x, bfs_level_traffic *t);

/* Fold: rowbits (nrow bits) marks what this rank discovered at this level; member j' of the
 * grid row gets its section. On return own_bits (own_pad bits, zeroed by the caller) is
 * the union of what the row sent this rank. */
void bfs_fold(const bfs_graph *g, int mode, const uint32_t *rowbits, uint32_t *own_bits, bfs_exchange *x,
              bfs_level_traffic *t);
/* Parents, after the last level: own_keys[k] (own_pad of them) becomes the smallest of the
 * grid row's keys for this rank's k-th vertex (row_keys: this rank's nrow keys, in
 * row_off sections). This is a reduce-scatter with MIN, written as an MPI_Alltoallv of the
 * sections followed by the minimum on this rank's threads. With MPI_Reduce_scatter instead
 * (whose reduction runs inside MPI, on one core), the parents phase of a scale-24 search on
 * two H200s (a 1x2 grid, 128 MB of keys per rank) took 0.16 s of the search's 0.18 s under
 * the machine's Open MPI. scratch holds C * own_pad keys. */
void bfs_row_min_keys(const bfs_graph *g, const int64_t *row_keys, int64_t *own_keys, int64_t *scratch);
#ifdef __cplusplus
}
#endif
#endif
