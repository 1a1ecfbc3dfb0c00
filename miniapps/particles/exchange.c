/* exchange.c: variable-length messages to a list of connections (neighbouring rank x periodic
 * image), the one place the particles app calls MPI for its time step (DESIGN.md Sec. 9:
 * physics code never calls MPI directly). kit_halo (common/) moves fixed-size planes of a
 * slab decomposition; particles need a count per connection that changes every step, so the
 * exchange is two-phase: the counts first (one int per connection), then the records, whose
 * receives are posted before the sends. A proposed common/ addition (kit_nbr_exchange).
 * Tags: a message over connection (r, s) carries tag base + code(s); r's connection back
 * to me is (me, -s), over which it sends with tag base + code(-s), which is what I expect
 * over (r, s). So two connections to the same rank (two periodic images of it, as on a rank
 * grid of extent 1 or 2 along an axis) never mix their messages. Counts use tags base +
 * 0..26, records base + 32..58. The multi-thread variant's plans (px_init_tiles) name tiles
 * driven by the threads of several processes: connections between threads of one process
 * are "local" and skip MPI (the threads read each other's send lists, px_take_local). */
#include "exchange.h"

#include <stdlib.h>
#include <string.h>

#include "kit/check.h"

static int code(const int s[3]) {
  return (s[0] + 1) + 3 * (s[1] + 1) + 9 * (s[2] + 1);
}

void px_init(px_plan *x, MPI_Comm comm, const pt_decomp *d, int width, int tag_base) {
  memset(x, 0, sizeof *x);
  x->comm = comm;
  x->n = d->nconn;
  x->width = width;
  const size_t n = (size_t)(x->n > 0 ? x->n : 1);
  x->rank = kit_malloc(n * sizeof *x->rank, "exchange plan");
  x->stag = kit_malloc(n * sizeof *x->stag, "exchange plan");
  x->rtag = kit_malloc(n * sizeof *x->rtag, "exchange plan");
  x->scount = calloc(n, sizeof *x->scount);
  x->rcount = calloc(n, sizeof *x->rcount);
  x->scap = calloc(n, sizeof *x->scap);
  x->rcap = calloc(n, sizeof *x->rcap);
  x->sbuf = calloc(n, sizeof *x->sbuf);
  x->rbuf = calloc(n, sizeof *x->rbuf);
  x->req = kit_malloc(2 * n * sizeof *x->req, "exchange plan");
  x->status = kit_malloc(2 * n * sizeof *x->status, "exchange plan");
  x->local = calloc(n, sizeof *x->local);
  if (!x->scount || !x->rcount || !x->scap || !x->rcap || !x->sbuf || !x->rbuf || !x->local)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the exchange plan");
  for (int k = 0; k < x->n; ++k) {
    const pt_conn *c = &d->conn[k];
    const int back[3] = {-c->shift[0], -c->shift[1], -c->shift[2]};
    x->rank[k] = c->rank;
    x->stag[k] = tag_base + code(c->shift);
    x->rtag[k] = tag_base + code(back); /* r sends to me over its connection (me, -s) */
  }
  x->nremote = x->n;
}

void px_init_tiles(px_plan *x, MPI_Comm comm, const pt_decomp *d, int width, int kind, int me,
                   int tiles_per_rank) {
  const int t = tiles_per_rank, mine = me % t, my_rank = me / t;
  px_init(x, comm, d, width, 0);
  x->nremote = 0;
  for (int k = 0; k < x->n; ++k) {
    const pt_conn *c = &d->conn[k];
    const int back[3] = {-c->shift[0], -c->shift[1], -c->shift[2]};
    const int peer = c->rank % t, peer_rank = c->rank / t;
    /* 64 tags per ordered thread pair: counts at +0..26, records at +32..58 (px_start). */
    x->rank[k] = peer_rank;
    x->stag[k] = 64 * (kind * t * t + mine * t + peer) + code(c->shift);
    x->rtag[k] = 64 * (kind * t * t + peer * t + mine) + code(back);
    x->local[k] = peer_rank == my_rank;
    x->nremote += !x->local[k];
  }
}

void px_free(px_plan *x) {
  for (int k = 0; k < x->n; ++k) {
    free(x->sbuf[k]);
    free(x->rbuf[k]);
  }
  free(x->rank);
  free(x->stag);
  free(x->rtag);
  free(x->scount);
  free(x->rcount);
  free(x->scap);
  free(x->rcap);
  free(x->sbuf);
  free(x->rbuf);
  free(x->req);
  free(x->status);
  free(x->local);
  memset(x, 0, sizeof *x);
}

/* Grows a buffer to `need` doubles, keeping its first `keep`. */
static void grow(double **buf, size_t *cap, size_t need, size_t keep) {
  if (need <= *cap) return;
  size_t c = *cap > 0 ? *cap : 256;
  while (c < need) c *= 2;
  double *b = kit_malloc(c * sizeof *b, "exchange buffer");
  if (keep) memcpy(b, *buf, keep * sizeof *b);
  free(*buf);
  *buf = b;
  *cap = c;
}

double *px_send_slot(px_plan *x, int k) {
  grow(&x->sbuf[k], &x->scap[k], (x->scount[k] + 1) * (size_t)x->width, x->scount[k] * (size_t)x->width);
  return x->sbuf[k] + x->scount[k]++ * (size_t)x->width;
}

size_t px_send_reserve(px_plan *x, int k, size_t nrec) {
  const size_t first = x->scount[k];
  grow(&x->sbuf[k], &x->scap[k], (first + nrec) * (size_t)x->width, first * (size_t)x->width);
  x->scount[k] = first + nrec;
  return first;
}

void px_clear(px_plan *x) {
  for (int k = 0; k < x->n; ++k) x->scount[k] = 0;
}

void px_start(px_plan *x) {
  /* Local connections (multi-thread) make no MPI call at all: a process whose connections
   * are all local calls no MPI here, whatever thread level MPI gave it. */
  if (x->nremote == 0) return;
  /* Phase 1: the counts (small, waited for at once). */
  int *sc = kit_malloc((size_t)(x->n > 0 ? x->n : 1) * sizeof *sc, "counts");
  int *rc = kit_malloc((size_t)(x->n > 0 ? x->n : 1) * sizeof *rc, "counts");
  for (int k = 0; k < x->n; ++k) {
    x->req[k] = x->req[x->n + k] = MPI_REQUEST_NULL;
    if (x->local[k]) continue;
    if (x->scount[k] * (size_t)x->width > 2147483647u)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "a message of %zu records is too large for MPI",
              x->scount[k]);
    sc[k] = (int)x->scount[k];
    KIT_MPI_CHECK(MPI_Irecv(&rc[k], 1, MPI_INT, x->rank[k], x->rtag[k], x->comm, &x->req[k]));
  }
  for (int k = 0; k < x->n; ++k)
    if (!x->local[k])
      KIT_MPI_CHECK(MPI_Isend(&sc[k], 1, MPI_INT, x->rank[k], x->stag[k], x->comm, &x->req[x->n + k]));
  KIT_MPI_CHECK(MPI_Waitall(2 * x->n, x->req, x->status));
  /* Phase 2: the records; receives first, then sends; px_finish waits. */
  for (int k = 0; k < x->n; ++k) {
    if (x->local[k]) continue; /* its request stays MPI_REQUEST_NULL */
    x->rcount[k] = (size_t)rc[k];
    grow(&x->rbuf[k], &x->rcap[k], x->rcount[k] * (size_t)x->width + 1, 0);
    KIT_MPI_CHECK(MPI_Irecv(x->rbuf[k], (int)(x->rcount[k] * x->width), MPI_DOUBLE, x->rank[k],
                            x->rtag[k] + 32, x->comm, &x->req[k]));
  }
  for (int k = 0; k < x->n; ++k) {
    if (x->local[k]) continue;
    if (!x->sbuf[k]) grow(&x->sbuf[k], &x->scap[k], 1, 0);
    KIT_MPI_CHECK(MPI_Isend(x->sbuf[k], (int)(x->scount[k] * x->width), MPI_DOUBLE, x->rank[k],
                            x->stag[k] + 32, x->comm, &x->req[x->n + k]));
    x->messages += 2;
    x->bytes += (long long)sizeof(int) + (long long)(x->scount[k] * x->width * sizeof(double));
  }
  free(sc);
  free(rc);
}

void px_finish(px_plan *x) {
  if (x->nremote > 0) KIT_MPI_CHECK(MPI_Waitall(2 * x->n, x->req, x->status));
}

void px_take_local(px_plan *x, int k, const px_plan *peer, int kpeer) {
  const size_t m = peer->scount[kpeer], w = (size_t)x->width;
  x->rcount[k] = m;
  grow(&x->rbuf[k], &x->rcap[k], m * w + 1, 0);
  if (m) memcpy(x->rbuf[k], peer->sbuf[kpeer], m * w * sizeof(double));
}
