/* gpu_block.c: device memory of an lbm slab (gpu_block.h). */
#include "gpu_block.h"

#include <stdlib.h>

#include "kit/check.h"

void lbm_dev_block_init(lbm_dev_block *d, const lbm_params *p, const lbm_block *b, int device) {
  d->blk = *b;
  d->geom = lbm_geom_of(p, b);
  d->p = p;
  d->device = device;
  const size_t bytes = b->total * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(device));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->f, bytes));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->fn, bytes));
  KIT_CUDA_CHECK(cudaMalloc((void **)&d->init, bytes));
  /* The initial state is built once on the host (lbm_fill, the oracle's own) and kept. */
  double *h = kit_malloc(bytes, "initial lattice");
  lbm_fill(p, b, h);
  KIT_CUDA_CHECK(cudaMemcpy(d->init, h, bytes, cudaMemcpyHostToDevice));
  free(h);
  lbm_dev_block_reset(d);
}

void lbm_dev_block_reset(lbm_dev_block *d) {
  const size_t bytes = d->blk.total * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaMemcpy(d->f, d->init, bytes, cudaMemcpyDeviceToDevice));
  KIT_CUDA_CHECK(cudaMemcpy(d->fn, d->init, bytes, cudaMemcpyDeviceToDevice));
  /* Device-to-device copies do not wait on the host, and the variants' streams are
   * non-blocking: without this their first kernels could read a lattice still being copied. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

double *lbm_dev_to_host(const double *f, size_t total, int device) {
  const size_t bytes = total * sizeof(double);
  double *h = kit_malloc(bytes, "fetched lattice");
  KIT_CUDA_CHECK(cudaSetDevice(device));
  KIT_CUDA_CHECK(cudaMemcpy(h, f, bytes, cudaMemcpyDeviceToHost));
  return h;
}

void lbm_dev_block_fetch(const lbm_dev_block *d, double *macro) {
  double *h = lbm_dev_to_host(d->f, d->blk.total, d->device);
  lbm_macroscopic(d->p, &d->blk, h, 1, d->blk.nz + 1, macro);
  free(h);
}

void lbm_dev_block_fetch_lattice(const lbm_dev_block *d, double *out) {
  double *h = lbm_dev_to_host(d->f, d->blk.total, d->device);
  lbm_lattice_planes(&d->blk, h, out);
  free(h);
}

void lbm_dev_block_free(lbm_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaFree(d->f));
  KIT_CUDA_CHECK(cudaFree(d->fn));
  KIT_CUDA_CHECK(cudaFree(d->init));
}

void lbm_dev_pack_async(const lbm_dev_block *d, const double *lattice, int l, int up, double *buf,
                        cudaStream_t stream) {
  const lbm_block *b = &d->blk;
  for (int m = 0; m < LBM_ZQ; ++m)
    KIT_CUDA_CHECK(cudaMemcpyAsync(buf + (size_t)m * b->plane,
                                   lattice + (size_t)lbm_zdir(up, m) * b->qs + (size_t)l * b->plane,
                                   b->plane * sizeof(double), cudaMemcpyDeviceToHost, stream));
}

void lbm_dev_unpack_async(const lbm_dev_block *d, double *lattice, int l, int up, const double *buf,
                          cudaStream_t stream) {
  const lbm_block *b = &d->blk;
  for (int m = 0; m < LBM_ZQ; ++m)
    KIT_CUDA_CHECK(cudaMemcpyAsync(lattice + (size_t)lbm_zdir(up, m) * b->qs + (size_t)l * b->plane,
                                   buf + (size_t)m * b->plane, b->plane * sizeof(double),
                                   cudaMemcpyHostToDevice, stream));
}
