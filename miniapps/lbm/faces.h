/* faces.h: the face exchange buffers of an lbm slab on one GPU, for the three --halo schemes
 * of Risso Sec. 4.2 (host-staged copies, pack kernels, GPU buffers). Per step and per face
 * five of the 19 populations of one plane leave the slab and five arrive in its ghost plane;
 * these functions move them between the lattice and the buffer MPI (or, in the hybrid, the
 * CPU part) reads and writes. The variants call out, exchange, in; which calls run in between
 * is the scheme:
 *   copies:      out = 5 cudaMemcpyAsync D2H into pinned host; in = 5 H2D copies
 *   pack:        out = pack kernel into a device buffer + 1 D2H; in = 1 H2D + unpack kernel
 *   cuda-aware:  out = pack kernel; MPI reads and writes the device buffers; in = unpack kernel
 * Side KIT_DOWN sends the down-movers of plane 1 and receives the up-movers into ghost plane
 * 0; side KIT_UP sends the up-movers of plane nz and receives into ghost plane nz + 1.
 * Host C on the CUDA runtime. */
#ifndef LBM_FACES_H
#define LBM_FACES_H
#include "gpu_block.h"

typedef struct lbm_dev_faces {
  int mode[2];                      /* lbm_halo_mode per side, -1 where the side has no neighbour */
  size_t count;                     /* doubles per face: LBM_ZQ * plane */
  double *host_out[2], *host_in[2]; /* pinned staging (copies, pack), else NULL */
  double *dev_out[2], *dev_in[2];   /* packed device buffers (pack, cuda-aware), else NULL */
} lbm_dev_faces;

/* --halo on each side of c's slab that has an MPI neighbour, -1 on the others. */
static inline void lbm_dev_faces_mpi_modes(const lbm_ctx *c, int mode[2]) {
  for (int s = 0; s < 2; ++s) mode[s] = c->nbr[s] != MPI_PROC_NULL ? (int)c->p->halo_mode : -1;
}
/* Allocates side s's buffers for mode[s] (-1: none) on d's device. */
void lbm_dev_faces_init(lbm_dev_faces *x, const lbm_dev_block *d, const int mode[2]);
void lbm_dev_faces_free(lbm_dev_faces *x);
/* Fills the receive buffers with the initial ghost populations (from d->init), so a message
 * that never arrives (KIT_FAULT=stale-halo) leaves the ghosts stale, not zero. Synchronous. */
void lbm_dev_faces_prime(const lbm_dev_faces *x, const lbm_dev_block *d, cudaStream_t stream);
/* Queue on `stream` the move of side's outgoing populations of `lattice` into the buffer MPI
 * sends (lbm_dev_faces_send_buf); the caller synchronises before sending. */
void lbm_dev_faces_out(const lbm_dev_faces *x, const lbm_dev_block *d, const double *lattice, int side,
                       cudaStream_t stream);
/* Queue the move of side's received populations into the ghost plane of `lattice`. */
void lbm_dev_faces_in(const lbm_dev_faces *x, const lbm_dev_block *d, double *lattice, int side,
                      cudaStream_t stream);
/* The buffer MPI sends from / receives into on side: device memory under cuda-aware, pinned
 * host memory otherwise. */
static inline void *lbm_dev_faces_send_buf(const lbm_dev_faces *x, int side) {
  return x->mode[side] == LBM_HALO_CUDA_AWARE ? (void *)x->dev_out[side] : (void *)x->host_out[side];
}
static inline void *lbm_dev_faces_recv_buf(const lbm_dev_faces *x, int side) {
  return x->mode[side] == LBM_HALO_CUDA_AWARE ? (void *)x->dev_in[side] : (void *)x->host_in[side];
}
#endif
