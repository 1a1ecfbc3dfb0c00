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
void launch_ising_half_sweep(const ising_block *b, const ising_rules *r, int8_t *spin, const uint8_t *coupling,
                             int colour, uint32_t t, ising_planes planes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
