/* kernels.cu: the tetfv step on the GPU (Paper III Sec. 3.2, `../shared/seeds/
 * 001_5c64d68c2bfeada2.txt`): "every b contiguous rows are turned into a b x 16 submatrix and
 * transposed. This allows coalesced accesses to values of A and I ... a thread block size
 * b = 128 yielded the best performance ... Tetrahedra beyond the last block of size b are
 * computed using a row-major kernel." One thread per row; thread r of block b reads slot j at
 * A[(b * 16 + j) * 128 + r], so a warp's 32 loads of a slot are 256 contiguous bytes. The row
 * is tetfv_row_at (row.h), the function the CPU oracle calls, with the slots 128 apart instead
 * of 1: the same 33 flops in the same order (built with --fmad=false), so the same bits. */
#include "kernels.h"
#include "kit/check.h"

__global__ void __launch_bounds__(TETFV_GPU_B)
    tetfv_blocked_kernel(int r0, const double *__restrict__ D, const double *__restrict__ A,
                         const int *__restrict__ I, const double *__restrict__ u, double *__restrict__ un) {
  const int r = (int)threadIdx.x;
  const size_t b = blockIdx.x;
  const size_t slot0 = b * (size_t)(TETFV_W * TETFV_GPU_B) + (size_t)r; /* slot 0 of this row */
  const int i = r0 + (int)(b * TETFV_GPU_B) + r;
  un[i] = tetfv_row_at(D[b * TETFV_GPU_B + (size_t)r], A + slot0, I + slot0, TETFV_GPU_B, u, i);
}

__global__ void tetfv_rowmajor_kernel(int r0, int n, const double *__restrict__ D,
                                      const double *__restrict__ A, const int *__restrict__ I,
                                      const double *__restrict__ u, double *__restrict__ un) {
  const int r = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (r >= n) return;
  un[r0 + r] = tetfv_row_at(D[r], A + (size_t)TETFV_W * r, I + (size_t)TETFV_W * r, 1, u, r0 + r);
}

__global__ void tetfv_pack_kernel(const int *__restrict__ idx, int n, const double *__restrict__ u,
                                  double *__restrict__ buf) {
  const int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < n) buf[k] = u[idx[k]];
}

extern "C" void launch_tetfv_rows(const tetfv_dev_rows *s, const double *u, double *un, cudaStream_t stream) {
  if (s->nblk > 0) {
    tetfv_blocked_kernel<<<(unsigned)s->nblk, TETFV_GPU_B, 0, stream>>>(s->r0, s->D, s->A, s->I, u, un);
    KIT_CUDA_CHECK(cudaGetLastError());
  }
  const size_t done = (size_t)s->nblk * TETFV_GPU_B;
  const int rem = s->r1 - s->r0 - (int)done;
  if (rem > 0) {
    tetfv_rowmajor_kernel<<<1, TETFV_GPU_B, 0, stream>>>(s->r0 + (int)done, rem, s->D + done,
                                                         s->A + done * TETFV_W, s->I + done * TETFV_W, u, un);
    KIT_CUDA_CHECK(cudaGetLastError());
  }
}

extern "C" void launch_tetfv_pack(const int *idx, int n, const double *u, double *buf, cudaStream_t stream) {
  if (n <= 0) return;
  const int bx = 256;
  tetfv_pack_kernel<<<(unsigned)((n + bx - 1) / bx), bx, 0, stream>>>(idx, n, u, buf);
  KIT_CUDA_CHECK(cudaGetLastError());
}
