/* exchange.h: variable-length particle messages over a rank's connections (exchange.c). */
#ifndef PARTICLES_EXCHANGE_H
#define PARTICLES_EXCHANGE_H
#include <mpi.h>
#include <stddef.h>

#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message per connection and direction, of records of `width` doubles. */
typedef struct px_plan {
  MPI_Comm comm;
  int n, width;              /* connections, doubles per record */
  int *rank, *stag, *rtag;   /* peer, send tag and receive tag per connection */
  int *local;                /* 1: the peer is a thread of this process (multi-thread); no MPI,
                                the caller fills rcount/rbuf with px_take_local */
  int nremote;               /* connections that go over MPI */
  size_t *scount, *rcount;   /* records to send and received, per connection */
  size_t *scap, *rcap;       /* capacities of the buffers, in doubles */
  double **sbuf, **rbuf;     /* staging buffers */
  MPI_Request *req;          /* 2 n: receives, then sends */
  MPI_Status *status;        /* 2 n */
  long long messages, bytes; /* sent since px_init (or the caller's reset) */
} px_plan;

void px_init(px_plan *x, MPI_Comm comm, const pt_decomp *d, int width, int tag_base);
/* Multi-thread: the decomposition's "ranks" are tiles, tile q driven by thread q % T of MPI
 * rank q / T (T = tiles_per_rank); this plan belongs to tile `me`. Connections to tiles of
 * the same rank are local (no MPI). Tags: kind (0 ghosts, 1 migrants) x ordered thread pair x
 * image, so messages between two processes never mix (at most 128 T^2 tags: T <= 16 keeps
 * them within the 32767 MPI guarantees). With T = 1 the tags are px_init's with tag_base
 * 64 x kind. */
void px_init_tiles(px_plan *x, MPI_Comm comm, const pt_decomp *d, int width, int kind, int me,
                   int tiles_per_rank);
void px_free(px_plan *x);
/* Empties every send list. */
void px_clear(px_plan *x);
/* Room for one more record to connection k: returns where to write its `width` doubles. */
double *px_send_slot(px_plan *x, int k);
/* Room for `nrec` more records to connection k, written later (in any order, by any thread):
 * returns the index of the first, in records; the buffer is sbuf[k] once all are reserved. */
size_t px_send_reserve(px_plan *x, int k, size_t nrec);
/* Exchanges the counts (waiting for them), then posts the receives and sends of the records. */
void px_start(px_plan *x);
/* Waits for the records: rbuf[k] then holds rcount[k] records from connection k. */
void px_finish(px_plan *x);
/* A local connection k: copies what the peer's plan queued on its connection kpeer (the one
 * back to us) into rbuf[k]. The peer must have finished packing (a barrier between). */
void px_take_local(px_plan *x, int k, const px_plan *peer, int kpeer);

#ifdef __cplusplus
}
#endif
#endif
