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
/* The same on a box of points r = {i0, i1, j0, j1, l0, l1} (local, half-open; a part of
 * laplace_layer_parts or the inner box). */
void launch_laplace_sweep_box(const laplace_block *b, const double *u, double *un, const int r[6],
                              double alpha, double beta, cudaStream_t stream);
/* An x or y face of the field u (laplace_face_shape_of: the interior layer next to it, ghost
 * 0, or the ghost layer beyond, ghost 1) into its packed buffer (to_buf 1) or back (0). */
void launch_laplace_face_copy(const laplace_block *b, double *u, int face, int ghost, double *buf, int to_buf,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
