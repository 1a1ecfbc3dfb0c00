/* exchange.c: the separator exchange of Paper III Sec. 3.1 ("node n receives updated values
 * for these ghost cells from neighboring nodes and sends updated values of its separator
 * cells in return. The elements to be sent ... must be packed into a contiguous buffer ...
 * The ghost cells are organized such that their values can be received in a contiguous
 * fashion"), with MPI_Irecv / MPI_Isend as the paper does: the host-staged exchange of cpu,
 * hybrid and multi-thread, whose fields (or staging) are host memory. naive and two-stream go
 * through kit/exchange.h instead (--comm), on the plan tetfv_links_build makes here from the
 * same lists: one link per neighbouring part, any number of them. */
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

void tetfv_links_build(const tetfv_local *l, tetfv_links *k) {
  memset(k, 0, sizeof *k);
  /* The union of the send and receive peers: both lists are sorted by rank (partition.c). */
  const size_t most = (size_t)l->nsend + (size_t)l->nrecv + 1;
  k->link = kit_malloc(most * sizeof *k->link, "links");
  k->send_at = kit_malloc(most * sizeof(int), "links");
  k->recv_at = kit_malloc(most * sizeof(int), "links");
  int s = 0, r = 0;
  while (s < l->nsend || r < l->nrecv) {
    const int ps = s < l->nsend ? l->send_peer[s] : -1, pr = r < l->nrecv ? l->recv_peer[r] : -1;
    const int peer = ps < 0 ? pr : pr < 0 ? ps : ps < pr ? ps : pr;
    kit_link *e = &k->link[k->n];
    *e = (kit_link){.rank = peer, .send_count = 0, .recv_count = 0, .send_tag = 0, .recv_tag = 0};
    /* A side without a message keeps a valid offset (the end of its list): count 0 there. */
    k->send_at[k->n] = l->send_off[s];
    k->recv_at[k->n] = l->recv_off[r];
    if (peer == ps) {
      e->send_count = (size_t)(l->send_off[s + 1] - l->send_off[s]);
      ++s;
    }
    if (peer == pr) {
      e->recv_count = (size_t)(l->recv_off[r + 1] - l->recv_off[r]);
      ++r;
    }
    k->n++;
  }
}

void tetfv_links_free(tetfv_links *k) {
  free(k->link);
  free(k->send_at);
  free(k->recv_at);
  memset(k, 0, sizeof *k);
}
