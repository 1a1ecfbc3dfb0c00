/* faces.c: the face buffers of a GPU slab for --halo copies and pack (faces.h; Risso Sec. 4.2:
 * GPUPackInfo with cudaMemcpy3DAsync and with pack kernels; the GPU buffers of its
 * GPUBufferedScheme are pack's device messages, which --comm's transports move). */
#include "faces.h"

#include "kernels.h"
#include "kit/check.h"
#include "kit/halo.h"
#include "kit/runtime.h"

/* The plane a side sends from and the ghost plane it receives into, and which way their
 * populations move: down-movers leave through the bottom, up-movers arrive from below. */
static int out_plane(const lbm_dev_block *d, int side) {
  return side == KIT_DOWN ? 1 : d->blk.nz;
}
static int in_plane(const lbm_dev_block *d, int side) {
  return side == KIT_DOWN ? 0 : d->blk.nz + 1;
}
static int out_up(int side) {
  return side == KIT_UP;
}
static int in_up(int side) {
  return side == KIT_DOWN;
}

void lbm_dev_faces_init(lbm_dev_faces *x, const lbm_dev_block *d, const int mode[2], int staged) {
  x->count = (size_t)LBM_ZQ * d->blk.plane;
  x->staged = staged;
  const size_t bytes = x->count * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(d->device));
  for (int s = 0; s < 2; ++s) {
    x->mode[s] = mode[s];
    x->host_out[s] = x->host_in[s] = x->dev_out[s] = x->dev_in[s] = NULL;
    if (mode[s] < 0) continue;
    if (lbm_dev_faces_on_host(x, s)) {
      x->host_out[s] = kit_host_alloc(bytes, 1);
      x->host_in[s] = kit_host_alloc(bytes, 1);
    }
    if (mode[s] == LBM_HALO_PACK) {
      KIT_CUDA_CHECK(cudaMalloc((void **)&x->dev_out[s], bytes));
      KIT_CUDA_CHECK(cudaMalloc((void **)&x->dev_in[s], bytes));
    }
  }
}

void lbm_dev_faces_free(lbm_dev_faces *x) {
  for (int s = 0; s < 2; ++s) {
    if (x->host_out[s]) kit_host_free(x->host_out[s], 1);
    if (x->host_in[s]) kit_host_free(x->host_in[s], 1);
    if (x->dev_out[s]) KIT_CUDA_CHECK(cudaFree(x->dev_out[s]));
    if (x->dev_in[s]) KIT_CUDA_CHECK(cudaFree(x->dev_in[s]));
    x->host_out[s] = x->host_in[s] = x->dev_out[s] = x->dev_in[s] = NULL;
  }
}

void lbm_dev_faces_prime(const lbm_dev_faces *x, const lbm_dev_block *d, cudaStream_t stream) {
  const lbm_block *b = &d->blk;
  for (int s = 0; s < 2; ++s) {
    if (x->mode[s] < 0) continue;
    /* Where the exchange delivers: a staged pack's device buffer is refilled from the host
     * message every step, so only the host one needs the initial values; an unstaged pack's
     * unpack kernel reads the device buffer the transport writes (or, when nothing moves,
     * leaves as it was). */
    if (lbm_dev_faces_on_host(x, s))
      lbm_dev_pack_async(d, d->init, in_plane(d, s), in_up(s), x->host_in[s], stream);
    else
      launch_lbm_pack(d->init, x->dev_in[s], b->plane, b->qs, in_plane(d, s), in_up(s), stream);
  }
  KIT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void lbm_dev_faces_out(const lbm_dev_faces *x, const lbm_dev_block *d, const double *lattice, int side,
                       cudaStream_t stream) {
  const lbm_block *b = &d->blk;
  switch (x->mode[side]) {
    case LBM_HALO_COPIES:
      lbm_dev_pack_async(d, lattice, out_plane(d, side), out_up(side), x->host_out[side], stream);
      break;
    case LBM_HALO_PACK:
      launch_lbm_pack(lattice, x->dev_out[side], b->plane, b->qs, out_plane(d, side), out_up(side), stream);
      if (x->staged)
        KIT_CUDA_CHECK(cudaMemcpyAsync(x->host_out[side], x->dev_out[side], x->count * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream));
      break;
    default:
      break; /* no neighbour on this side */
  }
}

void lbm_dev_faces_in(const lbm_dev_faces *x, const lbm_dev_block *d, double *lattice, int side,
                      cudaStream_t stream) {
  const lbm_block *b = &d->blk;
  switch (x->mode[side]) {
    case LBM_HALO_COPIES:
      lbm_dev_unpack_async(d, lattice, in_plane(d, side), in_up(side), x->host_in[side], stream);
      break;
    case LBM_HALO_PACK:
      if (x->staged)
        KIT_CUDA_CHECK(cudaMemcpyAsync(x->dev_in[side], x->host_in[side], x->count * sizeof(double),
                                       cudaMemcpyHostToDevice, stream));
      launch_lbm_unpack(lattice, x->dev_in[side], b->plane, b->qs, in_plane(d, side), in_up(side), stream);
      break;
    default:
      break;
  }
}
