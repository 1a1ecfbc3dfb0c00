/* gpu_block.h: a laplace block resident on one GPU, shared by the GPU variants:
 * the two device fields, a device copy of the initial state (so reset is a fast
 * device-to-device copy) and plane transfers. Host C on the CUDA runtime API. */
#ifndef LAPLACE_GPU_BLOCK_H
#define LAPLACE_GPU_BLOCK_H
#include <cuda_runtime_api.h>

#include "kit/exchange.h"
#include "laplace.h"

typedef struct laplace_dev_block {
  laplace_block blk; /* geometry (global planes and strides) */
  int device;        /* CUDA device holding it */
  double *u, *un;    /* current and next field on the device */
  double *init;      /* initial state on the device */
  double *alloc[3];  /* the allocations behind u, un, init (see LAPLACE_ALIGN_OFFSET) */
} laplace_dev_block;

/* Fields start this many doubles into a 256-byte aligned allocation, so that point 1 of
 * every (padded) row is 128-byte aligned. */
#define LAPLACE_ALIGN_OFFSET 15

/* Allocates on `device` (made current) and sets the initial state. */
void laplace_dev_block_init(laplace_dev_block *d, const laplace_params *p, const laplace_block *b,
                            int device);
void laplace_dev_block_reset(laplace_dev_block *d);
/* Interior of local planes 1..nz into out (nx*ny*nz doubles, x fastest). */
void laplace_dev_block_fetch(const laplace_dev_block *d, double *out);
void laplace_dev_block_free(laplace_dev_block *d);
/* Address of local plane l of a device field. */
static inline double *laplace_dev_plane(const laplace_dev_block *d, double *field, int l) {
  return field + (size_t)l * d->blk.sz;
}
/* The planes the next field exchanges: each side's first/last interior plane goes out, its
 * ghost plane comes in (kit_exchange_run's send[] and recv[]). */
static inline void laplace_dev_faces(const laplace_dev_block *d, void *send[2], void *recv[2]) {
  send[KIT_DOWN] = laplace_dev_plane(d, d->un, 1);
  send[KIT_UP] = laplace_dev_plane(d, d->un, d->blk.nz);
  recv[KIT_DOWN] = laplace_dev_plane(d, d->un, 0);
  recv[KIT_UP] = laplace_dev_plane(d, d->un, d->blk.nz + 1);
}
/* The exchange of a rank's slab with its neighbours over --comm's transport (kit/exchange.h). */
static inline void laplace_exchange_init(kit_exchange *x, const laplace_ctx *c) {
  kit_exchange_init(x, kit_comm_of(c->p->comm), MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.sz,
                    MPI_DOUBLE, sizeof(double), 0);
}
/* Swap current and next. */
static inline void laplace_dev_swap(laplace_dev_block *d) {
  double *t = d->u;
  d->u = d->un;
  d->un = t;
}
#endif
