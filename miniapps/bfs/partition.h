/* partition.h: the 2D R x C partitioning of Bernaschi et al. Sec. 3.3 (after Checconi and
 * Petrini), written once for the host and CUDA code (KIT_HD).
 * The N vertices are split into R*C consecutive blocks, as evenly as possible (the first
 * N % (R*C) blocks get one vertex more). Block b = j*R + i belongs to the process in grid
 * row i, column j (world rank i*C + j). So the vertices of a grid column are consecutive,
 * N/C of them, and the vertices of a grid row are R blocks apart, N/R of them.
 * Process (i,j) stores the edges u -> v with u owned in column j and v owned in row i: an
 * N/C x N/R block of the adjacency matrix. "The edge lists of the vertices handled by each
 * GPU are partitioned among the processors in the same grid column; for each edge, the GPU
 * in charge of the destination vertex is in the same grid row of the edge owner."
 * Local index spaces: a row's (column's) vertices are numbered by concatenating its members'
 * blocks, each padded to a multiple of 32, so every member's part of a row bitmap starts on
 * a word boundary and travels without shifting. */
#ifndef BFS_PARTITION_H
#define BFS_PARTITION_H
#include <stdint.h>

#include "kit/hd.h"

/* First vertex of block b when n vertices are split into `parts` blocks. */
static inline KIT_HD int64_t bfs_block_begin(int64_t n, int64_t parts, int64_t b) {
  const int64_t q = n / parts, r = n % parts;
  return b * q + (b < r ? b : r);
}

/* Vertices in block b. */
static inline KIT_HD int64_t bfs_block_count(int64_t n, int64_t parts, int64_t b) {
  return n / parts + (b < n % parts ? 1 : 0);
}

/* The block that holds vertex v (inverse of bfs_block_begin). */
static inline KIT_HD int64_t bfs_block_of(int64_t n, int64_t parts, int64_t v) {
  const int64_t q = n / parts, r = n % parts;
  const int64_t big = r * (q + 1); /* vertices in the r blocks of q+1 */
  return v < big ? v / (q + 1) : r + (v - big) / q;
}

/* Block of the process in grid row i, column j. */
static inline KIT_HD int64_t bfs_grid_block(int R, int i, int j) {
  return (int64_t)j * R + i;
}

/* --partition cyclic (Rossetti et al.'s slides: "edge (Ui,Vj) in Pk if Ui mod #P == k"):
 * input vertex v goes to block v mod P, P = R*C the number of blocks (on a 1D grid, 1xC or
 * Rx1, block b is world rank b: the slides' rule; on an R x C grid block b is the process in
 * grid row b mod R, column b / R, as for the block partition). It is done by relabelling:
 * v becomes the (v / P)-th vertex of block v mod P, so the block layout over the new labels
 * is the cyclic layout over the input labels. Block b holds exactly the v < n with
 * v mod P == b, n / P + (b < n % P) of them: bfs_block_count, so the map is a bijection of
 * [0, n) for any n >= P, divisible or not. With P = 1 it is the identity. */
static inline KIT_HD int64_t bfs_cyclic_label(int64_t n, int64_t parts, int64_t v) {
  return bfs_block_begin(n, parts, v % parts) + v / parts;
}

/* The inverse: the input label of internal vertex w. */
static inline KIT_HD int64_t bfs_input_label(int64_t n, int64_t parts, int64_t w) {
  const int64_t b = bfs_block_of(n, parts, w);
  return (w - bfs_block_begin(n, parts, b)) * parts + b;
}

/* Rounded up to whole 32-bit words, in bits. */
static inline KIT_HD int64_t bfs_pad32(int64_t bits) {
  return (bits + 31) & ~(int64_t)31;
}

#endif
