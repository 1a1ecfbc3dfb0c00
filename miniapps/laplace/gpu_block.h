/* gpu_block.h: a laplace block resident on one GPU, shared by the GPU variants:
 * the two device fields, a device copy of the initial state (so reset is a fast
 * device-to-device copy), plane transfers, and naive's and two-stream's exchange with the
 * neighbour ranks on any process grid (laplace_dev_halo). Host C on the CUDA runtime API. */
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
/* The exchange of a rank's box with its neighbours over --comm's transport (kit/exchange.h),
 * the next field's faces: on a z-slab grid (1x1xN) the two planes straight from and into the
 * field; on any other grid up to six faces (laplace_face_links), the x and y ones packed into
 * device buffers by a kernel before and unpacked after, on the same stream. side[] says which
 * faces have a neighbour: the outer layer a two-stream step computes first. */
typedef struct laplace_dev_halo {
  kit_exchange x; /* its buffers: the x and y faces, packed, on the device (NULL: no neighbour) */
  int side[LAPLACE_FACES];
} laplace_dev_halo;
void laplace_dev_halo_init(laplace_dev_halo *h, const laplace_ctx *c, const laplace_dev_block *d);
/* After laplace_dev_block_reset: the receive buffers hold the ghost layers they will be
 * unpacked into, so an exchange that moves nothing (KIT_FAULT=stale-halo) leaves the ghosts
 * as they were and verification sees it. */
void laplace_dev_halo_reset(laplace_dev_halo *h, const laplace_dev_block *d);
/* The exchange of d->un's faces, ordered on `stream` (the host returns as kit_exchange_run
 * does). */
void laplace_dev_halo_run(laplace_dev_halo *h, const laplace_dev_block *d, cudaStream_t stream);
void laplace_dev_halo_free(laplace_dev_halo *h);
/* Swap current and next. */
static inline void laplace_dev_swap(laplace_dev_block *d) {
  double *t = d->u;
  d->u = d->un;
  d->un = t;
}
#endif
