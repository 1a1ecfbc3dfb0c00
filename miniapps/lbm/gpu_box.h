/* gpu_box.h: an lbm box of a process grid (--procs PxQxR other than 1x1xN; box.h) resident on
 * one GPU, shared by naive and two-stream: the current, next and initial lattices in the box's
 * padded storage, and the exchange of its 18 links (6 faces of 5 populations, 12 edges of 1;
 * Risso Sec. 4.2 in 3D) over --comm's transport, each message packed and unpacked on the device
 * by a kernel indexed by lbm_box_link_offset, the host pack's own index (Risso Sec. 4.3's
 * pack infos). Host C on the CUDA runtime. README.md "Process grids". */
#ifndef LBM_GPU_BOX_H
#define LBM_GPU_BOX_H
#include <cuda_runtime_api.h>

#include "kit/exchange.h"
#include "lbm.h"

typedef struct lbm_dev_box {
  lbm_box box;
  const lbm_params *p;
  int device;
  double *f, *fn, *init; /* current, next and initial lattice, ghosts included */
  kit_exchange x;        /* one link per face and edge (box.h's numbering); its buffers: the packed
                            messages on the device (NULL: no neighbour) */
  lbm_box_regions r;     /* the outer layer's parts and the inner box */
} lbm_dev_box;

/* Allocates on the rank's device, builds the initial state on the host (lbm_box_fill, the cpu
 * variant's own) and the links (lbm_box_links), and resets. */
void lbm_dev_box_init(lbm_dev_box *d, const lbm_ctx *c);
/* Both lattices back to the initial state; the receive buffers hold the ghost layers they will
 * be unpacked into, so an exchange that moves nothing (KIT_FAULT=stale-halo) leaves the ghosts
 * stale and the oracle sees it. */
void lbm_dev_box_reset(lbm_dev_box *d);
/* One update of local cells [lo, hi) per axis of f into fn, on `stream`. */
void lbm_dev_box_update(const lbm_dev_box *d, const int lo[3], const int hi[3], cudaStream_t stream);
/* The exchange of fn's links: pack every link, kit_exchange_run, unpack into the ghost layers,
 * all ordered on `stream` (the host returns as kit_exchange_run does). */
void lbm_dev_box_exchange(lbm_dev_box *d, cudaStream_t stream);
/* rho, ux, uy, uz of the box's cells (lbm_box_macroscopic), and its populations as a
 * checkpoint stores them (lbm_box_lattice_planes), from the current lattice. */
void lbm_dev_box_fetch(const lbm_dev_box *d, double *macro);
void lbm_dev_box_fetch_lattice(const lbm_dev_box *d, double *out);
void lbm_dev_box_free(lbm_dev_box *d);
static inline void lbm_dev_box_swap(lbm_dev_box *d) {
  double *t = d->f;
  d->f = d->fn;
  d->fn = t;
}
#endif
