/* gpu_block.c: device memory of an ising slab (gpu_block.h). */
#include "gpu_block.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "kit/check.h"

void ising_dev_block_init(ising_dev_block *d, const ising_params *p, const ising_block *b, int device) {
  d->blk = *b;
  d->rules = ising_rules_of(p);
  d->p = p;
  d->device = device;
  KIT_CUDA_CHECK(cudaSetDevice(device));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->spin, (size_t)(b->n + 2) * b->plane_stride));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->coupling, (size_t)b->n * b->plane_stride));
  ising_dev_block_reset(d);
}

void ising_dev_block_reset(ising_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  if (d->p->restart) {
    /* The checkpoint's spins are on the host: build the state there, as the cpu variant
     * does, and copy it over. */
    const size_t spins = (size_t)(d->blk.n + 2) * d->blk.plane_stride, bonds = (size_t)d->blk.n * d->blk.plane_stride;
    int8_t *hs = kit_malloc(spins, "restart spins");
    uint8_t *hc = kit_malloc(bonds, "restart couplings");
    ising_fill(d->p, &d->blk, hs, hc, omp_get_max_threads());
    KIT_CUDA_CHECK(cudaMemcpy(d->spin, hs, spins, cudaMemcpyHostToDevice));
    KIT_CUDA_CHECK(cudaMemcpy(d->coupling, hc, bonds, cudaMemcpyHostToDevice));
    free(hs);
    free(hc);
  } else {
    launch_ising_fill(&d->blk, &d->rules, d->spin, d->coupling, 0);
  }
  /* Both paths: complete before the variants' non-blocking streams touch the spins. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void ising_dev_block_fetch(const ising_dev_block *d, int8_t *out) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaMemcpy(out, d->spin + d->blk.plane_stride, (size_t)d->blk.n * d->blk.plane_stride,
                            cudaMemcpyDeviceToHost));
}

void ising_prime_inboxes(void *const buf[2], size_t bytes) {
  for (int side = 0; side < 2; ++side)
    if (buf[side]) memset(buf[side], 1, bytes);
}

void ising_dev_block_free(ising_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaFree(d->spin));
  KIT_CUDA_CHECK(cudaFree(d->coupling));
}
