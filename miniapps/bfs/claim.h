/* claim.h: how a BFS level records a discovery, written once for every variant (the host
 * claim here, the GPU claim in kernels.cu uses the same keys). Bernaschi et al. Sec. 3.3:
 * a process discovers the neighbours, in its block of the adjacency matrix, of the column
 * frontier and marks the new ones for the fold; Rossetti's straightforward BFS does this
 * with atomics.
 * A discovery of row vertex v from column vertex u at BFS level L is the key
 *   (L + 1) << 44 | label(u),
 * and each process keeps the smallest key per row vertex. The MIN over a grid row then
 * gives every owner the earliest level and, among those, the smallest parent label, so the
 * parent array is the same for every variant, grid, thread count and transfer mode.
 * Only the writer that replaces "none" marks v as discovered here: a vertex this process
 * found at an earlier level is never sent again. */
#ifndef BFS_CLAIM_H
#define BFS_CLAIM_H
#include <stdint.h>

#include "kit/hd.h"

/* Keys are signed and below 2^63 on purpose: the MPICH of the CPU machines reduces
 * MPI_UINT64_T with MPI_MIN as if it were signed (UINT64_MAX lost to 5), so the reduction
 * runs on MPI_INT64_T with INT64_MAX as "not found". The GPU compares them as unsigned,
 * which orders every key below 2^63 the same way. */
#define BFS_KEY_SHIFT 44 /* parent label bits; the level takes the 19 above them */
#define BFS_KEY_NONE INT64_MAX
#define BFS_KEY_MAX_LEVEL ((1 << 19) - 2)

/* The key of a discovery at `level` (the level being expanded) from global vertex `parent`. */
static inline KIT_HD int64_t bfs_key(int level, int64_t parent) {
  return ((int64_t)(level + 1) << BFS_KEY_SHIFT) | parent;
}

/* The parent label inside a key. */
static inline KIT_HD int64_t bfs_key_parent(int64_t key) {
  return key & (((int64_t)1 << BFS_KEY_SHIFT) - 1);
}

/* The parent of an owned vertex from its level and the row's smallest key (root: itself). */
static inline KIT_HD int64_t bfs_parent_of(int32_t level, int64_t key, int64_t self) {
  return level < 0 ? -1 : level == 0 ? self : bfs_key_parent(key);
}

#if !defined(__CUDA_ARCH__)
/* Host claim: records that row vertex v was reached with key `key`, keeping the smallest
 * key, and marks v in rowbits the first time. Threads race benignly on the same v:
 * compare-and-swap keeps the minimum, only the thread that replaces BFS_KEY_NONE sets the
 * bit. */
static inline void bfs_claim_host(int64_t *best, uint32_t *rowbits, uint32_t v, int64_t key) {
  int64_t old = __atomic_load_n(&best[v], __ATOMIC_RELAXED);
  while (key < old) {
    if (__atomic_compare_exchange_n(&best[v], &old, key, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      if (old == BFS_KEY_NONE) __atomic_fetch_or(&rowbits[v >> 5], 1u << (v & 31), __ATOMIC_RELAXED);
      return;
    }
  }
}
#endif
#endif
