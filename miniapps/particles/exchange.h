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
  int n, width;            /* connections, doubles per record */
  int *rank, *stag, *rtag; /* peer, send tag and receive tag per connection */
  size_t *scount, *rcount; /* records to send and received, per connection */
  size_t *scap, *rcap;     /* capacities of the buffers, in doubles */
  double **sbuf, **rbuf;   /* staging buffers */
  MPI_Request *req;        /* 2 n: receives, then sends */
  MPI_Status *status;      /* 2 n */
  long long messages, bytes; /* sent since px_init (or the caller's reset) */
} px_plan;

void px_init(px_plan *x, MPI_Comm comm, const pt_decomp *d, int width, int tag_base);
void px_free(px_plan *x);
/* Empties every send list. */
void px_clear(px_plan *x);
/* Room for one more record to connection k: returns where to write its `width` doubles. */
double *px_send_slot(px_plan *x, int k);
/* Exchanges the counts (waiting for them), then posts the receives and sends of the records. */
void px_start(px_plan *x);
/* Waits for the records: rbuf[k] then holds rcount[k] records from connection k. */
void px_finish(px_plan *x);

#ifdef __cplusplus
}
#endif
#endif
