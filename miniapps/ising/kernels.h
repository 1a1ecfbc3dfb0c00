/* kernels.h: the ising GPU kernels, reached only through these extern "C" launchers
 * (DESIGN.md Sec. 9). Each launcher checks the launch and returns; work runs on `stream`. */
#ifndef ISING_KERNELS_H
#define ISING_KERNELS_H
#include <cuda_runtime_api.h>

#include "lattice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initial spins of local planes 0..n+1 and couplings of planes 1..n (ising_fill_site). */
void launch_ising_fill(const ising_block *b, const ising_rules *r, int8_t *spin, uint8_t *coupling,
                       cudaStream_t stream);
/* One half-sweep of colour c, sweep t, over the given local planes: the same sites and the
 * same bits as ising_sweep_host (kernels.cu says which kernel serves which layout). */
void launch_ising_half_sweep(const ising_block *b, const ising_rules *r, int8_t *spin,
                             const uint8_t *coupling, int colour, uint32_t t, ising_planes planes,
                             cudaStream_t stream);

/* --layout msc (sliced_bits.h): spins and couplings one bit each. Pack: the spins of local
 * planes 0..n+1 and the couplings of planes 1..n from the byte layout; unpack: local planes
 * 1..n of the spins back to bytes (n * plane_stride). */
void launch_ising_bits_pack(const ising_block *b, const int8_t *spin, const uint8_t *coupling,
                            uint32_t *sbits, uint32_t *jbits, cudaStream_t stream);
void launch_ising_bits_unpack(const ising_block *b, const uint32_t *sbits, int8_t *spin, cudaStream_t stream);
/* One half-sweep of colour c, sweep t, over the given local planes on the bits: the same
 * sites and the same spins as ising_sweep_host. The launch's shape follows
 * ising_bits_shape_of from `slots` (ising_bits_slots's), except where parts (threads a word)
 * or run (slices a thread) are not 0. */
void launch_ising_bits_half_sweep(const ising_block *b, const ising_rules *r, uint32_t *sbits,
                                  const uint32_t *jbits, int colour, uint32_t t, ising_planes planes,
                                  const int slots[3], int parts, int run, cudaStream_t stream);
/* Blocks of the msc kernel that fit on the current device at once, with 1, 2 and 4 threads a
 * word. */
void ising_bits_slots(int slots[3]);

#ifdef __cplusplus
}
#endif
#endif
