/* kernels.cu: the half-sweep and the initial state on the GPU (Bernaschi et al. Sec. 3.1).
 * One thread per site of the colour being updated, x fastest across a warp, so the spin
 * and coupling loads of a warp are contiguous bytes; or, for the checkerboard with LX a
 * multiple of 8, one thread per four sites sharing one Philox draw. The per-site work is
 * lattice.h's ising_update_site / ising_update_quad, the functions the host sweep calls, so
 * the bits agree. */
#include "kernels.h"
#include "kit/check.h"

static const int kThreads = 256;

/* Blocks for `total` threads; a grid-stride loop covers the rest, so any size launches. */
static unsigned blocks_for(size_t total) {
  const size_t b = (total + kThreads - 1) / kThreads;
  return (unsigned)(b < 1u << 30 ? (b ? b : 1) : 1u << 30);
}

__global__ void ising_fill_kernel(ising_block b, ising_rules r, int8_t *spin, uint8_t *coupling) {
  const size_t per_part = (size_t)b.samples * b.part_sites;
  const size_t total = per_part * b.parts * (size_t)(b.n + 2);
  for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < total; idx += (size_t)gridDim.x * blockDim.x) {
    const size_t plane_part = idx / per_part, rem = idx % per_part;
    const int l = (int)(plane_part / b.parts), part = (int)(plane_part % b.parts);
    const int k = (int)(rem / b.part_sites);
    const size_t pos = rem % b.part_sites;
    ising_fill_site(&r, &b, spin, coupling, l, part, k, (int)(pos / b.width), (int)(pos % b.width));
  }
}

/* Checkerboard with LX % 8 == 0: a thread per four sites of a row, one Philox draw for all
 * four (ising_update_quad). */
__global__ void ising_half_sweep_quad_kernel(ising_block b, ising_rules r, int8_t *spin,
                                             const uint8_t *__restrict__ coupling, int colour, uint32_t t,
                                             ising_planes pl) {
  const int quads = b.width / 4;
  const size_t per_plane = (size_t)b.samples * b.rows * quads;
  const size_t total = per_plane * pl.count;
  for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < total; idx += (size_t)gridDim.x * blockDim.x) {
    const int j = (int)(idx / per_plane);
    const size_t rem = idx % per_plane;
    const size_t row_all = rem / quads; /* sample * rows + row */
    ising_update_quad(&r, &b, spin, coupling, colour, t, pl.first + j * pl.step, (int)(row_all / b.rows),
                      (int)(row_all % b.rows), (int)(rem % quads));
  }
}

__global__ void ising_half_sweep_kernel(ising_block b, ising_rules r, int8_t *spin, const uint8_t *__restrict__ coupling,
                                        int colour, uint32_t t, ising_planes pl) {
  const size_t per_plane = (size_t)b.samples * b.part_sites;
  const size_t total = per_plane * pl.count;
  for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < total; idx += (size_t)gridDim.x * blockDim.x) {
    const int j = (int)(idx / per_plane);
    const size_t rem = idx % per_plane;
    const int k = (int)(rem / b.part_sites);
    const size_t pos = rem % b.part_sites;
    ising_update_site(&r, &b, spin, coupling, colour, t, pl.first + j * pl.step, k, (int)(pos / b.width),
                      (int)(pos % b.width));
  }
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
  if (ising_quads(b)) {
    const size_t total = (size_t)b->samples * b->part_sites / 4 * planes.count;
    ising_half_sweep_quad_kernel<<<blocks_for(total), kThreads, 0, stream>>>(*b, *r, spin, coupling, colour, t, planes);
  } else {
    const size_t total = (size_t)b->samples * b->part_sites * planes.count;
    ising_half_sweep_kernel<<<blocks_for(total), kThreads, 0, stream>>>(*b, *r, spin, coupling, colour, t, planes);
  }
  KIT_CUDA_CHECK(cudaGetLastError());
}
