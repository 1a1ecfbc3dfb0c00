/* kernels.h: the laplace GPU kernels, reached only through these extern "C" launchers
 * (DESIGN.md Sec. 9; NVIDIA multi-gpu-programming-models jacobi_kernels.cu). Each
 * launcher checks the launch and returns immediately; work runs on `stream`. */
#ifndef LAPLACE_KERNELS_H
#define LAPLACE_KERNELS_H
#include <cuda_runtime_api.h>

#include "laplace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One sweep over local planes [l0, l1) of block b: un = update(u) on the interior points
 * of those planes (laplace_update in stencil.h). */
void launch_laplace_sweep(const laplace_block *b, const double *u, double *un, int l0, int l1, double alpha,
                          double beta, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
