/* gpu_block.c: device-resident laplace block (gpu_block.h). */
#include "gpu_block.h"

#include <stdlib.h>

#include "kernels.h"
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

void laplace_dev_halo_init(laplace_dev_halo *h, const laplace_ctx *c, const laplace_dev_block *d) {
  kit_link links[LAPLACE_FACES];
  laplace_face_links(&d->blk, c->face_nbr, links);
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  for (int f = 0; f < LAPLACE_FACES; ++f) h->side[f] = links[f].rank != MPI_PROC_NULL;
  kit_exchange_init_links(&h->x, kit_comm_of(c->p->comm), MPI_COMM_WORLD, LAPLACE_FACES, links, MPI_DOUBLE,
                          sizeof(double), 0);
  kit_exchange_buffers(&h->x, laplace_packed_faces);
  laplace_dev_halo_reset(h, d);
}

void laplace_dev_halo_reset(laplace_dev_halo *h, const laplace_dev_block *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  for (int f = 0; f < LAPLACE_ZM; ++f)
    if (h->x.buf_recv[f]) launch_laplace_face_copy(&d->blk, d->un, f, 1, h->x.buf_recv[f], 1, 0);
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void laplace_dev_halo_run(laplace_dev_halo *h, const laplace_dev_block *d, cudaStream_t stream) {
  const laplace_block *b = &d->blk;
  void *send[LAPLACE_FACES], *recv[LAPLACE_FACES];
  for (int f = 0; f < LAPLACE_ZM; ++f) {
    if (h->x.buf_send[f]) launch_laplace_face_copy(b, d->un, f, 0, h->x.buf_send[f], 1, stream);
    send[f] = h->x.buf_send[f];
    recv[f] = h->x.buf_recv[f];
  }
  /* z faces straight from and into the field: each side's first or last interior plane goes
   * out, its ghost plane comes in. */
  send[LAPLACE_ZM] = laplace_dev_plane(d, d->un, 1);
  send[LAPLACE_ZP] = laplace_dev_plane(d, d->un, b->nz);
  recv[LAPLACE_ZM] = laplace_dev_plane(d, d->un, 0);
  recv[LAPLACE_ZP] = laplace_dev_plane(d, d->un, b->nz + 1);
  kit_exchange_run(&h->x, send, recv, stream);
  for (int f = 0; f < LAPLACE_ZM; ++f)
    if (h->x.buf_recv[f]) launch_laplace_face_copy(b, d->un, f, 1, h->x.buf_recv[f], 0, stream);
}

void laplace_dev_halo_free(laplace_dev_halo *h) {
  kit_exchange_free(&h->x);
}
