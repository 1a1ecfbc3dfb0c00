/* gpu_block.c: device-resident laplace block (gpu_block.h). */
#include "gpu_block.h"

#include <stdlib.h>

#include "kit/check.h"

void laplace_dev_block_init(laplace_dev_block *d, const laplace_params *p, const laplace_block *b,
                            int device) {
  d->blk = *b;
  d->device = device;
  const size_t bytes = b->points * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(device));
  double **field[3] = {&d->u, &d->un, &d->init};
  for (int f = 0; f < 3; ++f) {
    KIT_CUDA_CHECK(cudaMalloc((void **)&d->alloc[f], bytes + 16 * sizeof(double)));
    *field[f] = d->alloc[f] + LAPLACE_ALIGN_OFFSET;
  }
  double *h = kit_malloc(bytes, "initial state");
  laplace_fill(p, b, h);
  KIT_CUDA_CHECK(cudaMemcpy(d->init, h, bytes, cudaMemcpyHostToDevice));
  free(h);
  laplace_dev_block_reset(d);
}

void laplace_dev_block_reset(laplace_dev_block *d) {
  const size_t bytes = d->blk.points * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  /* Both fields carry the fixed boundary values, so swapping never loses them. */
  KIT_CUDA_CHECK(cudaMemcpy(d->u, d->init, bytes, cudaMemcpyDeviceToDevice));
  KIT_CUDA_CHECK(cudaMemcpy(d->un, d->init, bytes, cudaMemcpyDeviceToDevice));
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void laplace_dev_block_fetch(const laplace_dev_block *d, double *out) {
  const size_t bytes = d->blk.points * sizeof(double);
  double *h = kit_malloc(bytes, "fetched field");
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaMemcpy(h, d->u, bytes, cudaMemcpyDeviceToHost));
  laplace_copy_interior(&d->blk, h, 1, d->blk.nz + 1, out);
  free(h);
}

void laplace_dev_block_free(laplace_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  for (int f = 0; f < 3; ++f) KIT_CUDA_CHECK(cudaFree(d->alloc[f]));
}
