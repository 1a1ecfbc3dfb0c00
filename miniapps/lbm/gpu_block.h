/* gpu_block.h: an lbm slab resident on one GPU, shared by the GPU variants: the current and
 * next lattice, a device copy of the initial state (reset is a device-to-device copy), and the
 * copies of the five populations that cross a z-face between a lattice plane and a staging
 * buffer (Risso Sec. 4.2: only what crosses the face travels). Host C on the CUDA runtime. */
#ifndef LBM_GPU_BLOCK_H
#define LBM_GPU_BLOCK_H
#include <cuda_runtime_api.h>

#include "lbm.h"

typedef struct lbm_dev_block {
  lbm_block blk;
  lbm_geom geom;
  const lbm_params *p;
  int device;
  double *f, *fn; /* current and next lattice, ghosts included */
  double *init;   /* the initial lattice */
} lbm_dev_block;

void lbm_dev_block_init(lbm_dev_block *d, const lbm_params *p, const lbm_block *b, int device);
void lbm_dev_block_reset(lbm_dev_block *d);
/* rho, ux, uy, uz of planes 1..nz (4 doubles per cell, x fastest), as lbm_macroscopic. */
void lbm_dev_block_fetch(const lbm_dev_block *d, double *macro);
/* The populations of planes 1..nz in lbm_lattice_planes' order (checkpoints). */
void lbm_dev_block_fetch_lattice(const lbm_dev_block *d, double *out);
void lbm_dev_block_free(lbm_dev_block *d);
/* A lattice of `total` doubles on `device`, ghosts included, copied to a new host array (the
 * caller frees it): the fetches of a slab and of a box (gpu_box.c). */
double *lbm_dev_to_host(const double *f, size_t total, int device);
/* Copy the five populations of local plane l of `lattice` that move up (up = 1) or down into
 * the host buffer `buf` (5 * plane doubles, lbm_pack's order), or back, on `stream`. */
void lbm_dev_pack_async(const lbm_dev_block *d, const double *lattice, int l, int up, double *buf,
                        cudaStream_t stream);
void lbm_dev_unpack_async(const lbm_dev_block *d, double *lattice, int l, int up, const double *buf,
                          cudaStream_t stream);
static inline void lbm_dev_swap(lbm_dev_block *d) {
  double *t = d->f;
  d->f = d->fn;
  d->fn = t;
}
#endif
