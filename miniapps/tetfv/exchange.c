/* exchange.c: the separator exchange of Paper III Sec. 3.1 ("node n receives updated values
 * for these ghost cells from neighboring nodes and sends updated values of its separator
 * cells in return. The elements to be sent ... must be packed into a contiguous buffer ...
 * The ghost cells are organized such that their values can be received in a contiguous
 * fashion"), with MPI_Irecv / MPI_Isend as the paper does. kit_halo (common/) covers the
 * two neighbours of a slab; an unstructured partition has any number, so the exchange lives
 * here (proposed for common/ as a neighbour-list halo: see README.md "Not done yet"). */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"
#include "tetfv.h"

#define TETFV_TAG 5151

int tetfv_exchange_off(const tetfv_params *p) {
  return p->no_exchange || kit_fault("stale-halo");
}

void tetfv_exchange_init(tetfv_exchange *x, const tetfv_local *l, int pinned, int off) {
  memset(x, 0, sizeof *x);
  x->l = l;
  x->pinned = pinned;
  /* Pinned for the GPU variants: their send lists are packed on the device and copied here
   * asynchronously. */
  x->sbuf = kit_host_alloc(((size_t)l->send_off[l->nsend] + 1) * sizeof(double), pinned);
  x->req = kit_malloc(((size_t)l->nsend + l->nrecv + 1) * sizeof(MPI_Request), "requests");
  for (int k = 0; k < l->nsend + l->nrecv; ++k) x->req[k] = MPI_REQUEST_NULL;
  /* Off (--no-exchange, or KIT_FAULT=stale-halo in tests): no message is exchanged, the
   * ghosts keep old values; the oracle check must then fail (tests/tetfv). */
  x->stale = off;
}

void tetfv_exchange_free(tetfv_exchange *x) {
  kit_host_free(x->sbuf, x->pinned);
  free(x->req);
  memset(x, 0, sizeof *x);
}

void tetfv_exchange_post_recvs(tetfv_exchange *x, double *ghosts) {
  const tetfv_local *l = x->l;
  if (x->stale) return;
  for (int k = 0; k < l->nrecv; ++k)
    KIT_MPI_CHECK(MPI_Irecv(ghosts + l->recv_off[k], l->recv_off[k + 1] - l->recv_off[k], MPI_DOUBLE,
                            l->recv_peer[k], TETFV_TAG, MPI_COMM_WORLD, &x->req[k]));
}

void tetfv_exchange_pack(tetfv_exchange *x, const double *u) {
  const tetfv_local *l = x->l;
  if (x->stale) return;
  KIT_RANGE_PUSH("pack");
  const int total = l->send_off[l->nsend];
  for (int k = 0; k < total; ++k) x->sbuf[k] = u[l->send_idx[k]];
  KIT_RANGE_POP();
}

void tetfv_exchange_send(tetfv_exchange *x) {
  const tetfv_local *l = x->l;
  if (x->stale) return;
  for (int k = 0; k < l->nsend; ++k) {
    const int count = l->send_off[k + 1] - l->send_off[k];
    KIT_MPI_CHECK(MPI_Isend(x->sbuf + l->send_off[k], count, MPI_DOUBLE, l->send_peer[k], TETFV_TAG,
                            MPI_COMM_WORLD, &x->req[l->nrecv + k]));
    x->counters.messages++;
    x->counters.bytes += (long long)count * (long long)sizeof(double);
  }
}

void tetfv_exchange_pack_send(tetfv_exchange *x, const double *u) {
  tetfv_exchange_pack(x, u);
  tetfv_exchange_send(x);
}

void tetfv_exchange_wait(tetfv_exchange *x) {
  if (x->stale) return;
  /* One wait per request: MPI_Waitall with MPI_STATUSES_IGNORE trips GCC's
   * -Wstringop-overflow on MPICH's definition of that constant. */
  for (int k = 0; k < x->l->nsend + x->l->nrecv; ++k) KIT_MPI_CHECK(MPI_Wait(&x->req[k], MPI_STATUS_IGNORE));
}
