/* faces.h: the face buffers of an lbm slab on one GPU, for the two --halo schemes of Risso
 * Sec. 4.2 (GPUPackInfo with copies, GPUPackInfo with pack kernels). Per step and per face
 * five of the 19 populations of one plane leave the slab and five arrive in its ghost plane;
 * these functions move them between the lattice and the message buffer that the exchange
 * (kit/exchange.h, --comm; the hybrid's own MPI and CPU part) reads and writes. The variants
 * call out, exchange, in; which calls run in between is the scheme:
 *   copies:  out = 5 cudaMemcpyAsync D2H into pinned host; in = 5 H2D copies. The message is
 *            host memory: only --comm host sends it, as it is (kit_exchange_init's on_host).
 *   pack:    out = pack kernel into a device buffer; in = unpack kernel out of one. The
 *            message is device memory, for any transport (host stages it itself).
 *   pack, staged (hybrid): pack kernel + 1 D2H into pinned host; in = 1 H2D + unpack kernel,
 *            since the hybrid's MPI and its CPU part read host memory.
 * Side KIT_DOWN sends the down-movers of plane 1 and receives the up-movers into ghost plane
 * 0; side KIT_UP sends the up-movers of plane nz and receives into ghost plane nz + 1.
 * Host C on the CUDA runtime. */
#ifndef LBM_FACES_H
#define LBM_FACES_H
#include "gpu_block.h"
#include "kit/exchange.h"

typedef struct lbm_dev_faces {
  int mode[2];                      /* lbm_halo_mode per side, -1 where the side exchanges nothing */
  int staged;                       /* pack also stages through pinned host memory (hybrid) */
  size_t count;                     /* doubles per face: LBM_ZQ * plane */
  double *host_out[2], *host_in[2]; /* pinned messages (copies, staged pack), else NULL */
  double *dev_out[2], *dev_in[2];   /* packed device buffers (pack), else NULL */
} lbm_dev_faces;

/* --halo on each side of c's slab that has an MPI neighbour, -1 on the others. */
static inline void lbm_dev_faces_mpi_modes(const lbm_ctx *c, int mode[2]) {
  for (int s = 0; s < 2; ++s) mode[s] = c->nbr[s] != MPI_PROC_NULL ? (int)c->p->halo_mode : -1;
}
/* Allocates side s's buffers for mode[s] (-1: none) on d's device; `staged`: a pack side
 * also gets pinned host messages (hybrid). */
void lbm_dev_faces_init(lbm_dev_faces *x, const lbm_dev_block *d, const int mode[2], int staged);
void lbm_dev_faces_free(lbm_dev_faces *x);
/* Fills the receive messages with the initial ghost populations (from d->init), so a message
 * that never arrives (KIT_FAULT=stale-halo) leaves the ghosts stale, not zero: the buffer
 * lbm_dev_faces_in reads (host_in under copies and staged pack, whose dev_in is refilled from
 * it every step; dev_in under pack). Synchronous. */
void lbm_dev_faces_prime(const lbm_dev_faces *x, const lbm_dev_block *d, cudaStream_t stream);
/* Queue on `stream` the move of side's outgoing populations of `lattice` into its send
 * message (lbm_dev_faces_send_buf). A host message is complete only once the stream is. */
void lbm_dev_faces_out(const lbm_dev_faces *x, const lbm_dev_block *d, const double *lattice, int side,
                       cudaStream_t stream);
/* Queue the move of side's received message into the ghost plane of `lattice`. */
void lbm_dev_faces_in(const lbm_dev_faces *x, const lbm_dev_block *d, double *lattice, int side,
                      cudaStream_t stream);
/* 1 if side's messages are pinned host memory (copies, staged pack), 0 if device memory. */
static inline int lbm_dev_faces_on_host(const lbm_dev_faces *x, int side) {
  return x->mode[side] == LBM_HALO_COPIES || (x->mode[side] == LBM_HALO_PACK && x->staged);
}
/* The message side sends from / receives into: pinned host memory or the packed device
 * buffer (lbm_dev_faces_on_host); NULL on a side that exchanges nothing. */
static inline void *lbm_dev_faces_send_buf(const lbm_dev_faces *x, int side) {
  return lbm_dev_faces_on_host(x, side) ? (void *)x->host_out[side] : (void *)x->dev_out[side];
}
static inline void *lbm_dev_faces_recv_buf(const lbm_dev_faces *x, int side) {
  return lbm_dev_faces_on_host(x, side) ? (void *)x->host_in[side] : (void *)x->dev_in[side];
}
/* Both sides' messages as kit_exchange_run takes them (NULL on a side without a neighbour:
 * nothing to move there). */
static inline void lbm_dev_faces_msgs(const lbm_dev_faces *x, void *send[2], void *recv[2]) {
  for (int s = 0; s < 2; ++s) {
    send[s] = lbm_dev_faces_send_buf(x, s);
    recv[s] = lbm_dev_faces_recv_buf(x, s);
  }
}
/* The exchange of a rank's faces with its neighbours over --comm's transport (naive,
 * two-stream). Under copies the messages are the pinned host faces, which MPI reads and
 * writes as they are (on_host: no staging, no stream synchronisation in the layer: the
 * variant synchronises before kit_exchange_run); under pack the device buffers. */
static inline void lbm_exchange_init(kit_exchange *x, const lbm_ctx *c) {
  kit_exchange_init(x, kit_comm_of(c->p->comm), MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP],
                    (size_t)LBM_ZQ * c->blk.plane, MPI_DOUBLE, sizeof(double),
                    c->p->halo_mode == LBM_HALO_COPIES);
}
#endif
