/* kernels.cu: the half-sweep and the initial state on the GPU (Bernaschi et al. Sec. 3.1).
 * Three half-sweep kernels, all drawing the Metropolis numbers of the contract (lattice.h):
 *   - checkerboard with LX % 8 == 0: a thread per four sites of a row that share one Philox
 *     draw (ising_update_quad, 32-bit loads);
 *   - sliced with LX % 8 == 0: a thread per two groups of four sites (in slices w, w+2, w+4,
 *     w+6) that share one draw each, eight sites counted four at a time in 32-bit words
 *     (sliced_groups.h);
 *   - otherwise a thread per site (ising_update_site), x fastest across a warp;
 * and for --layout msc, one bit per spin, a thread per word of a run of slices
 * (sliced_bits.h).
 * The per-site work is lattice.h's, the functions the host sweep calls, so the bits agree. */
#include "kernels.h"
#include "kit/check.h"
#include "sliced_bits.h"
#include "sliced_groups.h"

static const int kThreads = 256;

/* Blocks for `total` threads; a grid-stride loop covers the rest, so any size launches. */
static unsigned blocks_for(size_t total) {
  const size_t b = (total + kThreads - 1) / kThreads;
  return (unsigned)(b < 1u << 30 ? (b ? b : 1) : 1u << 30);
}

__global__ void ising_fill_kernel(ising_block b, ising_rules r, int8_t *spin, uint8_t *coupling) {
  const size_t per_part = (size_t)b.samples * b.part_sites;
  const size_t total = per_part * b.parts * (size_t)(b.n + 2);
  for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < total;
       idx += (size_t)gridDim.x * blockDim.x) {
    const size_t plane_part = idx / per_part, rem = idx % per_part;
    const int l = (int)(plane_part / b.parts), part = (int)(plane_part % b.parts);
    const int k = (int)(rem / b.part_sites);
    const size_t pos = rem % b.part_sites;
    ising_fill_site(&r, &b, spin, coupling, l, part, k, (int)(pos / b.width), (int)(pos % b.width));
  }
}

/* The half-sweep grid: x covers the (row, unit) pairs of a part, rows after rows, with one
 * 32-bit division per thread (a block spans several rows when a row has fewer units than
 * threads: at L = 512 a checkerboard row holds 64 quads); y covers (plane, sample) pairs
 * with a stride loop (the grid's y limit is 65535). No 64-bit divisions: they cost more than
 * a site's update. */
__device__ static inline bool unit_of(int units, int rows, int *row, int *unit) {
  const int idx = (int)blockIdx.x * kThreads + (int)threadIdx.x;
  if (idx >= units * rows) return false;
  *row = idx / units;
  *unit = idx - *row * units;
  return true;
}

/* Checkerboard with LX % 8 == 0: a thread per four sites of a row, one Philox draw for all
 * four (ising_update_quad). */
__global__ void ising_half_sweep_quad_kernel(ising_block b, ising_rules r, int8_t *spin,
                                             const uint8_t *__restrict__ coupling, int colour, uint32_t t,
                                             ising_planes pl) {
  int row, j;
  if (!unit_of(b.width / 4, b.rows, &row, &j)) return;
  for (int pk = (int)blockIdx.y; pk < pl.count * b.samples; pk += (int)gridDim.y) {
    const int plane = pk / b.samples, k = pk - plane * b.samples;
    ising_update_quad(&r, &b, spin, coupling, colour, t, pl.first + plane * pl.step, k, row, j);
  }
}

__global__ void ising_half_sweep_kernel(ising_block b, ising_rules r, int8_t *spin,
                                        const uint8_t *__restrict__ coupling, int colour, uint32_t t,
                                        ising_planes pl) {
  int row, i;
  if (!unit_of(b.width, b.rows, &row, &i)) return;
  for (int pk = (int)blockIdx.y; pk < pl.count * b.samples; pk += (int)gridDim.y) {
    const int plane = pk / b.samples, k = pk - plane * b.samples;
    ising_update_site(&r, &b, spin, coupling, colour, t, pl.first + plane * pl.step, k, row, i);
  }
}

/* Sliced with LX % 8 == 0: a thread per 8-block and ISING_OCTET_BASES consecutive bases, an
 * octet (two groups of four sites) per base (sliced_groups.h has the layout of the work and
 * why). x covers the 8-blocks of a part, y the runs of (sample, base) pairs, the bases of one
 * sample next to each other so that the blocks in flight share the slices they read in L2. */
__global__ void ising_half_sweep_sliced_kernel(ising_block b, ising_rules r, ising_octet_plan dv,
                                               int8_t *spin, const uint8_t *__restrict__ coupling, int colour,
                                               uint32_t t, ising_planes pl) {
  const uint32_t unit = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (unit >= (uint32_t)(b.part_sites / 8)) return;
  const uint32_t pks = (uint32_t)ising_octet_bases(pl) * (uint32_t)b.samples;
  for (uint32_t p0 = blockIdx.y * ISING_OCTET_BASES; p0 < pks; p0 += gridDim.y * ISING_OCTET_BASES)
    ising_octet_thread(&r, &b, &dv, spin, coupling, pl, colour, t, p0, unit);
}

/* --layout msc: a thread per word, grid-stride. */
__global__ void ising_bits_pack_kernel(ising_block b, const int8_t *spin, const uint8_t *coupling,
                                       uint32_t *sbits, uint32_t *jbits) {
  const size_t pw = ising_bits_plane_words(&b), total = (size_t)(b.n + 2) * pw;
  for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < total;
       w += (size_t)gridDim.x * blockDim.x) {
    sbits[w] = ising_bits_pack_spins(spin, w);
    if (w < (size_t)b.n * pw) ising_bits_pack_couplings(&b, coupling, jbits, w);
  }
}

__global__ void ising_bits_unpack_kernel(ising_block b, const uint32_t *sbits, int8_t *spin) {
  const size_t pw = ising_bits_plane_words(&b), total = (size_t)b.n * pw;
  for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < total;
       w += (size_t)gridDim.x * blockDim.x)
    ising_bits_unpack_spins(sbits[pw + w], spin + 32 * w);
}

/* x covers the words of a plane (every sample) times P threads a word, y the runs of slices. */
template <int P>
__global__ void ising_bits_half_sweep_kernel(ising_block b, ising_rules r, ising_bits_plan dv,
                                             uint32_t *sbits, const uint32_t *__restrict__ jbits, int colour,
                                             uint32_t t, ising_planes pl) {
  const uint32_t idx = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (idx >= (uint32_t)ising_bits_plane_words(&b) * P) return;
  for (int run = (int)blockIdx.y; run < ising_bits_runs(pl, dv.run); run += (int)gridDim.y)
    ising_bits_thread(&r, &b, &dv, sbits, jbits, pl, colour, t, idx / P, (int)(idx % P), P, run);
}

extern "C" void launch_ising_bits_pack(const ising_block *b, const int8_t *spin, const uint8_t *coupling,
                                       uint32_t *sbits, uint32_t *jbits, cudaStream_t stream) {
  ising_bits_pack_kernel<<<blocks_for((size_t)(b->n + 2) * ising_bits_plane_words(b)), kThreads, 0, stream>>>(
      *b, spin, coupling, sbits, jbits);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_ising_bits_unpack(const ising_block *b, const uint32_t *sbits, int8_t *spin,
                                         cudaStream_t stream) {
  ising_bits_unpack_kernel<<<blocks_for((size_t)b->n * ising_bits_plane_words(b)), kThreads, 0, stream>>>(
      *b, sbits, spin);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void ising_bits_slots(int slots[3]) {
  int dev = 0, sms = 0, per_sm[3] = {0, 0, 0};
  KIT_CUDA_CHECK(cudaGetDevice(&dev));
  KIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  KIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[0], ising_bits_half_sweep_kernel<1>,
                                                               kThreads, 0));
  KIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[1], ising_bits_half_sweep_kernel<2>,
                                                               kThreads, 0));
  KIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[2], ising_bits_half_sweep_kernel<4>,
                                                               kThreads, 0));
  for (int i = 0; i < 3; ++i) slots[i] = sms * (per_sm[i] > 0 ? per_sm[i] : 1);
}

extern "C" void launch_ising_bits_half_sweep(const ising_block *b, const ising_rules *r, uint32_t *sbits,
                                             const uint32_t *jbits, int colour, uint32_t t,
                                             ising_planes planes, const int slots[3], int parts, int run,
                                             cudaStream_t stream) {
  if (planes.count <= 0) return;
  const long long words = (long long)ising_bits_plane_words(b);
  ising_bits_shape sh = ising_bits_shape_of(words, planes.count, slots, kThreads);
  if (parts) sh.parts = parts;
  if (run) sh.run = run;
  const unsigned gx = (unsigned)((words * sh.parts + kThreads - 1) / kThreads);
  const int runs = ising_bits_runs(planes, sh.run);
  const dim3 grid(gx, (unsigned)(runs < 65535 ? runs : 65535));
  const ising_bits_plan dv = ising_bits_plan_of(b, planes, sh.run);
  if (sh.parts == 1)
    ising_bits_half_sweep_kernel<1>
        <<<grid, kThreads, 0, stream>>>(*b, *r, dv, sbits, jbits, colour, t, planes);
  else if (sh.parts == 2)
    ising_bits_half_sweep_kernel<2>
        <<<grid, kThreads, 0, stream>>>(*b, *r, dv, sbits, jbits, colour, t, planes);
  else
    ising_bits_half_sweep_kernel<4>
        <<<grid, kThreads, 0, stream>>>(*b, *r, dv, sbits, jbits, colour, t, planes);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_ising_fill(const ising_block *b, const ising_rules *r, int8_t *spin, uint8_t *coupling,
                                  cudaStream_t stream) {
  const size_t total = (size_t)b->samples * b->part_sites * b->parts * (size_t)(b->n + 2);
  ising_fill_kernel<<<blocks_for(total), kThreads, 0, stream>>>(*b, *r, spin, coupling);
  KIT_CUDA_CHECK(cudaGetLastError());
}

extern "C" void launch_ising_half_sweep(const ising_block *b, const ising_rules *r, int8_t *spin,
                                        const uint8_t *coupling, int colour, uint32_t t, ising_planes planes,
                                        cudaStream_t stream) {
  if (planes.count <= 0) return;
  if (ising_grouped(b, planes)) {
    /* The driver's message-size rule keeps a part below 2^31 sites. */
    const unsigned gx = (unsigned)((b->part_sites / 8 + kThreads - 1) / kThreads);
    const long long pk =
        ((long long)ising_octet_bases(planes) * b->samples + ISING_OCTET_BASES - 1) / ISING_OCTET_BASES;
    ising_half_sweep_sliced_kernel<<<dim3(gx, (unsigned)(pk < 65535 ? pk : 65535)), kThreads, 0, stream>>>(
        *b, *r, ising_octet_plan_of(b, planes), spin, coupling, colour, t, planes);
    KIT_CUDA_CHECK(cudaGetLastError());
    return;
  }
  const int quads = ising_quads(b), units = quads ? b->width / 4 : b->width;
  const long long gx = ((long long)units * b->rows + kThreads - 1) / kThreads;
  const long long pk = (long long)planes.count * b->samples;
  /* The driver's message-size rule keeps a part below 2^31 sites, so units * rows fits an int. */
  const dim3 grid((unsigned)gx, (unsigned)(pk < 65535 ? pk : 65535));
  if (quads) {
    ising_half_sweep_quad_kernel<<<grid, kThreads, 0, stream>>>(*b, *r, spin, coupling, colour, t, planes);
  } else {
    ising_half_sweep_kernel<<<grid, kThreads, 0, stream>>>(*b, *r, spin, coupling, colour, t, planes);
  }
  KIT_CUDA_CHECK(cudaGetLastError());
}
