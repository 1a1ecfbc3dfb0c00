/* kernels.h: the bfs GPU kernels, reached only through these extern "C" launchers
 * (DESIGN.md Sec. 9). Each launcher checks the launch and returns at once; the work runs
 * on `stream`. A launcher given nothing to do (a count of 0) launches nothing.
 * Bernaschi et al. Sec. 3.3: bitmap pack with atomicOr (launch_bfs_pack), unpack by an
 * exclusive scan of per-word popcounts (launch_bfs_popc + launch_bfs_scan) and a warp-
 * shuffle kernel (launch_bfs_unpack, their Algorithm 1). Rossetti et al.'s slides: the
 * straightforward BFS, a thread per frontier vertex with atomics
 * (launch_bfs_discover_thread), and the sort-unique BFS's first two recipes, a prefix sum
 * of the frontier's degrees and a thread per neighbour finding its vertex by binary search
 * (launch_bfs_degrees + launch_bfs_scan + launch_bfs_discover_edges).
 * Counts that only the device knows (how many vertices an unpack produced) are read by the
 * kernels from device memory: the host gives an upper bound `n` that sizes the launch, and
 * the kernels stop at the smaller of the two, so no host synchronisation is needed and a
 * bound that is too large (a dropped message under KIT_FAULT) never reads past the list. */
#ifndef BFS_KERNELS_H
#define BFS_KERNELS_H
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The grid column's geometry on the device, for the global label of a column-local source
 * (bfs_col_global): R sections, col_off[R+1] and col_begin[R] in device memory. */
typedef struct bfs_dev_geom {
  int R;
  const int64_t *col_off;
  const int64_t *col_begin;
} bfs_dev_geom;

/* p[0..n) = value. */
void launch_bfs_fill_u64(unsigned long long *p, int64_t n, unsigned long long value, cudaStream_t stream);
/* The root: owned index r joins the frontier and the visited set at level 0. */
void launch_bfs_root(uint32_t *front, uint32_t *visited, int32_t *level, int64_t r, cudaStream_t stream);
/* cnt[w] = popcount(bmap[w]) for w < nwords, 0 for w in [skip_lo, skip_hi) (not read) and
 * cnt[nwords] = 0: after an exclusive scan of its nwords+1 items, entry nwords is the total. */
void launch_bfs_popc(const uint32_t *bmap, int64_t nwords, int64_t skip_lo, int64_t skip_hi, int64_t *cnt,
                     cudaStream_t stream);
/* CUB temporary storage for an exclusive scan of n int64 items. */
size_t bfs_scan_bytes(int64_t n);
/* out[0..n) = exclusive prefix sum of in[0..n) (CUB DeviceScan). */
void launch_bfs_scan(void *temp, size_t temp_bytes, const int64_t *in, int64_t *out, int64_t n,
                     cudaStream_t stream);
/* Algorithm 1: the set bits of bmap[0..nwords) as increasing indices first + 32*w + bit,
 * written at out[offs[w] - base + (set bits of word w below the bit)]. offs is the scan of
 * launch_bfs_popc; base its value at the first word (0 for a whole bitmap). */
void launch_bfs_unpack(const uint32_t *bmap, const int64_t *offs, int64_t nwords, int64_t base,
                       uint32_t first, uint32_t *out, cudaStream_t stream);
/* Pack: sets bit list[k] of bmap for k < n with atomicOr; indices >= nbits are ignored. */
void launch_bfs_pack(const uint32_t *list, int64_t n, int64_t nbits, uint32_t *bmap, cudaStream_t stream);
/* dst[w] |= src[w] for w < nwords (merging a bitmap message). */
void launch_bfs_or(uint32_t *dst, const uint32_t *src, int64_t nwords, cudaStream_t stream);
/* CUB temporary storage for launch_bfs_sort_unique of n items (radix sort or unique, the larger). */
size_t bfs_sort_unique_bytes(int64_t n);
/* --prune, Rossetti's recipe 3: keys[0..n) sorted (cub::DeviceRadixSort, into tmp, n items)
 * and made unique (cub::DeviceSelect::Unique, back into keys); the device slot *nout gets how
 * many remain. */
void launch_bfs_sort_unique(void *temp, size_t temp_bytes, uint32_t *keys, uint32_t *tmp, int64_t n,
                            int64_t *nout, cudaStream_t stream);
/* out[k] = offs[at[k]] for k < n: the scan's value at each section's first word. */
void launch_bfs_gather(const int64_t *offs, const int64_t *at, int n, int64_t *out, cudaStream_t stream);

/* Straightforward discovery: a thread per frontier vertex u = list[k] + src_base (column-
 * local), k < min(n, *n_dev), walking its CSR row and claiming each destination v with the
 * key of `level` (claim.h): atomicMin on best[v], atomicOr on rowbits when v is new here. */
void launch_bfs_discover_thread(const int64_t *xoff, const uint32_t *adj, const uint32_t *list, int64_t n,
                                const int64_t *n_dev, int64_t src_base, bfs_dev_geom geom, int level,
                                uint32_t *rowbits, unsigned long long *best, cudaStream_t stream);
/* deg[k] = degree of list[k] + src_base for k < min(n, *n_dev), 0 up to deg[n] included. */
void launch_bfs_degrees(const int64_t *xoff, const uint32_t *list, int64_t n, const int64_t *n_dev,
                        int64_t src_base, int64_t *deg, cudaStream_t stream);
/* Edge-balanced discovery: offs (n+1 items, the scan of launch_bfs_degrees) maps each of
 * the offs[n] frontier edges to its source by binary search; a thread per edge claims its
 * destination as launch_bfs_discover_thread does. nnz bounds offs[n] (sizes the grid). */
void launch_bfs_discover_edges(const int64_t *xoff, const uint32_t *adj, const uint32_t *list, int64_t n,
                               const int64_t *offs, int64_t nnz, int64_t src_base, bfs_dev_geom geom,
                               int level, uint32_t *rowbits, unsigned long long *best, cudaStream_t stream);

/* Owners keep what the fold brought and they had not visited: for each of nwords words,
 * fresh = recv & ~visited (bits below own_count), visited |= fresh, front = fresh,
 * recv = 0, level = next_level for each fresh vertex, count[0] += popcount(fresh) and, when
 * deg is not NULL, count[1] += the fresh vertices' degrees (the switch rule's m_f). */
void launch_bfs_update(uint32_t *recv, uint32_t *visited, uint32_t *front, int32_t *level, int64_t nwords,
                       int64_t own_count, int next_level, const int64_t *deg, unsigned long long *count,
                       cudaStream_t stream);
/* Bottom-up discovery (direction.h; Beamer et al.) over row words [w_lo, w_hi): every row
 * vertex v whose rowvis bit is clear takes the first column-local u of its transpose list
 * (toff/tadj) with u's colbits bit set, and records the key of `level` from u if it is below
 * best[v], setting v's rowbits bit when best[v] was "none" (claim.h). A warp per word. */
void launch_bfs_bottom_up(const int64_t *toff, const uint32_t *tadj, const uint32_t *colbits,
                          const uint32_t *rowvis, int64_t w_lo, int64_t w_hi, bfs_dev_geom geom, int level,
                          uint32_t *rowbits, unsigned long long *best, cudaStream_t stream);
/* parent[k] = bfs_parent_of(level[k], keys[k], own_begin + k) for k < own_count. */
void launch_bfs_parents(const int32_t *level, const int64_t *keys, int64_t own_count, int64_t own_begin,
                        int64_t *parent, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
