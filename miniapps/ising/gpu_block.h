/* gpu_block.h: an ising slab resident on one GPU, shared by the GPU variants: spins with
 * ghost planes, couplings, the initial state built on the device by the same per-site
 * function as on the host, the device address of a plane part, and the exchange of those
 * parts between processes (kit/exchange.h, --comm). Host C on the CUDA runtime API. */
#ifndef ISING_GPU_BLOCK_H
#define ISING_GPU_BLOCK_H
#include <cuda_runtime_api.h>

#include "ising.h"
#include "kit/exchange.h"

typedef struct ising_dev_block {
  ising_block blk;
  ising_rules rules;
  const ising_params *p;
  int device;
  int bits;          /* --layout msc: one bit per spin and per bond (sliced_bits.h) */
  int8_t *spin;      /* local planes 0..n+1 (bytes; NULL with bits) */
  uint8_t *coupling; /* local planes 1..n */
  uint32_t *sbits;   /* with bits: spins of local planes 0..n+1 */
  uint32_t *jbits;   /* with bits: the six coupling planes of local planes 1..n */
  int bits_slots[3]; /* with bits: the kernel's blocks that fit on the device (ising_bits_slots) */
  int bits_parts;    /* with bits: threads a word and slices a thread from ISING_BITS_PARTS and */
  int bits_run;      /* ISING_BITS_RUN (the benchmark's sweeps), or 0: the launch's own rule */
} ising_dev_block;

void ising_dev_block_init(ising_dev_block *d, const ising_params *p, const ising_block *b, int device);
/* Back to the initial state (the fill kernel again; synchronous). */
void ising_dev_block_reset(ising_dev_block *d);
/* Local planes 1..n into out (n * plane_stride bytes). */
void ising_dev_block_fetch(const ising_dev_block *d, int8_t *out);
void ising_dev_block_free(ising_dev_block *d);
/* Receive buffers (pinned) hold +1 spins until a message lands, so a receive that never
 * happens (KIT_FAULT=stale-halo) feeds valid but wrong spins to the update, never garbage
 * that would index past exp(-dE/T)'s table. NULL entries are skipped. (hybrid and
 * multi-thread, which stage through host memory themselves; naive and two-stream receive
 * straight into the ghost parts, which then keep the spins they held.) */
void ising_prime_inboxes(void *const buf[2], size_t bytes);
/* One half-sweep of colour c, sweep t, over the given local planes, in the block's storage. */
void ising_dev_half_sweep(const ising_dev_block *d, int colour, uint32_t t, ising_planes planes,
                          cudaStream_t stream);
/* A plane part as it travels (bytes, or bits with --layout msc), and its size. */
static inline void *ising_dev_part(const ising_dev_block *d, int local_plane, int part) {
  if (d->bits) return d->sbits + (size_t)local_plane * (d->blk.plane_stride / 32);
  return d->spin + ising_part_offset(&d->blk, local_plane, part);
}
/* What half-sweep `pl` moves, as kit_exchange_run's send[] and recv[] (indexed by side): the
 * changed part of each boundary plane goes out, the neighbour's lands in that part of the
 * ghost plane, in place (a part is contiguous: nothing to pack). NULL where the plan moves
 * nothing on that side (sliced: one side a half-sweep). The plan is the same function of the
 * colour on every rank, so both ends of a link skip alike: what a rank sends on side s in
 * half-sweep c (sliced: down after colour 0, up after colour 1; checkerboard: both), its
 * neighbour on that side receives on side 1 - s in the same half-sweep. */
static inline void ising_dev_faces(const ising_dev_block *d, const ising_plan *pl, void *send[2],
                                   void *recv[2]) {
  for (int side = 0; side < 2; ++side) {
    send[side] = pl->send_plane[side] >= 0 ? ising_dev_part(d, pl->send_plane[side], pl->part) : NULL;
    recv[side] = pl->recv_plane[side] >= 0 ? ising_dev_part(d, pl->recv_plane[side], pl->part) : NULL;
  }
}
/* The exchange of a rank's slab with its periodic neighbours over --comm's transport: one
 * plane part (ising_message_bytes) each way per link, device buffers. On one rank both
 * neighbours are the rank itself and on two the same other rank: the layer tells the links
 * apart by their tags. */
static inline void ising_exchange_init(kit_exchange *x, const ising_ctx *c) {
  kit_exchange_init(x, kit_comm_of(c->p->comm), MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP],
                    ising_message_bytes(c->p, &c->blk), MPI_INT8_T, 1, 0);
}

#endif
