/* gpu_box.c: an lbm box resident on one GPU and its link exchange (gpu_box.h). */
#include "gpu_box.h"

#include <stdlib.h>

#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"

/* A box lattice on the device, LBM_BOX_ALIGN - 1 doubles into its allocation (cudaMalloc's is
 * 256-byte aligned) so that interior cell i = 1 of every row opens a line (box.h). */
static double *box_alloc(size_t total) {
  double *base;
  KIT_CUDA_CHECK(cudaMalloc((void **)&base, (total + LBM_BOX_ALIGN - 1) * sizeof(double)));
  return base + LBM_BOX_ALIGN - 1;
}

static void box_free(double *f) {
  KIT_CUDA_CHECK(cudaFree(f - (LBM_BOX_ALIGN - 1)));
}

void lbm_dev_box_init(lbm_dev_box *d, const lbm_ctx *c) {
  d->box = lbm_box_make(c->p, &c->blk);
  d->p = c->p;
  d->device = c->env->device;
  const size_t bytes = d->box.total * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  d->f = box_alloc(d->box.total);
  d->fn = box_alloc(d->box.total);
  d->init = box_alloc(d->box.total);
  double *h = kit_malloc(bytes, "initial lattice");
  lbm_box_fill(c->p, &d->box, h);
  KIT_CUDA_CHECK(cudaMemcpy(d->init, h, bytes, cudaMemcpyHostToDevice));
  free(h);
  kit_link links[LBM_LINKS];
  lbm_box_links(&d->box, c->p->procs, c->env->rank, links);
  int side[LBM_FACE_LINKS];
  for (int n = 0; n < LBM_FACE_LINKS; ++n) side[n] = links[n].rank != MPI_PROC_NULL;
  d->r = lbm_box_regions_of(&d->box, side);
  kit_exchange_init_links(&d->x, kit_comm_of(c->p->comm), MPI_COMM_WORLD, LBM_LINKS, links, MPI_DOUBLE,
                          sizeof(double), 0);
  kit_exchange_buffers(&d->x, NULL); /* every link's message is packed */
  lbm_dev_box_reset(d);
}

void lbm_dev_box_reset(lbm_dev_box *d) {
  const size_t bytes = d->box.total * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  KIT_CUDA_CHECK(cudaMemcpy(d->f, d->init, bytes, cudaMemcpyDeviceToDevice));
  KIT_CUDA_CHECK(cudaMemcpy(d->fn, d->init, bytes, cudaMemcpyDeviceToDevice));
  for (int n = 0; n < LBM_LINKS; ++n)
    if (d->x.buf_recv[n]) launch_lbm_box_link_copy(&d->box, d->fn, n, 1, d->x.buf_recv[n], 1, 0);
  /* The variants' streams are non-blocking: their first kernels must not overtake these. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void lbm_dev_box_update(const lbm_dev_box *d, const int lo[3], const int hi[3], cudaStream_t stream) {
  const lbm_params *p = d->p;
  launch_lbm_box_update(&d->box, d->f, d->fn, lo, hi, p->omega, p->force[0], p->force[1], p->force[2],
                        stream);
}

void lbm_dev_box_exchange(lbm_dev_box *d, cudaStream_t stream) {
  void *send[LBM_LINKS], *recv[LBM_LINKS];
  for (int n = 0; n < LBM_LINKS; ++n) {
    if (d->x.buf_send[n]) launch_lbm_box_link_copy(&d->box, d->fn, n, 0, d->x.buf_send[n], 1, stream);
    send[n] = d->x.buf_send[n];
    recv[n] = d->x.buf_recv[n];
  }
  kit_exchange_run(&d->x, send, recv, stream);
  for (int n = 0; n < LBM_LINKS; ++n)
    if (d->x.buf_recv[n]) launch_lbm_box_link_copy(&d->box, d->fn, n, 1, d->x.buf_recv[n], 0, stream);
}

void lbm_dev_box_fetch(const lbm_dev_box *d, double *macro) {
  double *h = lbm_dev_to_host(d->f, d->box.total, d->device);
  lbm_box_macroscopic(d->p, &d->box, h, macro);
  free(h);
}

void lbm_dev_box_fetch_lattice(const lbm_dev_box *d, double *out) {
  double *h = lbm_dev_to_host(d->f, d->box.total, d->device);
  lbm_box_lattice_planes(&d->box, h, out);
  free(h);
}

void lbm_dev_box_free(lbm_dev_box *d) {
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  kit_exchange_free(&d->x);
  box_free(d->f);
  box_free(d->fn);
  box_free(d->init);
}
