/* kernels.h: the tetfv GPU kernels, reached only through these extern "C" launchers
 * (DESIGN.md Sec. 9; NVIDIA multi-gpu-programming-models jacobi_kernels.cu). Each launcher
 * checks the launch and returns at once; the work runs on `stream`. */
#ifndef TETFV_KERNELS_H
#define TETFV_KERNELS_H
#include <cuda_runtime_api.h>

#include "tetfv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch range of rows on a device: local rows [r0, r1) in tetfv_block_rows' layout
 * (tetfv.h): nblk full blocks of TETFV_GPU_B rows, column-major, then the remainder rows
 * row-major. The arrays live on the device. */
typedef struct tetfv_dev_rows {
  int r0, r1; /* the local rows */
  int nblk;   /* full blocks: (r1 - r0) / TETFV_GPU_B */
  double *D;  /* r1 - r0 diagonal entries */
  double *A;  /* (r1 - r0) x TETFV_W weights */
  int *I;     /* (r1 - r0) x TETFV_W local column indices */
} tetfv_dev_rows;

/* un[i] = tetfv_row_at(...) for the rows of s (row.h): the blocked kernel for the full blocks,
 * the row-major kernel for the remainder, both on `stream`. u and un are fields of local
 * indices; un must not alias u. Nothing is launched for an empty range. */
void launch_tetfv_rows(const tetfv_dev_rows *s, const double *u, double *un, cudaStream_t stream);

/* buf[k] = u[idx[k]] for k < n: the send lists packed into one contiguous buffer (Paper III
 * Sec. 3.1, "packed into a contiguous buffer during every round"). */
void launch_tetfv_pack(const int *idx, int n, const double *u, double *buf, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
