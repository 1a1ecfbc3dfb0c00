/* exchange.c: the separator exchange of Paper III Sec. 3.1 ("node n receives updated values
 * for these ghost cells from neighboring nodes and sends updated values of its separator
 * cells in return. The elements to be sent ... must be packed into a contiguous buffer ...
 * The ghost cells are organized such that their values can be received in a contiguous
 * fashion"): the plan of links tetfv_links_build makes from the part's lists (one per
 * neighbouring part, any number), which naive and two-stream hand to kit/exchange.h with
 * device buffers (--comm), and cpu, hybrid and multi-thread, whose fields or staging are host
 * memory, with host buffers over the `host` transport: the packed send lists go out, the
 * neighbours' messages land straight in the ghost ranges. */
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/ranges.h"
#include "tetfv.h"

int tetfv_exchange_off(const tetfv_params *p) {
  return p->no_exchange || kit_fault("stale-halo");
}

void tetfv_exchange_init(tetfv_exchange *x, const tetfv_local *l, int off) {
  memset(x, 0, sizeof *x);
  x->l = l;
  x->sbuf = kit_malloc(((size_t)l->send_off[l->nsend] + 1) * sizeof(double), "send lists");
  /* Off (--no-exchange, or KIT_FAULT=stale-halo in tests): no message is exchanged, the
   * ghosts keep old values; the oracle check must then fail (tests/tetfv). */
  x->stale = off;
  tetfv_links_build(l, &x->plan);
  const int n = x->plan.n;
  x->send = kit_malloc(((size_t)n + 1) * sizeof(void *), "exchange messages");
  x->recv = kit_malloc(((size_t)n + 1) * sizeof(void *), "exchange messages");
  for (int k = 0; k < n; ++k) x->send[k] = x->sbuf + x->plan.send_at[k]; /* the same every step */
  kit_exchange_init_links(&x->x, KIT_COMM_HOST, MPI_COMM_WORLD, n, x->plan.link, MPI_DOUBLE, sizeof(double),
                          1);
}

void tetfv_exchange_free(tetfv_exchange *x) {
  kit_exchange_free(&x->x);
  tetfv_links_free(&x->plan);
  free(x->sbuf);
  free(x->send);
  free(x->recv);
  memset(x, 0, sizeof *x);
}

void tetfv_exchange_pack(tetfv_exchange *x, const double *u) {
  const tetfv_local *l = x->l;
  if (x->stale) return;
  KIT_RANGE_PUSH("pack");
  const int total = l->send_off[l->nsend];
  for (int k = 0; k < total; ++k) x->sbuf[k] = u[l->send_idx[k]];
  KIT_RANGE_POP();
}

void tetfv_exchange_start(tetfv_exchange *x, double *ghosts) {
  if (x->stale) return;
  for (int k = 0; k < x->plan.n; ++k) x->recv[k] = ghosts + x->plan.recv_at[k];
  kit_exchange_start(&x->x, x->send, x->recv, NULL);
}

void tetfv_exchange_finish(tetfv_exchange *x) {
  if (!x->stale) kit_exchange_finish(&x->x);
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
