/* gpu_block.c: device memory of an ising slab (gpu_block.h). */
#include "gpu_block.h"

#include "kernels.h"
#include "kit/check.h"

void ising_dev_block_init(ising_dev_block *d, const ising_params *p, const ising_block *b, int device) {
  d->blk = *b;
  d->rules = ising_rules_of(p);
  d->device = device;
  KIT_CUDA_CHECK(cudaSetDevice(device));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->spin, (size_t)(b->n + 2) * b->plane_stride));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->coupling, (size_t)b->n * b->plane_stride));
  ising_dev_block_reset(d);
}

void ising_dev_block_reset(ising_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  launch_ising_fill(&d->blk, &d->rules, d->spin, d->coupling, 0);
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void ising_dev_block_fetch(const ising_dev_block *d, int8_t *out) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaMemcpy(out, d->spin + d->blk.plane_stride, (size_t)d->blk.n * d->blk.plane_stride,
                            cudaMemcpyDeviceToHost));
}

void ising_dev_block_free(ising_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaFree(d->spin));
  KIT_CUDA_CHECK(cudaFree(d->coupling));
}
