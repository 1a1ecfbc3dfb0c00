/* kernels.cu: the particles time step on the GPU (Bernaschi et al. Sec. 3.2): velocity Verlet
 * and binning, the cell matrix built by a counting sort, and the forces over the cells, one
 * thread per particle. The physics is lj.h's (and walls.h's reflection in an irregular
 * domain), the binning binning.h's: the functions the cpu variant calls, so a GPU thread sums
 * a particle's pairs in the cpu variant's order (neighbour cells in a fixed order, the
 * particles of a cell by id), reflects it off a wall by the same rule and, under KIT_EXACT
 * (--fmad=false; double +, -, *, / are correctly rounded on the GPU as on the host), gets the
 * same bits. Atomics appear only where the result does not depend on their order: integer
 * counts (cells, wall hits), slots that a sort by id puts back in order, and the leavers,
 * which the host sorts by id. No atomics on forces. */
#include <cub/device/device_scan.cuh>

#include "images.h"
#include "kernels.h"
#include "kit/check.h"
#include "lj.h"
#include "neighbor.h"
#include "walls.h"

static unsigned blocks_for(int n, int threads) {
  return (unsigned)((n + threads - 1) / threads);
}

__global__ void pt_kick_drift_bin_kernel(int n, const int64_t *__restrict__ id, double *__restrict__ x,
                                         double *__restrict__ v, const double *__restrict__ f, double half_dt,
                                         double dt, pt_walls w, pt_binner b, int first_external,
                                         const int *__restrict__ wrap, int *__restrict__ cell,
                                         double *__restrict__ leave, unsigned long long *status) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double *xi = x + 3 * (size_t)i, *vi = v + 3 * (size_t)i;
  const double x0[3] = {xi[0], xi[1], xi[2]};
  vv_kick(vi, f + 3 * (size_t)i, half_dt);
  vv_drift(xi, vi, dt);
  if (w.mask) {
    /* An irregular domain: the cpu variant's reflection, before the binning as there. */
    const int r = pt_wall_reflect(&w, x0, xi, vi);
    if (r > 0) atomicAdd(&status[PT_ST_WALL_HITS], 1ULL);
    if (r < 0) {
      atomicAdd(&status[PT_ST_UNREFLECTED], 1ULL);
      atomicMin(&status[PT_ST_UNREFLECTED_ID], (unsigned long long)id[i]);
    }
  }
  const int c = pt_bin(&b, xi);
  if (c < 0) {
    /* Moved more than one cell (dt too large, or a blow-up): the host stops the run. */
    atomicAdd(&status[PT_ST_LOST], 1ULL);
    atomicMin(&status[PT_ST_LOST_ID], (unsigned long long)id[i]);
    cell[i] = -1;
    return;
  }
  if (c >= first_external && wrap && wrap[4 * (c - first_external)]) {
    /* Its connection is this rank itself: the migrant the host path would send back here. */
    const int w = pt_wrap_migrant(&b, wrap + 4 * (c - first_external) + 1, first_external, xi);
    if (w >= 0) {
      atomicAdd(&status[PT_ST_WRAPPED], 1ULL);
      cell[i] = w;
      return;
    }
  }
  if (c >= first_external) {
    const unsigned long long slot = atomicAdd(&status[PT_ST_LEAVERS], 1ULL);
    double *r = leave + 8 * (size_t)slot; /* slot < n <= the buffer's capacity */
    r[0] = (double)id[i];
    r[1] = xi[0], r[2] = xi[1], r[3] = xi[2];
    r[4] = vi[0], r[5] = vi[1], r[6] = vi[2];
    r[7] = (double)c;
    cell[i] = -1;
    return;
  }
  cell[i] = c;
}

extern "C" void launch_pt_kick_drift_bin(int n, const int64_t *id, double *x, double *v, const double *f,
                                         double half_dt, double dt, pt_walls w, pt_binner b,
                                         int first_external, const int *wrap, int *cell, double *leave,
                                         unsigned long long *status, cudaStream_t stream) {
  if (n <= 0) return;
  pt_kick_drift_bin_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, id, x, v, f, half_dt, dt, w, b,
                                                                   first_external, wrap, cell, leave, status);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_count_kernel(int n, const int *__restrict__ cell, int *count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cell[i];
  if (c >= 0) atomicAdd(&count[c], 1);
}

extern "C" void launch_pt_count(int n, const int *cell, int *count, cudaStream_t stream) {
  if (n <= 0) return;
  pt_count_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, cell, count);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" size_t pt_scan_temp_bytes(int n) {
  size_t bytes = 0;
  KIT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, (const int *)NULL, (int *)NULL, n));
  return bytes;
}

extern "C" void launch_pt_scan(const int *in, int *out, int n, void *temp, size_t temp_bytes,
                               cudaStream_t stream) {
  if (n <= 0) return;
  size_t bytes = temp_bytes;
  KIT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, stream));
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_scatter_kernel(int n, const int *__restrict__ cell, const int *__restrict__ cstart,
                                  int *fill, int *__restrict__ perm) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cell[i];
  if (c < 0) return;
  perm[cstart[c] + atomicAdd(&fill[c], 1)] = i;
}

extern "C" void launch_pt_scatter(int n, const int *cell, const int *cstart, int *fill, int *perm,
                                  cudaStream_t stream) {
  if (n <= 0) return;
  pt_scatter_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, cell, cstart, fill, perm);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_sort_rows_kernel(int ncells, const int *__restrict__ cstart,
                                    const int64_t *__restrict__ id, int *__restrict__ perm) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  const int b = cstart[c], e = cstart[c + 1];
  /* Insertion sort: a dozen particles per cell at the benchmark density. */
  for (int i = b + 1; i < e; ++i) {
    const int p = perm[i];
    const int64_t key = id[p];
    int j = i;
    while (j > b && id[perm[j - 1]] > key) {
      perm[j] = perm[j - 1];
      --j;
    }
    perm[j] = p;
  }
}

extern "C" void launch_pt_sort_rows(int ncells, const int *cstart, const int64_t *id, int *perm,
                                    cudaStream_t stream) {
  if (ncells <= 0) return;
  pt_sort_rows_kernel<<<blocks_for(ncells, 128), 128, 0, stream>>>(ncells, cstart, id, perm);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_gather_kernel(int n, const int *__restrict__ perm, const int64_t *__restrict__ id,
                                 const double *__restrict__ x, const double *__restrict__ v,
                                 const int *__restrict__ cell, int64_t *__restrict__ id2,
                                 double *__restrict__ x2, double *__restrict__ v2, int *__restrict__ cell2) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int i = perm[s];
  id2[s] = id[i];
  cell2[s] = cell[i];
  for (int a = 0; a < 3; ++a) {
    x2[3 * (size_t)s + a] = x[3 * (size_t)i + a];
    v2[3 * (size_t)s + a] = v[3 * (size_t)i + a];
  }
}

extern "C" void launch_pt_gather(int n, const int *perm, const int64_t *id, const double *x, const double *v,
                                 const int *cell, int64_t *id2, double *x2, double *v2, int *cell2,
                                 cudaStream_t stream) {
  if (n <= 0) return;
  pt_gather_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, perm, id, x, v, cell, id2, x2, v2, cell2);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_image_lengths_kernel(int npairs, const int *__restrict__ pair,
                                        const int *__restrict__ cstart, int *__restrict__ len) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q > npairs) return;
  if (q == npairs) {
    len[q] = 0;
    return;
  }
  const int c = pair[4 * (size_t)q];
  len[q] = cstart[c + 1] - cstart[c];
}

extern "C" void launch_pt_image_lengths(int npairs, const int *pair, const int *cstart, int *len,
                                        cudaStream_t stream) {
  pt_image_lengths_kernel<<<blocks_for(npairs + 1, 256), 256, 0, stream>>>(npairs, pair, cstart, len);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_image_candidates_kernel(int npairs, const int *__restrict__ pair,
                                           const int *__restrict__ off, const int *__restrict__ cstart,
                                           const int64_t *__restrict__ id, const double *__restrict__ x,
                                           pt_binner b, int first_external, int64_t *__restrict__ cand_id,
                                           double *__restrict__ cand_x, int *__restrict__ cand_src,
                                           int *__restrict__ cand_e) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= npairs) return;
  const int *pq = pair + 4 * (size_t)q;
  const int c = pq[0];
  int k = off[q];
  /* A dozen particles a cell at the benchmark density: one thread walks the row. */
  for (int i = cstart[c]; i < cstart[c + 1]; ++i, ++k) {
    cand_id[k] = id[i];
    cand_src[k] = i;
    cand_e[k] = pt_image_of(&b, pq + 1, first_external, x + 3 * (size_t)i, cand_x + 3 * (size_t)k);
  }
}

extern "C" void launch_pt_image_candidates(int npairs, const int *pair, const int *off, const int *cstart,
                                           const int64_t *id, const double *x, pt_binner b,
                                           int first_external, int64_t *cand_id, double *cand_x,
                                           int *cand_src, int *cand_e, cudaStream_t stream) {
  if (npairs <= 0) return;
  pt_image_candidates_kernel<<<blocks_for(npairs, 128), 128, 0, stream>>>(
      npairs, pair, off, cstart, id, x, b, first_external, cand_id, cand_x, cand_src, cand_e);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_place_images_kernel(int nthreads, int ne, const int *__restrict__ rows,
                                       const int *__restrict__ perm, const double *__restrict__ cand_x,
                                       const int64_t *__restrict__ cand_id, const int *__restrict__ cand_src,
                                       int base, double *__restrict__ x, int64_t *__restrict__ id,
                                       int *__restrict__ src, int *__restrict__ cstart_ext) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nthreads) return;
  if (s < rows[ne]) {
    const int k = perm[s];
    for (int a = 0; a < 3; ++a) x[3 * ((size_t)base + s) + a] = cand_x[3 * (size_t)k + a];
    id[(size_t)base + s] = cand_id[k];
    src[s] = cand_src[k];
  }
  if (s >= 1 && s <= ne) cstart_ext[s] = base + rows[s];
}

extern "C" void launch_pt_place_images(int ncand, int ne, const int *rows, const int *perm,
                                       const double *cand_x, const int64_t *cand_id, const int *cand_src,
                                       int base, double *x, int64_t *id, int *src, int *cstart_ext,
                                       cudaStream_t stream) {
  const int n = ncand > ne + 1 ? ncand : ne + 1;
  pt_place_images_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, ne, rows, perm, cand_x, cand_id, cand_src,
                                                                 base, x, id, src, cstart_ext);
  KIT_CUDA_CHECK(cudaGetLastError());
}

/* ---- --neighbor list (neighbor.h) ------------------------------------------------------ */
__global__ void pt_bin_kernel(int n, const int64_t *__restrict__ id, const double *__restrict__ x,
                              pt_binner b, int first_external, int *__restrict__ cell,
                              unsigned long long *status) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = pt_bin(&b, x + 3 * (size_t)i);
  if (c < 0 || c >= first_external) {
    atomicAdd(&status[PT_ST_LOST], 1ULL);
    atomicMin(&status[PT_ST_LOST_ID], (unsigned long long)id[i]);
    cell[i] = -1;
    return;
  }
  cell[i] = c;
}

extern "C" void launch_pt_bin(int n, const int64_t *id, const double *x, pt_binner b, int first_external,
                              int *cell, unsigned long long *status, cudaStream_t stream) {
  if (n <= 0) return;
  pt_bin_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, id, x, b, first_external, cell, status);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_kick_drift_wrap_kernel(int n, double *__restrict__ x, double *__restrict__ v,
                                          const double *__restrict__ f, double half_dt, double dt, pt_order o,
                                          const double *__restrict__ xb, double half_skin2,
                                          unsigned long long *status) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double *xi = x + 3 * (size_t)i, *vi = v + 3 * (size_t)i;
  vv_kick(vi, f + 3 * (size_t)i, half_dt);
  vv_drift(xi, vi, dt);
  pt_list_wrap(&o, xi);
  if (pt_list_far_one(&o, xi, xb + 3 * (size_t)i, half_skin2)) atomicAdd(&status[PT_ST_FAR], 1ULL);
}

extern "C" void launch_pt_kick_drift_wrap(int n, double *x, double *v, const double *f, double half_dt,
                                          double dt, pt_order o, const double *xb, double half_skin2,
                                          unsigned long long *status, cudaStream_t stream) {
  if (n <= 0) return;
  pt_kick_drift_wrap_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, x, v, f, half_dt, dt, o, xb,
                                                                    half_skin2, status);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_order_slots_kernel(int nslots, const double *__restrict__ x, pt_order o,
                                      int *__restrict__ kx) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nslots) return;
  for (int a = 0; a < 3; ++a)
    kx[3 * (size_t)j + a] = cell_coord(x[3 * (size_t)j + a], o.inv_side[a], o.box[a], o.nc[a]);
}

extern "C" void launch_pt_order_slots(int nslots, const double *x, pt_order o, int *kx, cudaStream_t stream) {
  if (nslots <= 0) return;
  pt_order_slots_kernel<<<blocks_for(nslots, 256), 256, 0, stream>>>(nslots, x, o, kx);
  KIT_CUDA_CHECK(cudaGetLastError());
}

/* A build, a warp per particle (nlist.c builds the same lists a thread per particle with
 * pt_list_build_one). The thread-per-particle form ran a counting sort per list in scratch
 * memory and walked each neighbour cell with lanes at different cells: 16 ms at 2 M atoms on
 * an H200. Here the warp's lanes take the 27 cells' rows as one run of candidates, 32 at a
 * time (consecutive rows: coalesced loads), keep those within rl (pt_list_within, the host's
 * test), and the kept slots go to shared memory; each kept entry's place in (code, id) order
 * is then the number of entries before it (keys unique: a slot and a copy of it are never
 * both within rl, the box being at least three build cells across), so the list is written
 * in order without a sort. A list longer than `cap` is only counted (count[i]); the host
 * builds again with room for the longest (stat[1]). */
#define LB_ID_BITS 40 /* a key: code << 40 | id (ids below 2^40) */

__global__ void pt_list_build_kernel(int n, const int *__restrict__ cell, const double *__restrict__ x,
                                     const int *__restrict__ kx, const int64_t *__restrict__ id,
                                     const int *__restrict__ nbr, const int *__restrict__ cstart, double rl2,
                                     int cap, int st, int *__restrict__ count, int *__restrict__ list,
                                     int *__restrict__ code, const int *__restrict__ src,
                                     unsigned long long *stat) {
  extern __shared__ unsigned long long lb_key[]; /* cap keys per warp, then cap slots per warp */
  __shared__ int row0[PT_LIST_BUILD_WARPS][27], first[PT_LIST_BUILD_WARPS][27];
  const unsigned all = 0xffffffffu;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, warps = blockDim.x >> 5;
  unsigned long long *key = lb_key + (size_t)w * cap;
  int *slot = (int *)(lb_key + (size_t)warps * cap) + (size_t)w * cap;
  unsigned long long total = 0, longest = 0;
  for (int i = blockIdx.x * warps + w; i < n; i += gridDim.x * warps) {
    /* Lane m < 27 holds neighbour cell m's rows; a scan numbers the candidates across them. */
    int b = 0, len = 0;
    if (lane < 27) {
      const int nb = nbr[27 * cell[i] + lane];
      b = cstart[nb];
      len = cstart[nb + 1] - b;
    }
    int inc = len;
    for (int d = 1; d < 32; d <<= 1) {
      const int v = __shfl_up_sync(all, inc, d);
      if (lane >= d) inc += v;
    }
    const int cand = __shfl_sync(all, inc, 31);
    __syncwarp();
    if (lane < 27) {
      row0[w][lane] = b;
      first[w][lane] = inc - len;
    }
    __syncwarp();
    const double xi = x[3 * (size_t)i], yi = x[3 * (size_t)i + 1], zi = x[3 * (size_t)i + 2];
    int m = 0;
    for (int t0 = 0; t0 < cand; t0 += 32) {
      const int t = t0 + lane;
      int keep = 0, j = -1;
      if (t < cand) {
        int lo = 0, hi = 26; /* the last cell whose candidates start at or before t (it has rows) */
        while (lo < hi) {
          const int mid = (lo + hi + 1) >> 1;
          if (first[w][mid] <= t)
            lo = mid;
          else
            hi = mid - 1;
        }
        j = row0[w][lo] + (t - first[w][lo]);
        keep = pt_list_within(xi, yi, zi, x + 3 * (size_t)j, rl2) & (j != i);
      }
      const unsigned kept = __ballot_sync(all, keep);
      const int at = m + __popc(kept & ((1u << lane) - 1u));
      if (keep && at < cap) slot[at] = j;
      m += __popc(kept);
    }
    __syncwarp();
    if (m <= cap) {
      for (int k = lane; k < m; k += 32) {
        const int j = slot[k];
        const int c = pt_order_offset_code(kx + 3 * (size_t)i, kx + 3 * (size_t)j);
        key[k] = (unsigned long long)c << LB_ID_BITS | (unsigned long long)id[j];
      }
      __syncwarp();
      for (int k = lane; k < m; k += 32) {
        const unsigned long long mine = key[k];
        int r = 0;
        for (int q = 0; q < m; ++q) r += key[q] < mine || (key[q] == mine && q < k);
        const int j = slot[k];
        PT_AT(list + i, r, st) = j >= n ? src[j - n] : j; /* a copy names the particle it copies */
        PT_AT(code + i, r, st) = (int)(mine >> LB_ID_BITS);
      }
    }
    if (lane == 0) count[i] = m;
    total += (unsigned long long)m;
    longest = longest > (unsigned long long)m ? longest : (unsigned long long)m;
    __syncwarp(); /* the next particle reuses the warp's shared rows */
  }
  if (lane == 0 && total) {
    atomicAdd(&stat[0], total);
    atomicMax(&stat[1], longest);
  }
}

extern "C" size_t pt_list_build_shared(int cap) {
  return (size_t)PT_LIST_BUILD_WARPS * (size_t)cap * (sizeof(unsigned long long) + sizeof(int));
}

extern "C" void launch_pt_list_build(int n, const int *cell, const double *x, const int *kx,
                                     const int64_t *id, const int *nbr, const int *cstart, double rl2,
                                     int cap, int st, int *count, int *list, int *code, const int *src,
                                     unsigned long long *stat, cudaStream_t stream) {
  if (n <= 0) return;
  const size_t shared = pt_list_build_shared(cap);
  if (shared + PT_LIST_BUILD_STATIC > 48 * 1024) /* beyond the default: opt in */
    KIT_CUDA_CHECK(
        cudaFuncSetAttribute(pt_list_build_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  int dev = 0, sms = 0;
  KIT_CUDA_CHECK(cudaGetDevice(&dev));
  KIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  /* Enough blocks to fill the GPU; each warp then takes particles i, i + grid warps, ... */
  const int need = (n + PT_LIST_BUILD_WARPS - 1) / PT_LIST_BUILD_WARPS,
            blocks = need < 32 * sms ? need : 32 * sms;
  pt_list_build_kernel<<<blocks, 32 * PT_LIST_BUILD_WARPS, shared, stream>>>(
      n, cell, x, kx, id, nbr, cstart, rl2, cap, st, count, list, code, src, stat);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_list_positions_kernel(int n, const double *__restrict__ x, pt_order o,
                                         int *__restrict__ kc, unsigned char *__restrict__ moved,
                                         double *__restrict__ xb) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  pt_order_cells(&o, x + 3 * (size_t)i, kc + 9 * (size_t)i);
  moved[i] = 0;
  for (int a = 0; a < 3; ++a) xb[3 * (size_t)i + a] = x[3 * (size_t)i + a];
}

extern "C" void launch_pt_list_positions(int n, const double *x, pt_order o, int *kc, unsigned char *moved,
                                         double *xb, cudaStream_t stream) {
  if (n <= 0) return;
  pt_list_positions_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, x, o, kc, moved, xb);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_list_cells_kernel(int n, const double *__restrict__ x, pt_order o, int *__restrict__ kc,
                                     unsigned char *__restrict__ moved) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  moved[i] = pt_order_cells_update(&o, x + 3 * (size_t)i, kc + 9 * (size_t)i);
}

extern "C" void launch_pt_list_cells(int n, const double *x, pt_order o, int *kc, unsigned char *moved,
                                     cudaStream_t stream) {
  if (n <= 0) return;
  pt_list_cells_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, x, o, kc, moved);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_list_forces_kernel(int i0, int i1, const double *__restrict__ x, pt_order o,
                                      const int *__restrict__ kc, const unsigned char *__restrict__ moved,
                                      const int64_t *__restrict__ id, const int *__restrict__ count, int st,
                                      int *__restrict__ list, int *__restrict__ code, double rc2,
                                      double eshift, double *__restrict__ f, double *__restrict__ pe,
                                      double *__restrict__ vir) {
  const int i = i0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= i1) return;
  const int m = count[i];
  /* Transposed lists: entry k of every particle of a warp in one line (neighbor.h's PT_AT). */
  pt_list_reorder(&o, i, x, kc, moved, id, list + i, code + i, st, 0, m);
  lj_force_list(i, x, list + i, st, 0, m, &o, rc2, eshift, f + 3 * (size_t)i, pe + i, vir + i);
}

extern "C" void launch_pt_list_forces(int i0, int i1, const double *x, pt_order o, const int *kc,
                                      const unsigned char *moved, const int64_t *id, const int *count, int st,
                                      int *list, int *code, double rc2, double eshift, double *f, double *pe,
                                      double *vir, cudaStream_t stream) {
  if (i1 <= i0) return;
  pt_list_forces_kernel<<<blocks_for(i1 - i0, 128), 128, 0, stream>>>(i0, i1, x, o, kc, moved, id, count, st,
                                                                      list, code, rc2, eshift, f, pe, vir);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_forces_kernel(int i0, int i1, const int *__restrict__ cell, const double *__restrict__ x,
                                 const int *__restrict__ nbr, const int *__restrict__ cstart, double rc2,
                                 double eshift, double *__restrict__ f, double *__restrict__ pe,
                                 double *__restrict__ vir) {
  const int i = i0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= i1) return;
  lj_force_on(i, cell[i], x, nbr, cstart, rc2, eshift, f + 3 * (size_t)i, pe + i, vir + i);
}

extern "C" void launch_pt_forces(int i0, int i1, const int *cell, const double *x, const int *nbr,
                                 const int *cstart, double rc2, double eshift, double *f, double *pe,
                                 double *vir, cudaStream_t stream) {
  if (i1 <= i0) return;
  pt_forces_kernel<<<blocks_for(i1 - i0, 128), 128, 0, stream>>>(i0, i1, cell, x, nbr, cstart, rc2, eshift, f,
                                                                 pe, vir);
  KIT_CUDA_CHECK(cudaGetLastError());
}

__global__ void pt_kick_kernel(int n, double *__restrict__ v, const double *__restrict__ f, double half_dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vv_kick(v + 3 * (size_t)i, f + 3 * (size_t)i, half_dt);
}

extern "C" void launch_pt_kick(int n, double *v, const double *f, double half_dt, cudaStream_t stream) {
  if (n <= 0) return;
  pt_kick_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, v, f, half_dt);
  KIT_CUDA_CHECK(cudaGetLastError());
}

/* Thermo: PT_THERMO_PARTIALS blocks of TH_THREADS threads, a grid-stride loop (the same
 * particles to the same thread for a given n), then a fixed tree in shared memory; a second
 * kernel reduces the partials by the same tree. */
#define TH_THREADS 256
static_assert(PT_THERMO_PARTIALS <= TH_THREADS, "the final thermo kernel reduces one partial per thread");

static __device__ void tree6(double (*sh)[TH_THREADS], int tid) {
  for (int s = TH_THREADS / 2; s > 0; s >>= 1) {
    if (tid < s)
      for (int k = 0; k < 6; ++k) sh[k][tid] += sh[k][tid + s];
    __syncthreads();
  }
}

__global__ void pt_thermo_partial_kernel(int n, const double *__restrict__ v, const double *__restrict__ pe,
                                         const double *__restrict__ vir, double *__restrict__ partials) {
  __shared__ double sh[6][TH_THREADS];
  const int tid = threadIdx.x;
  double a[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  for (int i = blockIdx.x * TH_THREADS + tid; i < n; i += PT_THERMO_PARTIALS * TH_THREADS) {
    const double *vi = v + 3 * (size_t)i;
    a[0] += pe[i];
    a[1] += 0.5 * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
    a[2] += vir[i];
    a[3] += vi[0];
    a[4] += vi[1];
    a[5] += vi[2];
  }
  for (int k = 0; k < 6; ++k) sh[k][tid] = a[k];
  __syncthreads();
  tree6(sh, tid);
  if (tid < 6) partials[6 * blockIdx.x + tid] = sh[tid][0];
}

__global__ void pt_thermo_final_kernel(const double *__restrict__ partials, double *__restrict__ row) {
  __shared__ double sh[6][TH_THREADS];
  const int tid = threadIdx.x;
  for (int k = 0; k < 6; ++k) sh[k][tid] = tid < PT_THERMO_PARTIALS ? partials[6 * tid + k] : 0.0;
  __syncthreads();
  tree6(sh, tid);
  if (tid < 6) row[tid] = sh[tid][0];
}

extern "C" void launch_pt_thermo(int n, const double *v, const double *pe, const double *vir,
                                 double *partials, double *row, cudaStream_t stream) {
  /* Always launched (n = 0 gives a row of zeros): the row must be written every step. */
  pt_thermo_partial_kernel<<<PT_THERMO_PARTIALS, TH_THREADS, 0, stream>>>(n, v, pe, vir, partials);
  KIT_CUDA_CHECK(cudaGetLastError());
  pt_thermo_final_kernel<<<1, TH_THREADS, 0, stream>>>(partials, row);
  KIT_CUDA_CHECK(cudaGetLastError());
}
