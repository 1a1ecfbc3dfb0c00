/* gpu_block.h: a tetfv part resident on one GPU, shared by the GPU variants: the current and
 * next field and a device copy of the initial field (reset is a device-to-device copy), all
 * indexed by the part's local numbering (owned rows, then ghosts); the rows this GPU computes
 * as launch ranges in Paper III's blocked column-major storage (kernels.h); the send lists
 * packed by a kernel; and (naive, two-stream) the rank's exchange over kit/exchange.h, from
 * the packed lists straight into the ghosts of a device field. Host C on the CUDA runtime API. */
#ifndef TETFV_GPU_BLOCK_H
#define TETFV_GPU_BLOCK_H
#include <cuda_runtime_api.h>

#include "kernels.h"
#include "kit/check.h"
#include "tetfv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launch ranges a GPU keeps (boundary and bulk). */
#define TETFV_GPU_NSEG 2

typedef struct tetfv_gpu {
  int device;                         /* CUDA device holding it */
  int n;                              /* field length: nown + nghost of the part */
  double *u, *un;                     /* current and next field */
  double *init;                       /* the initial field */
  int nseg;                           /* launch ranges in seg */
  tetfv_dev_rows seg[TETFV_GPU_NSEG]; /* the rows this GPU computes */
  int npack;                          /* send-list entries packed on the device (0: none) */
  int *send_idx;                      /* device copy of the part's send_idx */
  double *sbuf;                       /* device buffer they are packed into */
} tetfv_gpu;

/* Allocates on `device` (made current) the fields of part l, set to u0 (nown + nghost values in
 * l's numbering), and launch range k = rows [cut[k], cut[k + 1]) for k < nseg; with `pack`, the
 * send lists of l for tetfv_gpu_pack. */
void tetfv_gpu_init(tetfv_gpu *g, int device, const tetfv_local *l, const double *u0, int nseg,
                    const int *cut, int pack);
/* Both fields back to the initial field; returns with the device idle. */
void tetfv_gpu_reset(tetfv_gpu *g);
void tetfv_gpu_free(tetfv_gpu *g);
/* Launch range k: un = step(u) on its rows. */
static inline void tetfv_gpu_rows(const tetfv_gpu *g, int k, const double *u, double *un, cudaStream_t s) {
  launch_tetfv_rows(&g->seg[k], u, un, s);
}
/* The send lists of `field` packed into g->sbuf on the device (Paper III Sec. 3.1: "packed
 * into a contiguous buffer during every round"), on s. */
void tetfv_gpu_pack_dev(const tetfv_gpu *g, const double *field, cudaStream_t s);
/* The same, then g->sbuf copied into `host` (pinned), on s. */
void tetfv_gpu_pack(const tetfv_gpu *g, const double *field, double *host, cudaStream_t s);
/* count doubles between device and host, on s; nothing for count <= 0. The host side must
 * be pinned for the copy to be asynchronous. */
static inline void tetfv_d2h(double *host, const double *dev, int count, cudaStream_t s) {
  if (count > 0)
    KIT_CUDA_CHECK(cudaMemcpyAsync(host, dev, (size_t)count * sizeof(double), cudaMemcpyDeviceToHost, s));
}
static inline void tetfv_h2d(double *dev, const double *host, int count, cudaStream_t s) {
  if (count > 0)
    KIT_CUDA_CHECK(cudaMemcpyAsync(dev, host, (size_t)count * sizeof(double), cudaMemcpyHostToDevice, s));
}
/* A rank's part on one GPU and its exchange with the other ranks over --comm's transport
 * (kit/exchange.h): the set-up naive and two-stream share (they differ in the schedule of a
 * step, not in what they hold). Each exchange packs the send lists into g.sbuf and hands the
 * layer one message per link out of it; the neighbours' messages land straight in the ghost
 * ranges of the field (contiguous per neighbour: partition.c), so nothing is unpacked. */
typedef struct tetfv_gpu_rank {
  tetfv_gpu g;         /* the part on the device, its send lists packed there */
  int nown;            /* the part's owned rows: its ghosts start there */
  tetfv_links plan;    /* one link per neighbouring part (tetfv_links_build) */
  kit_exchange x;      /* the plan over --comm's transport; x.halo counts the messages */
  void **send, **recv; /* per link: this exchange's message out (in g.sbuf) and ghosts in */
  int off;             /* --no-exchange: nothing is packed or exchanged */
} tetfv_gpu_rank;
/* tetfv_gpu_init(g, device, l, u0, nseg, cut, 1), the links of l and their exchange over
 * `comm` (collective: every rank of MPI_COMM_WORLD). `off`: --no-exchange (Paper III's
 * communication-free bound), tetfv_gpu_rank_exchange does nothing. KIT_FAULT=stale-halo is the
 * layer's: it moves nothing, and the ghosts keep the initial values tetfv_gpu_reset put in
 * both fields (so verification fails, as in cpu.c). */
void tetfv_gpu_rank_init(tetfv_gpu_rank *r, int device, const tetfv_local *l, const double *u0, int nseg,
                         const int *cut, kit_comm comm, int off);
/* One exchange of `field` (the step's new field), ordered on s behind the kernels that wrote
 * its separator rows: the pack kernel, then kit_exchange_run (nothing without a link). Work
 * queued on s afterwards sees the ghosts (host and cuda-aware: the host has waited for s and
 * MPI; ipc and nccl: only queued), and may overwrite g.sbuf. */
void tetfv_gpu_rank_exchange(tetfv_gpu_rank *r, double *field, cudaStream_t s);
/* Both fields back to the initial field, ghosts included; returns with the device idle. */
static inline void tetfv_gpu_rank_reset(tetfv_gpu_rank *r) {
  tetfv_gpu_reset(&r->g);
}
void tetfv_gpu_rank_free(tetfv_gpu_rank *r);

/* Rows [a, b) of the current field into out[a, b) (synchronous). */
void tetfv_gpu_fetch(const tetfv_gpu *g, int a, int b, double *out);
static inline void tetfv_gpu_swap(tetfv_gpu *g) {
  double *t = g->u;
  g->u = g->un;
  g->un = t;
}

#ifdef __cplusplus
}
#endif
#endif
