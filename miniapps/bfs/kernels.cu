/* kernels.cu: the bfs GPU kernels (kernels.h). Bernaschi et al. Sec. 3.3 and Algorithm 1
 * (bitmap pack with atomicOr; unpack by an exclusive scan of per-word popcounts, then one
 * bitmap word per thread broadcast across the warp with shuffles); Rossetti et al.'s slides
 * (the straightforward BFS, a thread per frontier vertex with atomics; the sort-unique
 * BFS's prefix sum of degrees and a thread per neighbour found by binary search). The
 * keys and the claim rule are claim.h's; the scans are CUB's (CUDA toolkit).
 * Kernels are reached only through the extern "C" launchers, which check every launch. */
#include <limits.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "claim.h"
#include "direction.h"
#include "kernels.h"
#include "kit/check.h"

namespace {

constexpr int kBlock = 256;          /* threads per block: a multiple of the warp size */
constexpr int64_t kMaxBlocks = 4096; /* grid-stride kernels: enough to fill any current GPU */

int blocks_for(int64_t n) {
  const int64_t b = (n + kBlock - 1) / kBlock;
  return (int)(b < kMaxBlocks ? b : kMaxBlocks);
}

__device__ __forceinline__ int64_t gtid() {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t gstride() {
  return (int64_t)gridDim.x * blockDim.x;
}

/* Global label of column-local source x: the section holding x by binary search over the
 * R+1 section offsets (strictly increasing: every section has at least 32 padded slots). */
__device__ __forceinline__ int64_t col_global(const bfs_dev_geom &g, int64_t x) {
  int lo = 0, hi = g.R - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (g.col_off[mid] <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return g.col_begin[lo] + (x - g.col_off[lo]);
}

/* claim.h's rule on the GPU. The plain read first skips the atomic when this level cannot
 * improve the key; keys only decrease during a search, so a stale read can only cost an
 * atomic, never skip a needed one. Exactly one thread sees "none" replaced: it sets the bit. */
__device__ __forceinline__ void claim(unsigned long long *best, uint32_t *rowbits, uint32_t v,
                                      unsigned long long key) {
  if (best[v] <= key) return;
  if (atomicMin(&best[v], key) == (unsigned long long)BFS_KEY_NONE)
    atomicOr(&rowbits[v >> 5], 1u << (v & 31));
}

__global__ void fill_u64_kernel(unsigned long long *p, int64_t n, unsigned long long value) {
  for (int64_t i = gtid(); i < n; i += gstride()) p[i] = value;
}

__global__ void root_kernel(uint32_t *front, uint32_t *visited, int32_t *level, int64_t r) {
  front[r >> 5] |= 1u << (r & 31);
  visited[r >> 5] |= 1u << (r & 31);
  level[r] = 0;
}

__global__ void popc_kernel(const uint32_t *bmap, int64_t nwords, int64_t skip_lo, int64_t skip_hi,
                            int64_t *cnt) {
  for (int64_t w = gtid(); w <= nwords; w += gstride())
    cnt[w] = (w == nwords || (w >= skip_lo && w < skip_hi)) ? 0 : __popc(bmap[w]);
}

/* Algorithm 1. Thread tid reads word tid and its offset; the warp then walks its 32 words
 * in order, each broadcast by __shfl_sync, and lane l writes the vertex of bit l if it is
 * set, at the word's offset plus the set bits below l. Every lane of a warp takes part in
 * every shuffle (the loop bound is the same for the whole warp and the grid is whole warps),
 * so threads past the end carry an empty word instead of leaving. */
__global__ void unpack_kernel(const uint32_t *bmap, const int64_t *offs, int64_t nwords, int64_t base,
                              uint32_t first, uint32_t *out) {
  const int64_t tid = gtid();
  const int lane = threadIdx.x & 31;
  const int64_t warp_first = tid - lane;
  uint32_t word = 0;
  int64_t off = 0;
  if (tid < nwords) {
    word = bmap[tid];
    off = offs[tid] - base;
  }
  const uint32_t mask = 1u << lane, below = mask - 1u;
  for (int i = 0; i < 32; ++i) {
    if (warp_first + i >= nwords) break; /* the same for every lane */
    const uint32_t w = __shfl_sync(0xffffffffu, word, i);
    const int64_t o = __shfl_sync(0xffffffffu, off, i);
    if (w & mask) out[o + __popc(w & below)] = first + (uint32_t)((warp_first + i) * 32 + lane);
  }
}

__global__ void pack_kernel(const uint32_t *list, int64_t n, int64_t nbits, uint32_t *bmap) {
  for (int64_t k = gtid(); k < n; k += gstride()) {
    const uint32_t v = list[k];
    if ((int64_t)v < nbits) atomicOr(&bmap[v >> 5], 1u << (v & 31));
  }
}

__global__ void or_kernel(uint32_t *dst, const uint32_t *src, int64_t nwords) {
  for (int64_t w = gtid(); w < nwords; w += gstride()) dst[w] |= src[w];
}

__global__ void gather_kernel(const int64_t *offs, const int64_t *at, int n, int64_t *out) {
  const int64_t k = gtid();
  if (k < n) out[k] = offs[at[k]];
}

__global__ void discover_thread_kernel(const int64_t *xoff, const uint32_t *adj, const uint32_t *list,
                                       int64_t n, const int64_t *n_dev, int64_t src_base, bfs_dev_geom geom,
                                       int level, uint32_t *rowbits, unsigned long long *best) {
  const int64_t valid = min(n, *n_dev);
  for (int64_t k = gtid(); k < valid; k += gstride()) {
    const int64_t u = (int64_t)list[k] + src_base;
    const unsigned long long key = (unsigned long long)bfs_key(level, col_global(geom, u));
    for (int64_t e = xoff[u]; e < xoff[u + 1]; ++e) claim(best, rowbits, adj[e], key);
  }
}

__global__ void degrees_kernel(const int64_t *xoff, const uint32_t *list, int64_t n, const int64_t *n_dev,
                               int64_t src_base, int64_t *deg) {
  const int64_t valid = min(n, *n_dev);
  for (int64_t k = gtid(); k <= n; k += gstride()) {
    int64_t d = 0;
    if (k < valid) {
      const int64_t u = (int64_t)list[k] + src_base;
      d = xoff[u + 1] - xoff[u];
    }
    deg[k] = d;
  }
}

/* A thread per frontier edge e < offs[n]: its source is the last k with offs[k] <= e (the
 * zero-degree entries past the valid list all sit at offs[n], above every e). */
__global__ void discover_edges_kernel(const int64_t *xoff, const uint32_t *adj, const uint32_t *list,
                                      int64_t n, const int64_t *offs, int64_t src_base, bfs_dev_geom geom,
                                      int level, uint32_t *rowbits, unsigned long long *best) {
  const int64_t m = offs[n];
  for (int64_t e = gtid(); e < m; e += gstride()) {
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
      const int64_t mid = (lo + hi + 1) >> 1;
      if (offs[mid] <= e)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int64_t u = (int64_t)list[lo] + src_base;
    const unsigned long long key = (unsigned long long)bfs_key(level, col_global(geom, u));
    claim(best, rowbits, adj[xoff[u] + (e - offs[lo])], key);
  }
}

/* One thread per word; the popcounts (and the degrees) are summed per warp with shuffles
 * (every lane takes part: no thread leaves early) and added once per warp. */
__global__ void update_kernel(uint32_t *recv, uint32_t *visited, uint32_t *front, int32_t *level,
                              int64_t nwords, int64_t own_count, int next_level, const int64_t *deg,
                              unsigned long long *count) {
  const int64_t w = gtid();
  unsigned c = 0;
  unsigned long long d = 0;
  if (w < nwords) {
    const int64_t valid = own_count - 32 * w; /* bits of this word that are vertices */
    const uint32_t live = valid >= 32 ? 0xffffffffu : valid > 0 ? (1u << valid) - 1u : 0u;
    uint32_t fresh = recv[w] & ~visited[w] & live;
    recv[w] = 0;
    visited[w] |= fresh;
    front[w] = fresh;
    c = __popc(fresh);
    while (fresh) {
      const int bit = __ffs(fresh) - 1;
      level[32 * w + bit] = next_level;
      if (deg) d += (unsigned long long)deg[32 * w + bit];
      fresh &= fresh - 1;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    c += __shfl_down_sync(0xffffffffu, c, o);
    d += __shfl_down_sync(0xffffffffu, d, o);
  }
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, (unsigned long long)c);
  if ((threadIdx.x & 31) == 0 && d) atomicAdd(count + 1, d);
}

/* A bottom-up level: a warp per row word, a lane per vertex. A lane whose vertex the row has
 * not visited walks its transpose list to the first frontier neighbour (direction.h) and
 * claims it; each vertex has one writer, so best needs no atomic, and the warp's ballot
 * gives the word of new discoveries, written by one lane (disjoint words: no atomic). The
 * loop bound is the warp's word, the same for every lane, so the ballot sees all 32. */
__global__ void bottom_up_kernel(const int64_t *toff, const uint32_t *tadj, const uint32_t *colbits,
                                 const uint32_t *rowvis, int64_t w_lo, int64_t w_hi, bfs_dev_geom geom,
                                 int level, uint32_t *rowbits, unsigned long long *best) {
  const int lane = threadIdx.x & 31;
  const int64_t nwarps = gstride() >> 5;
  for (int64_t w = w_lo + (gtid() >> 5); w < w_hi; w += nwarps) {
    const uint32_t todo = ~rowvis[w];
    bool found = false;
    if ((todo >> lane) & 1u) {
      const int64_t v = 32 * w + lane;
      const int64_t u = bfs_first_in_frontier(toff, tadj, colbits, v);
      if (u >= 0) {
        const unsigned long long key = (unsigned long long)bfs_key(level, col_global(geom, u));
        const unsigned long long old = best[v];
        if (key < old) {
          found = old == (unsigned long long)BFS_KEY_NONE;
          best[v] = key;
        }
      }
    }
    const uint32_t fresh = __ballot_sync(0xffffffffu, found);
    if (lane == 0 && fresh) rowbits[w] |= fresh;
  }
}

__global__ void parents_kernel(const int32_t *level, const int64_t *keys, int64_t own_count,
                               int64_t own_begin, int64_t *parent) {
  for (int64_t k = gtid(); k < own_count; k += gstride())
    parent[k] = bfs_parent_of(level[k], keys[k], own_begin + k);
}

int checked_items(int64_t n) {
  if (n > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "a scan of %lld items exceeds CUB's int count",
            (long long)n);
  return (int)n;
}

}  // namespace

extern "C" void launch_bfs_fill_u64(unsigned long long *p, int64_t n, unsigned long long value,
                                    cudaStream_t stream) {
  if (n <= 0) return;
  fill_u64_kernel<<<blocks_for(n), kBlock, 0, stream>>>(p, n, value);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_root(uint32_t *front, uint32_t *visited, int32_t *level, int64_t r,
                                cudaStream_t stream) {
  root_kernel<<<1, 1, 0, stream>>>(front, visited, level, r);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_popc(const uint32_t *bmap, int64_t nwords, int64_t skip_lo, int64_t skip_hi,
                                int64_t *cnt, cudaStream_t stream) {
  if (nwords < 0) return;
  popc_kernel<<<blocks_for(nwords + 1), kBlock, 0, stream>>>(bmap, nwords, skip_lo, skip_hi, cnt);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" size_t bfs_scan_bytes(int64_t n) {
  size_t bytes = 0;
  KIT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (const int64_t *)nullptr, (int64_t *)nullptr,
                                               checked_items(n > 0 ? n : 1)));
  return bytes;
}

extern "C" void launch_bfs_scan(void *temp, size_t temp_bytes, const int64_t *in, int64_t *out, int64_t n,
                                cudaStream_t stream) {
  if (n <= 0) return;
  size_t need = 0;
  KIT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, need, in, out, checked_items(n), stream));
  if (need > temp_bytes)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "a scan of %lld items needs %zu bytes of CUB storage, %zu allocated", (long long)n, need,
            temp_bytes);
  KIT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, need, in, out, checked_items(n), stream));
}

extern "C" size_t bfs_sort_unique_bytes(int64_t n) {
  const int items = checked_items(n > 0 ? n : 1);
  size_t sort = 0, unique = 0;
  KIT_CUDA_CHECK(
      cub::DeviceRadixSort::SortKeys(nullptr, sort, (const uint32_t *)nullptr, (uint32_t *)nullptr, items));
  KIT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                           (int64_t *)nullptr, items));
  return sort > unique ? sort : unique;
}

extern "C" void launch_bfs_sort_unique(void *temp, size_t temp_bytes, uint32_t *keys, uint32_t *tmp,
                                       int64_t n, int64_t *nout, cudaStream_t stream) {
  if (n <= 0) {
    KIT_CUDA_CHECK(cudaMemsetAsync(nout, 0, sizeof(int64_t), stream));
    return;
  }
  const int items = checked_items(n);
  size_t sort = 0, unique = 0;
  KIT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort, keys, tmp, items, 0, 32, stream));
  KIT_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique, tmp, keys, nout, items, stream));
  if (sort > temp_bytes || unique > temp_bytes)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "a sort-unique of %lld items needs %zu bytes of CUB storage, %zu allocated", (long long)n,
            sort > unique ? sort : unique, temp_bytes);
  /* Recipe 3 of Rossetti's slides: sort (keys -> tmp), then keep the first of each run (tmp -> keys). */
  KIT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, sort, keys, tmp, items, 0, 32, stream));
  KIT_CUDA_CHECK(cub::DeviceSelect::Unique(temp, unique, tmp, keys, nout, items, stream));
}

extern "C" void launch_bfs_unpack(const uint32_t *bmap, const int64_t *offs, int64_t nwords, int64_t base,
                                  uint32_t first, uint32_t *out, cudaStream_t stream) {
  if (nwords <= 0) return;
  /* One thread per word, not grid-stride: the warp must own its 32 consecutive words. */
  const int64_t blocks = (nwords + kBlock - 1) / kBlock;
  if (blocks > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "an unpack of %lld words is too large", (long long)nwords);
  unpack_kernel<<<(unsigned)blocks, kBlock, 0, stream>>>(bmap, offs, nwords, base, first, out);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_pack(const uint32_t *list, int64_t n, int64_t nbits, uint32_t *bmap,
                                cudaStream_t stream) {
  if (n <= 0) return;
  pack_kernel<<<blocks_for(n), kBlock, 0, stream>>>(list, n, nbits, bmap);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_or(uint32_t *dst, const uint32_t *src, int64_t nwords, cudaStream_t stream) {
  if (nwords <= 0) return;
  or_kernel<<<blocks_for(nwords), kBlock, 0, stream>>>(dst, src, nwords);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_gather(const int64_t *offs, const int64_t *at, int n, int64_t *out,
                                  cudaStream_t stream) {
  if (n <= 0) return;
  gather_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(offs, at, n, out);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_discover_thread(const int64_t *xoff, const uint32_t *adj, const uint32_t *list,
                                           int64_t n, const int64_t *n_dev, int64_t src_base,
                                           bfs_dev_geom geom, int level, uint32_t *rowbits,
                                           unsigned long long *best, cudaStream_t stream) {
  if (n <= 0) return;
  discover_thread_kernel<<<blocks_for(n), kBlock, 0, stream>>>(xoff, adj, list, n, n_dev, src_base, geom,
                                                               level, rowbits, best);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_degrees(const int64_t *xoff, const uint32_t *list, int64_t n, const int64_t *n_dev,
                                   int64_t src_base, int64_t *deg, cudaStream_t stream) {
  if (n <= 0) return;
  degrees_kernel<<<blocks_for(n + 1), kBlock, 0, stream>>>(xoff, list, n, n_dev, src_base, deg);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_discover_edges(const int64_t *xoff, const uint32_t *adj, const uint32_t *list,
                                          int64_t n, const int64_t *offs, int64_t nnz, int64_t src_base,
                                          bfs_dev_geom geom, int level, uint32_t *rowbits,
                                          unsigned long long *best, cudaStream_t stream) {
  if (n <= 0 || nnz <= 0) return;
  discover_edges_kernel<<<blocks_for(nnz), kBlock, 0, stream>>>(xoff, adj, list, n, offs, src_base, geom,
                                                                level, rowbits, best);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_bottom_up(const int64_t *toff, const uint32_t *tadj, const uint32_t *colbits,
                                     const uint32_t *rowvis, int64_t w_lo, int64_t w_hi, bfs_dev_geom geom,
                                     int level, uint32_t *rowbits, unsigned long long *best,
                                     cudaStream_t stream) {
  if (w_hi <= w_lo) return;
  /* A warp per word: 32 threads per word, grid-stride beyond kMaxBlocks blocks. */
  bottom_up_kernel<<<blocks_for(32 * (w_hi - w_lo)), kBlock, 0, stream>>>(toff, tadj, colbits, rowvis, w_lo,
                                                                          w_hi, geom, level, rowbits, best);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_update(uint32_t *recv, uint32_t *visited, uint32_t *front, int32_t *level,
                                  int64_t nwords, int64_t own_count, int next_level, const int64_t *deg,
                                  unsigned long long *count, cudaStream_t stream) {
  if (nwords <= 0) return;
  const int64_t blocks = (nwords + kBlock - 1) / kBlock;
  if (blocks > INT_MAX)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "an update of %lld words is too large", (long long)nwords);
  update_kernel<<<(unsigned)blocks, kBlock, 0, stream>>>(recv, visited, front, level, nwords, own_count,
                                                         next_level, deg, count);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_bfs_parents(const int32_t *level, const int64_t *keys, int64_t own_count,
                                   int64_t own_begin, int64_t *parent, cudaStream_t stream) {
  if (own_count <= 0) return;
  parents_kernel<<<blocks_for(own_count), kBlock, 0, stream>>>(level, keys, own_count, own_begin, parent);
  KIT_CUDA_CHECK(cudaGetLastError());
}
